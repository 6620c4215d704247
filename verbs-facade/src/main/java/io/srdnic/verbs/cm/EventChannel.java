package io.srdnic.verbs.cm;

import io.srdnic.verbs.VerbsException;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Where a set of CM ids report their events (rdma_event_channel). The CM works when the application
 * asks it to: {@link #poll} and {@link #await} run the connection manager of every context the
 * channel's ids are on (read its messages, retransmit what timed out) and hand out the oldest event.
 * Events come from a pool made here and go back to it with {@link #ack}; the pool grows only while
 * the application holds more events unacked than it has.
 */
public final class EventChannel implements AutoCloseable {
    private CmEvent[] free;
    private int freeCount;
    private CmEvent[] queue;
    private int head;
    private int size;
    private final List<ConnectionManager> managers = new CopyOnWriteArrayList<>();
    private boolean closed;

    public EventChannel(int poolSize) {
        if (poolSize < 1) {
            throw new VerbsException("an event channel needs a pool of at least one event");
        }
        free = new CmEvent[poolSize];
        queue = new CmEvent[poolSize];
        for (int i = 0; i < poolSize; i++) {
            free[freeCount++] = new CmEvent();
        }
    }

    public EventChannel() {
        this(64);
    }

    /** The oldest event, or null; runs the CM of every context this channel's ids are on first. */
    public CmEvent poll() {
        checkOpen();
        for (int i = 0; i < managers.size(); i++) {
            managers.get(i).progress();
        }
        return take();
    }

    /**
     * The oldest event already queued, or null, running no CM: for the dataplane's lcore, which runs
     * its ports' CMs itself ({@link ConnectionManager#pollCompleted}) before it hands their events on.
     */
    public CmEvent pollCompleted() {
        checkOpen();
        return take();
    }

    /** Waits up to {@code timeout} for an event (on the clock of the first context used: virtual on a simulator); null if none came. */
    public CmEvent await(long timeout, TimeUnit unit) {
        long start = now();
        long wait = unit.toNanos(timeout);
        int idle = 0;
        CmEvent e;
        while ((e = poll()) == null && now() - start < wait) {
            if (managers.isEmpty() || !managers.get(0).invoker()) {
                // the dataplane runs by itself: give it the CPU rather than spin against it
                if (++idle > 100) {
                    LockSupport.parkNanos(20_000);
                } else {
                    Thread.onSpinWait();
                }
            }
        }
        return e;
    }

    /** Gives an event back (rdma_ack_cm_event): its private data is no longer to be read. */
    public synchronized void ack(CmEvent event) {
        if (!event.lent) {
            throw new VerbsException("event acked twice, or not from this channel");
        }
        event.lent = false;
        if (freeCount == free.length) {
            free = Arrays.copyOf(free, free.length * 2);
        }
        free[freeCount++] = event;
    }

    /** Events waiting to be polled. */
    public synchronized int pending() {
        return size;
    }

    private synchronized CmEvent take() {
        if (size == 0) {
            return null;
        }
        CmEvent e = queue[head];
        queue[head] = null;
        head = (head + 1) % queue.length;
        size--;
        e.lent = true;
        return e;
    }

    /** A pooled event to fill in and {@link #publish}. */
    synchronized CmEvent obtain(CmEventType type, CmId id) {
        CmEvent e = freeCount > 0 ? free[--freeCount] : new CmEvent();
        e.type = type;
        e.id = id;
        e.listenId = null;
        e.status = 0;
        e.privateDataLength = 0;
        e.responderResources = 0;
        e.initiatorDepth = 0;
        e.retryCount = 0;
        e.rnrRetryCount = 0;
        return e;
    }

    synchronized void publish(CmEvent e) {
        if (size == queue.length) {
            CmEvent[] bigger = new CmEvent[queue.length * 2];
            for (int i = 0; i < size; i++) {
                bigger[i] = queue[(head + i) % queue.length];
            }
            queue = bigger;
            head = 0;
        }
        queue[(head + size) % queue.length] = e;
        size++;
    }

    void use(ConnectionManager manager) {
        ((CopyOnWriteArrayList<ConnectionManager>) managers).addIfAbsent(manager);
    }

    private long now() {
        return managers.isEmpty() ? System.nanoTime() : managers.get(0).now();
    }

    private void checkOpen() {
        if (closed) {
            throw new VerbsException("event channel is closed");
        }
    }

    /** Closes the channel (rdma_destroy_event_channel): its ids should be destroyed first. */
    @Override
    public void close() {
        closed = true;
    }
}
