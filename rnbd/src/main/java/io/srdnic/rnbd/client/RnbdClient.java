package io.srdnic.rnbd.client;

import io.srdnic.block.Errno;
import io.srdnic.block.Extents;
import io.srdnic.block.IoCompletion;
import io.srdnic.rnbd.protocol.BlockStatus;
import io.srdnic.rnbd.protocol.BlockStatusRsp;
import io.srdnic.rnbd.protocol.Close;
import io.srdnic.rnbd.protocol.Io;
import io.srdnic.rnbd.protocol.Open;
import io.srdnic.rnbd.protocol.OpenRsp;
import io.srdnic.rnbd.protocol.Rnbd;
import io.srdnic.rnbd.protocol.RnbdErrno;
import io.srdnic.rnbd.protocol.SessInfo;
import io.srdnic.rnbd.protocol.SessInfoRsp;
import io.srdnic.rtrs.client.IoCallback;
import io.srdnic.rtrs.client.PathState;
import io.srdnic.rtrs.client.Permit;
import io.srdnic.rtrs.client.RtrsClient;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * RNBD's client side (Linux's rnbd-clt) over one RTRS client session. Whenever the session has a
 * path again after having none, it says SESS_INFO and opens every device anew (the server forgot
 * them, or is told to by the SESS_INFO). Devices' operations come from any thread through a
 * bounded queue of pooled {@link BlockOp}s; everything else runs in {@link #poll}, on one thread.
 * With no path connected, queued and new operations fail with EIO at once.
 */
public final class RnbdClient implements IoCallback, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(RnbdClient.class.getName());
    private static final int KIND_SESS_INFO = 1;
    private static final int KIND_OPEN = 2;
    private static final int KIND_CLOSE = 3;
    private static final int KIND_IO = 4;
    private static final int KIND_BLOCK_STATUS = 5;
    private static final int OP_CLOSE = -1;
    /** Not an RNBD IO op: a BLOCK_STATUS message, queued like IO. */
    static final int OP_BLOCK_STATUS = -2;
    /** Extents per BLOCK_STATUS answer at most: as many as one NBD reply carries (the caller asks again for the rest). */
    private static final int STATUS_EXTENTS = 1024;

    private final RtrsClient rtrs;
    private final int poolSize;
    private final ArrayBlockingQueue<BlockOp> freeOps;
    private final ArrayBlockingQueue<BlockOp> incoming;
    private final ArrayDeque<BlockOp> continuing;
    private final ConcurrentLinkedQueue<RnbdDevice> toOpen = new ConcurrentLinkedQueue<>();
    private final List<RnbdDevice> devices = new ArrayList<>();
    private final IoStages stages = new IoStages();
    private final Arena arena = Arena.ofShared();
    private final MemorySegment header = arena.allocate(Open.LENGTH);
    private int[] kind = new int[0];
    private Object[] owner = new Object[0];
    private ByteBuffer[] views = new ByteBuffer[0];
    /** The session has said SESS_INFO and heard back since it last had a path. */
    private boolean up;
    private boolean sessInfoSent;
    private int sessInfoErrno;
    private int sessions;
    private volatile boolean closed;
    /** IOs RTRS refused to send, and IOs answered with an error (logged at powers of two). */
    private long ioRefused;
    private long ioFailed;
    /** Run after an operation is queued, on the caller's thread: wakes a poll loop that sleeps when idle. */
    private volatile Runnable onEnqueue = () -> { };

    private RnbdClient(RtrsClient rtrs, int poolSize) {
        this.rtrs = rtrs;
        this.poolSize = poolSize;
        this.freeOps = new ArrayBlockingQueue<>(poolSize);
        this.incoming = new ArrayBlockingQueue<>(poolSize);
        this.continuing = new ArrayDeque<>(poolSize);
        for (int i = 0; i < poolSize; i++) {
            freeOps.add(new BlockOp());
        }
    }

    /** An RNBD client on {@code rtrs} (connecting or connected), with room for {@code poolSize} operations queued or in flight. */
    public static RnbdClient over(RtrsClient rtrs, int poolSize) {
        return new RnbdClient(rtrs, poolSize);
    }

    public RtrsClient rtrs() {
        return rtrs;
    }

    /**
     * Opens {@code name} with {@code accessMode} (Rnbd.ACCESS_*): the device opens once the session
     * is up (see {@link RnbdDevice#state}).
     */
    public RnbdDevice open(String name, int accessMode) {
        RnbdDevice d = new RnbdDevice(this, name, accessMode);
        toOpen.add(d);
        return d;
    }

    /** Times the session said SESS_INFO and was answered: 1, plus one per recovery from losing every path. */
    public int sessions() {
        return sessions;
    }

    /** The errno of the last refused SESS_INFO, 0 if none. */
    public int sessInfoErrno() {
        return sessInfoErrno;
    }

    /** Whether the session is up: a path connected and SESS_INFO answered. */
    public boolean up() {
        return up;
    }

    void enqueue(RnbdDevice device, int op, int flags, long offset, long length, ByteBuffer buffer, IoCompletion done) {
        enqueue(device, op, flags, offset, length, buffer, null, done);
    }

    void enqueue(RnbdDevice device, int op, int flags, long offset, long length, Extents extents, IoCompletion done) {
        enqueue(device, op, flags, offset, length, null, extents, done);
    }

    private void enqueue(RnbdDevice device, int op, int flags, long offset, long length, ByteBuffer buffer, Extents extents,
        IoCompletion done) {
        if (closed) {
            done.complete(Errno.ESHUTDOWN);
            return;
        }
        BlockOp o;
        try {
            o = freeOps.take(); // back pressure: as many operations as the pool holds
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            done.complete(Errno.EIO);
            return;
        }
        o.set(device, op, flags, offset, length, buffer, done);
        o.extents = extents;
        o.enqueuedAt = System.nanoTime();
        incoming.add(o);
        onEnqueue.run();
    }

    void closeDevice(RnbdDevice d) {
        if (d.state == DeviceState.CLOSED) {
            return;
        }
        if (closed) {
            d.state = DeviceState.CLOSED;
            return;
        }
        enqueue(d, OP_CLOSE, 0, 0, 0, (ByteBuffer) null, error -> { });
    }

    /** {@code wake} runs on the device caller's thread after each queued operation (a poll loop that sleeps when idle wakes). */
    public void onEnqueue(Runnable wake) {
        this.onEnqueue = wake;
    }

    /** Where the client's IO spends its time (see {@link IoStages}); read from any thread. */
    public IoStages stages() {
        return stages;
    }

    /** Runs the RTRS session, then RNBD's: session setup, opens, queued operations. Returns the work done. */
    public int poll() {
        stages.polls++;
        int work = rtrs.poll();
        boolean anyPath = anyPath();
        if (!anyPath) {
            if (up || sessInfoSent) {
                up = false;
                sessInfoSent = false;
                for (RnbdDevice d : devices) {
                    if (d.state == DeviceState.OPEN || d.state == DeviceState.OPENING) {
                        d.state = DeviceState.PENDING; // to be opened again on the next session
                    }
                }
            }
            return work + failQueued();
        }
        if (kind.length != rtrs.queueDepth()) {
            kind = new int[rtrs.queueDepth()];
            owner = new Object[rtrs.queueDepth()];
            views = new ByteBuffer[rtrs.queueDepth()];
        }
        if (!up) {
            if (!sessInfoSent && sendSessInfo()) {
                work++;
            }
            return work;
        }
        RnbdDevice n;
        while ((n = toOpen.poll()) != null) {
            devices.add(n);
        }
        for (int i = 0; i < devices.size(); i++) {
            RnbdDevice d = devices.get(i);
            if (d.state == DeviceState.PENDING && sendOpen(d)) {
                work++;
            }
        }
        int moved = drain();
        work += moved;
        if (work > 0) {
            stages.busyPolls++;
            stages.submitted += moved;
        }
        return work;
    }

    private boolean anyPath() {
        for (int i = 0; i < rtrs.pathCount(); i++) {
            if (rtrs.state(i) == PathState.CONNECTED) {
                return true;
            }
        }
        return false;
    }

    /** Without a path nothing can go: every queued operation ends with EIO. */
    private int failQueued() {
        int n = 0;
        BlockOp o;
        while ((o = continuing.poll()) != null || (o = incoming.poll()) != null) {
            finish(o, Errno.EIO);
            n++;
        }
        return n;
    }

    private boolean sendSessInfo() {
        Permit p = rtrs.permit();
        if (p == null) {
            return false;
        }
        SessInfo.write(header, 0, Rnbd.VERSION_MAJOR);
        if (!send(p, true, SessInfo.LENGTH, SessInfoRsp.LENGTH, KIND_SESS_INFO, null)) {
            return false;
        }
        sessInfoSent = true;
        return true;
    }

    private boolean sendOpen(RnbdDevice d) {
        Permit p = rtrs.permit();
        if (p == null) {
            return false;
        }
        Open.write(header, 0, d.accessMode, d.name);
        if (!send(p, true, Open.LENGTH, OpenRsp.LENGTH, KIND_OPEN, d)) {
            return false;
        }
        d.state = DeviceState.OPENING;
        return true;
    }

    /** Submits the message in {@link #header}; false (permit given back) when the session refused it. */
    private boolean send(Permit p, boolean read, int headerLength, int dataLength, int k, Object o) {
        return submit(p, read, headerLength, dataLength, k, o) == 0;
    }

    /** As {@link #send}, returning RTRS's answer: 0, or the errno it refused with (the permit given back). */
    private int submit(Permit p, boolean read, int headerLength, int dataLength, int k, Object o) {
        kind[p.id()] = k;
        owner[p.id()] = o;
        int rc = read ? rtrs.read(p, header, 0, headerLength, dataLength, this) : rtrs.write(p, header, 0, headerLength, dataLength, this);
        if (rc != 0) {
            owner[p.id()] = null;
            rtrs.release(p);
        }
        return rc;
    }

    /** Moves queued operations onto free permits, a piece each; an operation whose device is not open waits, unless refused. */
    private int drain() {
        int n = 0;
        while (true) {
            BlockOp o = continuing.peek();
            boolean fromContinuing = o != null;
            if (o == null) {
                o = incoming.peek();
            }
            if (o == null) {
                return n;
            }
            DeviceState s = o.device.state;
            if (s == DeviceState.FAILED || s == DeviceState.CLOSED) {
                take(fromContinuing);
                finish(o, o.op == OP_CLOSE ? 0 : Errno.EIO);
                n++;
                continue;
            }
            if (s != DeviceState.OPEN) {
                return n; // opening (again): the queue waits for it
            }
            Permit p = rtrs.permit();
            if (p == null) {
                return n;
            }
            take(fromContinuing);
            n++;
            if (o.op == OP_CLOSE) {
                Close.write(header, 0, o.device.id);
                o.device.state = DeviceState.CLOSED;
                if (!send(p, false, Close.LENGTH, 0, KIND_CLOSE, o)) {
                    finish(o, 0);
                }
                continue;
            }
            int rc;
            if (o.op == OP_BLOCK_STATUS) {
                BlockStatus.write(header, 0, o.device.id, o.offset >> Rnbd.SECTOR_SHIFT, (int) o.length);
                int answer = (int) Math.min(rtrs.maxIoSize(), BlockStatusRsp.HEADER + (long) BlockStatusRsp.EXTENT * STATUS_EXTENTS);
                rc = submit(p, true, BlockStatus.LENGTH, answer, KIND_BLOCK_STATUS, o);
            } else {
                rc = submitPiece(p, o);
            }
            if (rc == RnbdErrno.EAGAIN) {
                continuing.addFirst(o); // every send queue full for now: first in line again, after the next poll
                return n;
            }
            if (rc != 0) {
                refusedIo(o, rc);
                finish(o, Errno.EIO);
            }
        }
    }

    private void take(boolean fromContinuing) {
        if (fromContinuing) {
            continuing.poll();
        } else {
            incoming.poll();
        }
    }

    /** Sends the operation's next piece; returns RTRS's answer (on EAGAIN the piece is as it was, to be sent again). */
    private int submitPiece(Permit p, BlockOp o) {
        boolean data = o.op == Rnbd.OP_READ || o.op == Rnbd.OP_WRITE;
        long left = o.length - o.progress;
        long max = data ? rtrs.maxIoSize() & ~(Rnbd.SECTOR_SIZE - 1L)
            : (long) Math.max(1, o.device.geometry.maxDiscardSectors()) << Rnbd.SECTOR_SHIFT;
        int piece = (int) Math.min(left, Math.min(max, 1L << 30));
        o.piece = piece;
        Io.write(header, 0, o.device.id, (o.offset + o.progress) >> Rnbd.SECTOR_SHIFT, o.op | o.flags, piece);
        o.submittedAt = System.nanoTime();
        if (o.progress == 0) {
            stages.queueNanos += o.submittedAt - o.enqueuedAt;
        }
        int from = o.buffer == null ? 0 : o.buffer.position();
        if (o.op == Rnbd.OP_WRITE) {
            ByteBuffer v = view(p);
            v.clear();
            int limit = o.buffer.limit();
            o.buffer.limit(from + piece);
            v.put(o.buffer);
            o.buffer.limit(limit);
        }
        int rc = submit(p, o.op == Rnbd.OP_READ, Io.LENGTH, data ? piece : 0, KIND_IO, o);
        if (rc != 0 && o.op == Rnbd.OP_WRITE) {
            o.buffer.position(from); // not sent: the piece goes again from the same bytes
        }
        return rc;
    }

    /**
     * An IO RTRS refused (no path, or too big): counted, and logged the first time and then at
     * every power of two, so a failed IO is never silent and a storm of them is a few lines.
     */
    private void refusedIo(BlockOp o, int rc) {
        ioRefused++;
        if (Long.bitCount(ioRefused) == 1) {
            LOG.log(System.Logger.Level.WARNING, "rnbd client: IO (op " + o.op + ", offset " + (o.offset + o.progress) + ") refused by RTRS"
                + " with errno " + rc + ": answered EIO (" + ioRefused + " so far)");
        }
    }

    private ByteBuffer view(Permit p) {
        ByteBuffer v = views[p.id()];
        if (v == null) {
            v = p.data().asByteBuffer(); // once per permit
            views[p.id()] = v;
        }
        return v;
    }

    @Override
    public void done(Permit p, int errno) {
        int k = kind[p.id()];
        Object o = owner[p.id()];
        owner[p.id()] = null;
        switch (k) {
            case KIND_IO -> ioDone(p, (BlockOp) o, errno);
            case KIND_SESS_INFO -> {
                if (errno == 0 && SessInfoRsp.check(p.data(), 0, p.dataLength())
                    && SessInfoRsp.version(p.data(), 0) == Rnbd.VERSION_MAJOR) {
                    up = true;
                    sessions++;
                } else {
                    sessInfoErrno = errno != 0 ? errno : RnbdErrno.EPROTONOSUPPORT;
                    sessInfoSent = false; // try again on the next poll
                }
            }
            case KIND_OPEN -> opened((RnbdDevice) o, p, errno);
            case KIND_CLOSE -> finish((BlockOp) o, 0);
            case KIND_BLOCK_STATUS -> blockStatusDone(p, (BlockOp) o, errno);
            default -> { }
        }
        rtrs.release(p);
    }

    private void opened(RnbdDevice d, Permit p, int errno) {
        if (errno == 0 && !OpenRsp.check(p.data(), 0, p.dataLength())) {
            errno = RnbdErrno.EINVAL;
        }
        if (errno == RnbdErrno.ECONNABORTED) {
            d.state = DeviceState.PENDING; // the session went down under it: opened again when it returns
            return;
        }
        if (errno != 0) {
            d.errno = errno;
            d.state = DeviceState.FAILED;
            return;
        }
        OpenRsp.Geometry g = OpenRsp.geometry(p.data(), 0);
        if (d.geometry != null && d.geometry.sectors() != g.sectors()) {
            d.errno = RnbdErrno.EIO; // not the device it was before the reconnect
            d.state = DeviceState.FAILED;
            return;
        }
        d.geometry = g;
        d.id = OpenRsp.deviceId(p.data(), 0);
        d.opens++;
        d.state = DeviceState.OPEN;
    }

    private void ioDone(Permit p, BlockOp o, int errno) {
        stages.rtrsNanos += System.nanoTime() - o.submittedAt;
        if (errno == RnbdErrno.EAGAIN) { // its path failed and no other path's send queue took it: the piece goes again
            if (o.op == Rnbd.OP_WRITE) {
                o.buffer.position(o.buffer.position() - o.piece);
            }
            continuing.addFirst(o);
            return;
        }
        if (errno != 0) {
            ioFailed++;
            if (Long.bitCount(ioFailed) == 1) {
                LOG.log(System.Logger.Level.WARNING, "rnbd client: IO (op " + o.op + ", offset " + (o.offset + o.progress) + ") failed"
                    + " with errno " + errno + (errno == RnbdErrno.ECONNABORTED ? " (no path left for it)" : " (the server's answer)")
                    + " (" + ioFailed + " so far)");
            }
            finish(o, nbdErrno(errno));
            return;
        }
        if (o.op == Rnbd.OP_READ) {
            ByteBuffer v = view(p);
            v.clear().limit(o.piece);
            o.buffer.put(v);
        }
        o.progress += o.piece;
        if (o.progress < o.length) {
            continuing.addLast(o);
        } else {
            long t = System.nanoTime();
            finish(o, 0);
            stages.completeNanos += System.nanoTime() - t;
            stages.ops++;
        }
    }

    /**
     * Hands a BLOCK_STATUS answer's extents on, after checking that they are what was asked: each
     * non-empty, of known states, together inside the range. A server that refused the message as
     * unknown (a Linux one: EINVAL; or EOPNOTSUPP) gets the range called allocated, now and from
     * then on for the device.
     */
    private void blockStatusDone(Permit p, BlockOp o, int errno) {
        if (errno == RnbdErrno.EAGAIN) {
            continuing.addFirst(o); // its path failed and no other path's send queue took it: asked again
            return;
        }
        if (errno == RnbdErrno.EINVAL || errno == RnbdErrno.EOPNOTSUPP) {
            o.device.noAllocationMap = true;
            o.extents.extent(o.length, 0);
            finish(o, 0);
            return;
        }
        if (errno != 0) {
            finish(o, nbdErrno(errno));
            return;
        }
        MemorySegment answer = p.data();
        if (!BlockStatusRsp.check(answer, 0, p.dataLength())) {
            finish(o, Errno.EIO);
            return;
        }
        int count = (int) BlockStatusRsp.count(answer, 0);
        long covered = 0;
        for (int i = 0; i < count; i++) {
            long n = BlockStatusRsp.length(answer, 0, i);
            covered += n;
            if (n == 0 || covered > o.length || (BlockStatusRsp.state(answer, 0, i) & ~BlockStatusRsp.STATES) != 0) {
                finish(o, Errno.EIO);
                return;
            }
        }
        for (int i = 0; i < count && o.extents.extent(BlockStatusRsp.length(answer, 0, i), BlockStatusRsp.state(answer, 0, i)); i++) {
            // each extent handed on until the caller wants no more
        }
        finish(o, 0);
    }

    /** NBD allows a handful of errno values on its wire; the rest say EIO. */
    static int nbdErrno(int errno) {
        return switch (errno) {
            case Errno.EPERM, Errno.EIO, Errno.ENOMEM, Errno.EINVAL, Errno.ENOSPC, Errno.EOVERFLOW -> errno;
            case RnbdErrno.EOPNOTSUPP -> Errno.ENOTSUP;
            default -> Errno.EIO;
        };
    }

    private void finish(BlockOp o, int errno) {
        IoCompletion done = o.done;
        o.set(null, 0, 0, 0, 0, null, null);
        freeOps.add(o);
        done.complete(errno);
    }

    /** Operations queued or in flight, at most. */
    public int poolSize() {
        return poolSize;
    }

    @Override
    public void close() {
        closed = true;
        rtrs.close();
        arena.close();
    }
}
