package io.srdnic.netty;

import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoOps;
import io.netty.channel.IoRegistration;
import io.netty.util.concurrent.ThreadAwareExecutor;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.ProtectionDomain;
import io.srdnic.verbs.ThreadingMode;
import io.srdnic.verbs.cm.CmEvent;
import io.srdnic.verbs.cm.CmId;
import io.srdnic.verbs.cm.ConnectionManager;
import io.srdnic.verbs.cm.EventChannel;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * Netty 4.2's I/O handler for srdnic: one event loop thread drives one {@link Context} opened in
 * {@link ThreadingMode#INVOKER} mode. The loop opens the context itself, on its own thread, when it
 * starts (a DPDK port's queues and buffers belong to the thread that made them), and closes it when
 * the loop shuts down. Each pass runs the transport's duty cycle, the CM (one event
 * channel for every id of this loop's channels) and each registered channel's completions, and
 * there is no other thread. The CM runs on the cycle's results (no cycle of its own), as the
 * dataplane process runs it. Attached to a {@code srdnic dataplane} (a DEDICATED context: the
 * dataplane runs the cycle) the loop runs the rest of the pass the same.
 * <p>
 * When a pass finds nothing to do, {@link IdleBackoff} spins, yields, then parks for a bounded
 * time ({@link #DEFAULT_MAX_PARK_NANOS}): no core is burnt by an idle loop.
 */
public final class SrdnicIoHandler implements IoHandler {
    /** The longest an idle loop parks before it looks at the link again. */
    public static final long DEFAULT_MAX_PARK_NANOS = 1_000_000;

    private final ThreadAwareExecutor executor;
    private final Supplier<Context> opener;
    private Context context;
    private ProtectionDomain pd;
    /** The streams' registered buffers: reused across streams on an attached context, whose pool never takes memory back. */
    private StreamBufferPool streamBuffers;
    /** The context's CM, run every pass whether or not an id exists: a request to a port nobody listens on is refused at once. */
    private ConnectionManager cm;
    private final EventChannel events = new EventChannel(256);
    private final IdleBackoff backoff;
    private final List<SrdnicIoHandle> handles = new ArrayList<>();
    private final Map<CmId, SrdnicIoHandle> owners = new IdentityHashMap<>();
    /** Streams of closed channels still sending what was written before the close. */
    private final List<RcStream> lingering = new ArrayList<>();
    private volatile Thread thread;
    private RuntimeException openFailure;

    private SrdnicIoHandler(ThreadAwareExecutor executor, Supplier<Context> opener, long maxParkNanos) {
        this.executor = Objects.requireNonNull(executor, "executor");
        this.opener = Objects.requireNonNull(opener, "opener");
        this.backoff = new IdleBackoff(maxParkNanos);
    }

    /** A factory of handlers, each opening its context with {@code opener} on its loop's thread (one loop per context). */
    public static IoHandlerFactory newFactory(Supplier<Context> opener) {
        return newFactory(opener, DEFAULT_MAX_PARK_NANOS);
    }

    public static IoHandlerFactory newFactory(Supplier<Context> opener, long maxParkNanos) {
        return executor -> new SrdnicIoHandler(executor, opener, maxParkNanos);
    }

    /**
     * Opens the context on the loop's thread. A failure is kept for {@link #checkOpen} (thrown here,
     * it would end the loop's thread with nobody told).
     */
    @Override
    public void initialize() {
        try {
            Context c = opener.get();
            if (c.threadingMode() != ThreadingMode.INVOKER && !c.isAttached()) { // attached: the dataplane process runs the cycle
                c.close();
                throw new IllegalArgumentException("a srdnic event loop drives its context itself: open the context in INVOKER mode"
                    + " (or attach it to a dataplane), was " + c.threadingMode());
            }
            context = c;
            pd = c.allocPd();
            cm = ConnectionManager.of(c);
            streamBuffers = new StreamBufferPool(c, pd);
        } catch (RuntimeException e) {
            openFailure = e;
        }
    }

    /** Throws what opening the context threw; on the loop's thread. */
    void checkOpen() {
        if (openFailure != null) {
            throw openFailure;
        }
    }

    Context context() {
        return context;
    }

    ProtectionDomain pd() {
        return pd;
    }

    StreamBufferPool streamBuffers() {
        return streamBuffers;
    }

    EventChannel events() {
        return events;
    }

    /** The CM events of {@code id} go to {@code handle} from now on. */
    void own(CmId id, SrdnicIoHandle handle) {
        owners.put(id, handle);
    }

    void disown(CmId id) {
        owners.remove(id);
    }

    /** Keeps {@code stream} running after its channel closed until what it had posted is sent, then releases it. */
    void linger(RcStream stream) {
        lingering.add(stream);
    }

    @Override
    public int run(IoHandlerContext loop) {
        if (thread == null) {
            thread = Thread.currentThread();
        }
        if (context == null) {
            if (loop.canBlock()) {
                LockSupport.parkNanos(this, loop.delayNanos(System.nanoTime()));
            }
            return 0;
        }
        int work = context.progress();
        work += cm.pollCompleted();
        CmEvent e;
        while ((e = events.pollCompleted()) != null) {
            work++;
            SrdnicIoHandle owner = owners.get(e.listenId() != null ? e.listenId() : e.id());
            try {
                if (owner != null) {
                    owner.onCmEvent(e);
                }
            } finally {
                events.ack(e);
            }
        }
        int handled = 0;
        for (int i = 0; i < handles.size(); i++) {
            int n = handles.get(i).poll();
            if (n > 0) {
                handled++;
                work += n;
            }
        }
        for (int i = lingering.size() - 1; i >= 0; i--) {
            RcStream s = lingering.get(i);
            work += s.pollLingering();
            if (s.released()) {
                lingering.remove(i);
            }
        }
        if (work > 0) {
            backoff.reset();
        } else if (loop.canBlock()) {
            backoff.idle(this, loop.delayNanos(System.nanoTime()));
        }
        if (loop.shouldReportActiveIoTime()) {
            loop.reportActiveIoTime(0);
        }
        return handled;
    }

    @Override
    public void wakeup() {
        if (!executor.isExecutorThread(Thread.currentThread())) {
            Thread t = thread;
            if (t != null) {
                LockSupport.unpark(t);
            }
        }
    }

    @Override
    public void prepareToDestroy() {
        for (SrdnicIoHandle h : new ArrayList<>(handles)) {
            try {
                h.close();
            } catch (Exception ignored) {
                // closing anyway: the loop is going away
            }
        }
        handles.clear();
    }

    @Override
    public void destroy() {
        for (RcStream s : lingering) {
            s.release();
        }
        lingering.clear();
        events.close();
        if (context != null) {
            context.close();
        }
    }

    @Override
    public IoRegistration register(IoHandle handle) {
        checkOpen();
        if (!(handle instanceof SrdnicIoHandle h)) {
            throw new IllegalArgumentException("a srdnic event loop takes srdnic channels only, not " + handle.getClass().getName());
        }
        if (handle instanceof SrdnicSocketChannel.Unsafe u && u.handler() != null && u.handler() != this) {
            throw new IllegalStateException("an accepted srdnic channel lives on the context of its server channel: register it on"
                + " the same event loop (give the server one SrdnicEventLoopGroup as both boss and worker group)");
        }
        handles.add(h);
        h.registered();
        return new Registration(h);
    }

    @Override
    public boolean isCompatible(Class<? extends IoHandle> handleType) {
        return SrdnicIoHandle.class.isAssignableFrom(handleType);
    }

    /** A channel's place in this loop; its attachment is the handler, which the channel reaches its context through. */
    private final class Registration implements IoRegistration {
        private final AtomicBoolean cancelled = new AtomicBoolean();
        private final SrdnicIoHandle handle;

        Registration(SrdnicIoHandle handle) {
            this.handle = handle;
        }

        @Override
        @SuppressWarnings("unchecked")
        public <T> T attachment() {
            return (T) SrdnicIoHandler.this;
        }

        @Override
        public long submit(IoOps ops) {
            throw new UnsupportedOperationException("srdnic channels are polled every pass: there is nothing to submit");
        }

        @Override
        public boolean isValid() {
            return !cancelled.get();
        }

        @Override
        public boolean cancel() {
            if (!cancelled.compareAndSet(false, true)) {
                return false;
            }
            if (executor.isExecutorThread(Thread.currentThread())) {
                remove();
            } else {
                executor.execute(this::remove);
            }
            return true;
        }

        private void remove() {
            if (handles.remove(handle)) {
                handle.unregistered();
            }
        }
    }
}
