package io.srdnic.verbs;

import java.lang.foreign.MemorySegment;

/** Registered memory (ibv_mr): a native segment with its access flags and keys. */
public final class MemoryRegion {
    final ProtectionDomain pd;
    final MemorySegment segment;
    final int access;
    final int lkey;
    final int rkey;
    volatile boolean deregistered;

    MemoryRegion(ProtectionDomain pd, MemorySegment segment, int access, int lkey) {
        this.pd = pd;
        this.segment = segment;
        this.access = access;
        this.lkey = lkey;
        this.rkey = lkey; // one key: the transport checks remote access against the same table
    }

    public MemorySegment segment() {
        return segment;
    }

    public int lkey() {
        return lkey;
    }

    public int rkey() {
        return rkey;
    }

    public int access() {
        return access;
    }

    /** Whether [{@code segment}+{@code offset}, +{@code length}) lies inside this region. */
    boolean covers(MemorySegment s, long offset, int length) {
        if (deregistered || offset < 0 || length < 0 || offset + length > s.byteSize()) {
            return false;
        }
        long start = s.address() + offset;
        long base = segment.address();
        return start >= base && start + length <= base + segment.byteSize();
    }

    /**
     * Deregisters the region; posts naming its lkey complete with LOCAL_PROTECTION_ERROR from now
     * on, and RDMA requests naming its rkey, those in flight included, are refused at once.
     */
    public void deregister() {
        pd.context.deregister(this);
    }
}
