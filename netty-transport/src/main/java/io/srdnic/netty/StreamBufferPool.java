package io.srdnic.netty;

import io.srdnic.verbs.Context;
import io.srdnic.verbs.ProtectionDomain;
import java.util.ArrayDeque;

/**
 * A loop's stream buffers (used on its thread only). Embedded, each stream gets a set of its own and
 * frees it when it goes. Attached, sets come from the shared pool, which never takes memory back:
 * a released stream's set is kept here and the next stream takes it, so opening and closing
 * channels uses no more of the pool than the most streams ever open at once.
 */
final class StreamBufferPool {
    private final ProtectionDomain pd;
    private final boolean attached;
    private final ArrayDeque<StreamBuffers> free = new ArrayDeque<>();

    StreamBufferPool(Context context, ProtectionDomain pd) {
        this.pd = pd;
        this.attached = context.isAttached();
    }

    /** A free set, or a new one; throws IllegalStateException with a clear message when the pool has no room. */
    StreamBuffers take() {
        StreamBuffers b = free.pollFirst();
        return b != null ? b : StreamBuffers.allocate(pd, attached);
    }

    /** A released stream's set: kept for the next stream (attached) or freed (embedded). */
    void give(StreamBuffers b) {
        if (b.pooled()) {
            free.addFirst(b);
        } else {
            b.free();
        }
    }
}
