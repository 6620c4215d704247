package io.srdnic.verbs;

/** Memory-region access flags (ibv_access_flags). */
public final class Access {
    public static final int LOCAL_WRITE = 1;
    public static final int REMOTE_WRITE = 1 << 1;
    public static final int REMOTE_READ = 1 << 2;
    /** The peer may run atomics (CMP_SWAP, FETCH_ADD) on the region's 8-byte aligned words, over RC. */
    public static final int REMOTE_ATOMIC = 1 << 3;

    private Access() {
    }
}
