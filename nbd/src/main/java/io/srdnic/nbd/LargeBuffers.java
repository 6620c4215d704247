package io.srdnic.nbd;

import java.util.concurrent.Semaphore;

/**
 * The server's buffers for requests larger than a slot's own buffer (up to the maximum payload,
 * 32 MiB): a fixed number, shared by every connection, so that many clients writing at the
 * advertised maximum at once need that many buffers, not one each — memory is the maximum payload
 * times {@link ServerLimits#largeRequests}, whatever the clients do. A request waits for one (back
 * pressure on its client, in arrival order); each buffer is made on first use, grown when a larger
 * request needs it, and kept.
 */
final class LargeBuffers {
    private final Semaphore permits;
    private final RequestSlot.DataBuffer[] free;
    private int count;

    LargeBuffers(int buffers) {
        this.permits = new Semaphore(buffers, true);
        this.free = new RequestSlot.DataBuffer[buffers];
        this.count = buffers; // none made yet: each entry null until first used
    }

    /**
     * A buffer of at least {@code length} bytes, waiting for one to be free; null (and nothing
     * held) if direct memory is exhausted, for the request to be answered ENOMEM.
     */
    RequestSlot.DataBuffer take(int length, int maxPayload) throws InterruptedException {
        permits.acquire();
        RequestSlot.DataBuffer b;
        synchronized (this) {
            b = free[--count];
            free[count] = null;
        }
        if (b != null && b.capacity() >= length) {
            return b;
        }
        b = null; // the smaller one may go: the JVM collects it if direct memory is short
        try {
            return new RequestSlot.DataBuffer(Transmission.grown(length, maxPayload));
        } catch (OutOfMemoryError e) {
            give(null);
            return null;
        }
    }

    /** Gives a buffer back (null: an entry whose buffer could not be made). */
    void give(RequestSlot.DataBuffer b) {
        synchronized (this) {
            free[count++] = b;
        }
        permits.release();
    }
}
