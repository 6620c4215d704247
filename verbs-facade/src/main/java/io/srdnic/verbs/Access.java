package io.srdnic.verbs;

/** Memory-region access flags (ibv_access_flags). */
public final class Access {
    public static final int LOCAL_WRITE = 1;
    public static final int REMOTE_WRITE = 1 << 1;
    public static final int REMOTE_READ = 1 << 2;

    private Access() {
    }
}
