package io.srdnic.rtrs.client;

import io.srdnic.rtrs.protocol.Errno;
import io.srdnic.rtrs.protocol.InfoReq;
import io.srdnic.rtrs.protocol.ReadMsg;
import io.srdnic.rtrs.protocol.Rtrs;
import io.srdnic.rtrs.protocol.WriteMsg;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * An RTRS client session (Linux's rtrs_clt_sess): a name and uuid, paths to one server, permits
 * shared by all paths. The session is connected when every requested path is. IO:
 * <pre>
 * Permit p = session.permit();              // null: none free (or not connected yet)
 * p.data().copyFrom(...);                    // a write's data
 * session.write(p, header, 0, headerLength, dataLength, callback);
 * // ... session.poll() until callback.done(p, errno); then session.release(p)
 * </pre>
 * An IO on a path that fails is re-issued on a healthy path with the same permit; it fails (with
 * ECONNABORTED) only when no path is left. Everything runs in {@link #poll}, from one thread; the
 * hot path (submit, response, failover) allocates nothing.
 */
public final class RtrsClient implements AutoCloseable {
    final ClientConfig config;
    final long uuidHi;
    final long uuidLo;
    final byte[] nameBytes;
    private final List<ClientPath> paths = new ArrayList<>();
    private final Arena arena = Arena.ofShared();
    int queueDepth;
    int chunkSize;
    int maxIoSize;
    private int maxHdrSize;
    MemorySegment staging;
    private Permit[] permits = new Permit[0];
    private int[] free = new int[0];
    private int freeCount;
    private int roundRobin;

    private RtrsClient(ClientConfig config) {
        this.config = config;
        this.uuidHi = config.sessionUuid.getMostSignificantBits();
        this.uuidLo = config.sessionUuid.getLeastSignificantBits();
        this.nameBytes = config.sessionName.getBytes(StandardCharsets.US_ASCII);
        if (nameBytes.length == 0 || nameBytes.length >= InfoReq.NAME_MAX
            || config.sessionName.indexOf('/') >= 0 || config.sessionName.indexOf('.') >= 0) {
            throw new IllegalArgumentException("a session name is 1..254 ASCII bytes without '/' or '.': " + config.sessionName);
        }
    }

    /** A session with a path to each address, connecting (see {@link #connected}, driven by {@link #poll}). */
    public static RtrsClient open(ClientConfig config, List<PathAddress> addresses) {
        if (addresses.isEmpty() || addresses.size() > Rtrs.MAX_PATHS) {
            throw new IllegalArgumentException("a session has 1.." + Rtrs.MAX_PATHS + " paths, asked " + addresses.size());
        }
        RtrsClient c = new RtrsClient(config);
        for (PathAddress a : addresses) {
            c.addPath(a);
        }
        return c;
    }

    /** Adds a path at run time (Linux's add_path); returns its index. */
    public int addPath(PathAddress address) {
        if (paths.size() >= Rtrs.MAX_PATHS) {
            throw new IllegalStateException("a session has at most " + Rtrs.MAX_PATHS + " paths");
        }
        ClientPath p = new ClientPath(this, paths.size(), address, UUID.randomUUID());
        paths.add(p);
        p.connect();
        return paths.size() - 1;
    }

    /** Removes path {@code i} (Linux's remove_path): its IO fails over first. The index stays, CLOSED. */
    public void removePath(int i) {
        ClientPath p = paths.get(i);
        p.failed("removed");
        p.close();
        p.log(System.Logger.Level.INFO, "closed");
    }

    /** Runs every path: CM events, completions, heartbeats, reconnects. Returns the work done. */
    public int poll() {
        int work = 0;
        for (int i = 0; i < paths.size(); i++) {
            work += paths.get(i).poll();
        }
        return work;
    }

    /** Every path that was asked for is connected (removed ones aside). */
    public boolean connected() {
        for (ClientPath p : paths) {
            if (p.state != PathState.CONNECTED && p.state != PathState.CLOSED) {
                return false;
            }
        }
        return true;
    }

    boolean anyConnected() {
        for (int i = 0; i < paths.size(); i++) { // no iterator: submit calls this per IO
            if (paths.get(i).state == PathState.CONNECTED) {
                return true;
            }
        }
        return false;
    }

    public int pathCount() {
        return paths.size();
    }

    public PathState state(int path) {
        return paths.get(path).state;
    }

    public PathStats stats(int path) {
        return paths.get(path).stats;
    }

    /** Path {@code path}'s stats as Linux's sysfs names them, and its state. */
    public Map<String, Long> statsSnapshot(int path) {
        return paths.get(path).stats.snapshot();
    }

    /** The errno the server gave when it last refused one of this path's connections (0: none). */
    public int lastRejectErrno(int path) {
        return paths.get(path).lastRejectErrno;
    }

    public int queueDepth() {
        return queueDepth;
    }

    public int maxIoSize() {
        return maxIoSize;
    }

    /** The biggest user header an IO may carry. */
    public int maxHeaderSize() {
        return maxHdrSize - ReadMsg.length(1);
    }

    /** A free permit, or null (none free, or the session has not connected yet). */
    public Permit permit() {
        if (freeCount == 0) {
            return null;
        }
        Permit p = permits[free[--freeCount]];
        p.taken = true;
        return p;
    }

    /** Gives {@code p} back; its IO must be over. */
    public void release(Permit p) {
        if (!p.taken || p.inflight) {
            throw new IllegalStateException("permit " + p.id + (p.inflight ? " has an IO in flight" : " is not taken"));
        }
        p.taken = false;
        free[freeCount++] = p.id;
    }

    /**
     * Writes {@code dataLength} bytes of {@code p.data()} with the user header
     * {@code header[offset, offset + headerLength)}; {@code callback} tells the server's answer.
     * Returns 0, EMSGSIZE (too big), ECONNABORTED (no path connected), or EAGAIN (every connected
     * path's send queue is full for now: a request's send work request stays in the queue until
     * its RC ACK comes, which can be after the server's answer freed the permit); on any of them
     * the callback is not called and nothing was sent.
     */
    public int write(Permit p, MemorySegment header, long offset, int headerLength, int dataLength, IoCallback callback) {
        return submit(p, false, header, offset, headerLength, dataLength, callback);
    }

    /** Reads up to {@code dataLength} bytes into {@code p.data()}, as the server answers the user header. Returns as {@link #write}. */
    public int read(Permit p, MemorySegment header, long offset, int headerLength, int dataLength, IoCallback callback) {
        return submit(p, true, header, offset, headerLength, dataLength, callback);
    }

    private int submit(Permit p, boolean read, MemorySegment header, long offset, int headerLength, int dataLength, IoCallback callback) {
        if (!p.taken || p.inflight) {
            throw new IllegalStateException("permit " + p.id + (p.inflight ? " has an IO in flight" : " is not taken"));
        }
        int msg = read ? ReadMsg.length(1) : WriteMsg.LENGTH;
        if (dataLength < 0 || dataLength > maxIoSize || headerLength < 0 || headerLength + msg > maxHdrSize || (read && dataLength == 0)) {
            return Errno.EMSGSIZE;
        }
        if (!anyConnected()) {
            return Errno.ECONNABORTED;
        }
        p.read = read;
        p.headerLength = headerLength;
        p.dataLength = dataLength;
        p.callback = callback;
        long at = read ? p.offset + maxIoSize : p.offset + dataLength;
        MemorySegment.copy(header, offset, staging, at, headerLength);
        p.inflight = true;
        if (post(p, null) == null) {
            p.inflight = false;
            return anyConnected() ? Errno.EAGAIN : Errno.ECONNABORTED;
        }
        return 0;
    }

    /**
     * Posts {@code p} on the path the policy picks among the connected ones ({@code not} aside) and,
     * if that path's send queue refuses it, on every other connected path in turn, as Linux's
     * path iterator does for a request and its failover. Returns the path that took it, or null.
     */
    private ClientPath post(Permit p, ClientPath not) {
        ClientPath first = choose(not);
        if (first == null) {
            return null;
        }
        if (first.post(p)) {
            return first;
        }
        for (int i = 0; i < paths.size(); i++) {
            ClientPath q = paths.get(i);
            if (q != not && q != first && q.state == PathState.CONNECTED && q.post(p)) {
                return q;
            }
        }
        return null;
    }

    /** A path by the session's mp_policy among the connected ones, {@code not} aside; null if none. */
    private ClientPath choose(ClientPath not) {
        ClientPath best = null;
        int n = paths.size();
        for (int k = 0; k < n; k++) {
            int i = config.policy == MpPolicy.ROUND_ROBIN ? (roundRobin + k) % n : k;
            ClientPath p = paths.get(i);
            if (p == not || p.state != PathState.CONNECTED) {
                continue;
            }
            if (config.policy == MpPolicy.ROUND_ROBIN) {
                roundRobin = i + 1;
                return p;
            }
            if (best == null || (config.policy == MpPolicy.MIN_INFLIGHT ? p.stats.inflight < best.stats.inflight
                : p.stats.latencyNanos < best.stats.latencyNanos)) {
                best = p;
            }
        }
        return best;
    }

    /** An IO_RSP for permit {@code id} came on {@code path}. */
    void response(ClientPath path, int id, int errno) {
        if (id >= permits.length) {
            return;
        }
        Permit p = permits[id];
        if (!p.inflight || p.path != path) {
            return; // not this path's IO (any more): never complete twice
        }
        p.inflight = false;
        path.stats.inflight--;
        if (p.read) {
            path.stats.reads++;
            path.stats.readBytes += p.dataLength;
        } else {
            path.stats.writes++;
            path.stats.writeBytes += p.dataLength;
        }
        p.callback.done(p, errno);
    }

    /** The first CON_RSP fixes the session's geometry; later ones must agree. Allocates the permits once. */
    boolean geometry(int depth, int maxIo, int maxHdr) {
        if (queueDepth != 0) {
            return depth == queueDepth && maxIo + maxHdr == chunkSize;
        }
        if (depth < 1 || maxIo < 1 || maxHdr < ReadMsg.length(1) || (long) maxIo + maxHdr > Integer.MAX_VALUE) {
            return false;
        }
        queueDepth = depth;
        maxIoSize = maxIo;
        maxHdrSize = maxHdr;
        chunkSize = maxIo + maxHdr;
        staging = arena.allocate((long) depth * chunkSize, 4096);
        permits = new Permit[depth];
        free = new int[depth];
        for (int i = depth - 1; i >= 0; i--) {
            long off = (long) i * chunkSize;
            permits[i] = new Permit(i, staging.asSlice(off, maxIo), off);
            free[freeCount++] = i;
        }
        return true;
    }

    /**
     * {@code failed}'s IO goes to another connected path, the same permit; with none left, it fails
     * with ECONNABORTED; when paths are connected but every send queue is full for now, with EAGAIN
     * (nothing of it is on a live path: the user may send it again).
     */
    void pathDown(ClientPath failed) {
        int[] movedTo = null; // per path, for the log line: a path going down is the control path, not the IO path
        int aborted = 0;
        int full = 0;
        for (Permit p : permits) {
            if (!p.inflight || p.path != failed) {
                continue;
            }
            ClientPath alive = post(p, failed);
            if (alive != null) {
                alive.stats.failovers++;
                if (movedTo == null) {
                    movedTo = new int[paths.size()];
                }
                movedTo[alive.index]++;
            } else {
                p.inflight = false;
                p.path = null;
                boolean connected = anyConnected();
                aborted += connected ? 0 : 1;
                full += connected ? 1 : 0;
                p.callback.done(p, connected ? Errno.EAGAIN : Errno.ECONNABORTED);
            }
        }
        for (int i = 0; movedTo != null && i < movedTo.length; i++) {
            if (movedTo[i] > 0) {
                failed.log(System.Logger.Level.WARNING, "failover of " + movedTo[i] + " IO(s) from path " + failed.index + " to path " + i);
            }
        }
        if (aborted > 0) {
            failed.log(System.Logger.Level.WARNING, aborted + " IO(s) failed with ECONNABORTED: no other path is connected");
        }
        if (full > 0) {
            failed.log(System.Logger.Level.WARNING, full + " IO(s) handed back with EAGAIN: every other path's send queue is full");
        }
    }

    @Override
    public void close() {
        for (ClientPath p : paths) {
            if (p.state != PathState.CLOSED) {
                p.close();
            }
        }
        arena.close();
    }
}
