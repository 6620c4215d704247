package io.srdnic.rtrs.server;

import io.srdnic.rtrs.link.PathVerbs;
import io.srdnic.rtrs.protocol.ConReq;
import io.srdnic.rtrs.protocol.ConRsp;
import io.srdnic.rtrs.protocol.Errno;
import io.srdnic.rtrs.protocol.Rtrs;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.cm.CmEvent;
import io.srdnic.verbs.cm.CmEventType;
import io.srdnic.verbs.cm.CmId;
import io.srdnic.verbs.cm.ConnParam;
import io.srdnic.verbs.cm.EventChannel;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * An RTRS server: listens on the configured port of each of its contexts (one per link), takes
 * connection requests per the seed's steps 1-4, keeps the sessions (their chunk pools and paths)
 * and hands every IO request to its {@link RtrsServerHandler}. Everything runs in {@link #poll},
 * from one thread.
 */
public final class RtrsServer implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(RtrsServer.class.getName());
    final ServerConfig config;
    final RtrsServerHandler handler;
    final ServerCounters counters = new ServerCounters();
    private final List<Context> contexts = new ArrayList<>();
    private final List<EventChannel> channels = new ArrayList<>();
    private final List<CmId> listeners = new ArrayList<>();
    private final List<ServerSession> sessions = new ArrayList<>();
    private final Map<CmId, ServerPath> owners = new IdentityHashMap<>();
    /** Closed paths' verbs resources by context, for the next path there: a context cannot destroy a CQ. */
    private final Map<Context, ArrayDeque<PathVerbs>> spare = new IdentityHashMap<>();
    private long verbsMade;
    private final byte[] response = new byte[ConRsp.LENGTH];
    private final MemorySegment responseSegment = MemorySegment.ofArray(response);
    private long generations;

    private RtrsServer(ServerConfig config, RtrsServerHandler handler) {
        this.config = config;
        this.handler = handler;
    }

    /** A server listening on {@code config}'s port of every context in {@code links}. */
    public static RtrsServer open(ServerConfig config, List<Context> links, RtrsServerHandler handler) {
        RtrsServer s = new RtrsServer(config, handler);
        for (Context c : links) {
            EventChannel ch = new EventChannel(64);
            CmId listener = CmId.create(ch, c);
            listener.bind(config.port);
            listener.listen(64);
            s.contexts.add(c);
            s.channels.add(ch);
            s.listeners.add(listener);
        }
        return s;
    }

    /** Runs the connection manager, every path's completions and heartbeats; returns the work done. */
    public int poll() {
        int work = 0;
        for (int i = 0; i < channels.size(); i++) { // indexed: an iterator per poll would be garbage per IO
            EventChannel ch = channels.get(i);
            CmEvent e;
            while ((e = ch.poll()) != null) {
                work++;
                event(e);
                ch.ack(e);
            }
        }
        for (int i = 0; i < sessions.size(); i++) {
            ServerSession s = sessions.get(i);
            for (int j = 0; j < s.paths.size(); j++) {
                ServerPath p = s.paths.get(j);
                work += p.poll(p.verbs.context.now());
            }
        }
        return work;
    }

    private void event(CmEvent e) {
        if (e.type() == CmEventType.CONNECT_REQUEST) {
            connectRequest(e.id(), e.privateData(), e.privateDataLength());
            return;
        }
        ServerPath p = owners.get(e.id());
        if (p == null) {
            return;
        }
        switch (e.type()) {
            case DISCONNECTED, REJECTED, UNREACHABLE, DEVICE_REMOVAL -> closePath(p, "CM event " + e.type());
            default -> { } // ESTABLISHED: the path is up once its INFO_REQ comes; TIMEWAIT_EXIT: nothing left to do
        }
    }

    /** rtrs_rdma_connect: each check in Linux's order, each refusal with its errno in a CON_RSP. */
    private void connectRequest(CmId id, byte[] data, int length) {
        MemorySegment m = MemorySegment.ofArray(data);
        if (ConReq.check(m, 0, length) != ConReq.OK) {
            counters.rejectedMalformed++;
            reject(id, Errno.ECONNRESET);
            return;
        }
        int cid = ConReq.cid(m, 0);
        int cidNum = ConReq.cidNum(m, 0);
        int recon = ConReq.reconCnt(m, 0);
        ServerSession s = session(ConReq.sessionUuidHi(m, 0), ConReq.sessionUuidLo(m, 0));
        if (s == null) {
            if (!ConReq.firstConn(m, 0)) {
                counters.rejectedNoSession++;
                reject(id, Errno.ENXIO);
                return;
            }
            s = new ServerSession(this, ConReq.sessionUuidHi(m, 0), ConReq.sessionUuidLo(m, 0), config.queueDepth, config.chunkSize);
            sessions.add(s);
        }
        ServerPath p = s.path(ConReq.pathUuidHi(m, 0), ConReq.pathUuidLo(m, 0));
        if (p != null && p.reconCnt != recon) {
            // The client reconnects this path (a new recon_cnt) while the old incarnation is still here: let it go.
            closePath(p, "the client reconnects it (recon_cnt " + recon + ")");
            p = null;
        }
        if (p != null && (p.connected() || p.closed || cidNum != p.cidNum || p.ids[cid] != null)) {
            counters.rejectedBadConnection++;
            reject(id, Errno.ECONNRESET);
            return;
        }
        if (p == null) {
            if (s.paths.size() >= config.maxPaths) {
                counters.rejectedTooManyPaths++;
                reject(id, Errno.ECONNRESET);
                dropIfEmpty(s);
                return;
            }
            ArrayDeque<PathVerbs> free = spare.get(id.context());
            PathVerbs verbs = free != null && !free.isEmpty() ? free.pop() : made(new PathVerbs(id.context()));
            p = new ServerPath(s, verbs, ConReq.pathUuidHi(m, 0), ConReq.pathUuidLo(m, 0), cidNum, recon, ++generations);
            s.paths.add(p);
        }
        p.attach(cid, id);
        owners.put(id, p);
        ConRsp.writeAccept(responseSegment, 0, s.queueDepth, s.chunkSize - Rtrs.MAX_HDR_SIZE, Rtrs.MAX_HDR_SIZE, 0);
        id.accept(config.rcRetry.apply(id, new ConnParam().privateData(response)));
    }

    private PathVerbs made(PathVerbs v) {
        verbsMade++;
        return v;
    }

    /** Per-path verbs resources (PD, CQ, receive slots) made so far: reused, they stay as many as paths live at once. */
    public long pathResourcesMade() {
        return verbsMade;
    }

    private void reject(CmId id, int errno) {
        ConRsp.writeReject(responseSegment, 0, errno);
        id.reject(response, 0, ConRsp.LENGTH);
        id.destroy();
    }

    private ServerSession session(long hi, long lo) {
        for (ServerSession s : sessions) {
            if (s.uuidHi == hi && s.uuidLo == lo) {
                return s;
            }
        }
        return null;
    }

    /** Closes {@code p} for {@code reason}, logged with the path once, as Linux's server logs a path's end. */
    void closePath(ServerPath p, String reason) {
        if (p.closed) {
            return;
        }
        if (reason != null) {
            LOG.log(System.Logger.Level.WARNING, "rtrs server: session " + p.session.name + ": path " + p.generation
                    + " closed: " + reason);
        }
        for (CmId id : p.ids) {
            if (id != null) {
                owners.remove(id);
            }
        }
        p.close();
        spare.computeIfAbsent(p.verbs.context, c -> new ArrayDeque<>()).push(p.verbs);
        counters.pathsClosed++;
        p.session.paths.remove(p);
        dropIfEmpty(p.session);
    }

    /** A session without paths is forgotten (Linux frees it with its last path); its chunks go once no request holds one. */
    private void dropIfEmpty(ServerSession s) {
        if (s.paths.isEmpty() && sessions.remove(s)) {
            for (ServerIo io : s.ios) {
                if (io.busy) {
                    return; // the handler still has the chunk: the arena goes with the server
                }
            }
            s.arena.close();
        }
    }

    public Map<String, Long> counters() {
        return counters.snapshot();
    }

    /** Sessions, and paths connected per session, for tests and stats. */
    public int sessions() {
        return sessions.size();
    }

    public int connectedPaths() {
        int n = 0;
        for (ServerSession s : sessions) {
            for (ServerPath p : s.paths) {
                n += p.connected() ? 1 : 0;
            }
        }
        return n;
    }

    /** The name the session's client gave in its INFO_REQ ("" before), by session index. */
    public String sessionName(int i) {
        return sessions.get(i).name;
    }

    @Override
    public void close() {
        for (ServerSession s : new ArrayList<>(sessions)) {
            for (ServerPath p : new ArrayList<>(s.paths)) {
                closePath(p, null);
            }
        }
        for (ArrayDeque<PathVerbs> free : spare.values()) {
            for (PathVerbs v : free) {
                v.close();
            }
        }
        for (CmId l : listeners) {
            l.destroy();
        }
        for (EventChannel ch : channels) {
            ch.close();
        }
    }
}
