package io.srdnic.nbd;

import java.nio.ByteBuffer;
import java.util.concurrent.locks.LockSupport;

/**
 * The writer of one connection's replies that devices complete on threads of their own (the RNBD
 * device completes on the gateway's single RTRS/RNBD poll thread, which serves every client): the
 * completing thread only puts the slot in this connection's queue and wakes the writer, so it never
 * waits on a client's socket, and a client that stops reading stalls nobody but itself. The writer
 * takes whatever is queued and sends it in one gathering write, then frees those slots.
 *
 * <p>The queue is bounded by construction: a slot is in it at most once, so it holds at most the
 * connection's slots. Adding takes a monitor for a few instructions and allocates nothing.
 */
final class ReplyWriter implements Runnable {
    private final Transmission owner;
    private final WireWriter out;
    private final RequestSlot[] ring;
    private int head;
    private int size;
    private final ByteBuffer[] batch;
    private final RequestSlot[] taken;
    private final Thread thread;
    private volatile boolean parked;
    private volatile boolean stopping;

    ReplyWriter(Transmission owner, WireWriter out, int slots, String name) {
        this.owner = owner;
        this.out = out;
        this.ring = new RequestSlot[slots];
        this.batch = new ByteBuffer[slots];
        this.taken = new RequestSlot[slots];
        this.thread = Thread.ofPlatform().daemon().name(name).unstarted(this);
    }

    void start() {
        thread.start();
    }

    /** Queues a completed slot's reply (in {@link RequestSlot#outgoing}); never blocks. */
    void add(RequestSlot slot) {
        synchronized (this) {
            if (size == ring.length) {
                throw new IllegalStateException("reply queue over its slots: a slot completed twice");
            }
            ring[(head + size++) % ring.length] = slot;
        }
        if (parked) {
            LockSupport.unpark(thread);
        }
    }

    private synchronized int drain() {
        int n = size;
        for (int i = 0; i < n; i++) {
            taken[i] = ring[head];
            ring[head] = null;
            head = (head + 1) % ring.length;
        }
        size = 0;
        return n;
    }

    private synchronized boolean empty() {
        return size == 0;
    }

    @Override
    public void run() {
        while (true) {
            int n = drain();
            if (n > 0) {
                for (int i = 0; i < n; i++) {
                    batch[i] = taken[i].outgoing;
                }
                if (!out.broken()) {
                    out.write(batch, n);
                }
                for (int i = 0; i < n; i++) {
                    batch[i] = null;
                    owner.release(taken[i]);
                    taken[i] = null;
                }
                continue;
            }
            if (stopping) {
                return;
            }
            parked = true;
            if (empty() && !stopping) {
                LockSupport.park(this);
            }
            parked = false;
        }
    }

    /** Ends the writer once what is queued is written; the connection has nothing in flight by then. */
    void stop() throws InterruptedException {
        stopping = true;
        LockSupport.unpark(thread);
        thread.join();
    }
}
