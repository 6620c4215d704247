package io.srdnic.rtrs.server;

import io.srdnic.rtrs.link.Heartbeat;
import io.srdnic.rtrs.link.PathVerbs;
import io.srdnic.rtrs.protocol.Errno;
import io.srdnic.rtrs.protocol.Imm;
import io.srdnic.rtrs.protocol.InfoReq;
import io.srdnic.rtrs.protocol.InfoRsp;
import io.srdnic.rtrs.protocol.IoRequestCheck;
import io.srdnic.rtrs.protocol.MsgType;
import io.srdnic.rtrs.protocol.Rtrs;
import io.srdnic.srd.api.WcOpcode;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.verbs.CompletionQueue;
import io.srdnic.verbs.MemoryRegion;
import io.srdnic.verbs.QueuePair;
import io.srdnic.verbs.VerbsException;
import io.srdnic.verbs.WorkCompletion;
import io.srdnic.verbs.cm.CmId;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;

/**
 * One path of a session on the server (Linux's rtrs_srv_path): its connections (cid 0 the service
 * connection), the chunk pool registered on its PD, its heartbeat. CONNECTING until the client's
 * INFO_REQ, then CONNECTED; closed on any error, CM event or heartbeat loss.
 */
final class ServerPath {
    private static final System.Logger LOG = System.getLogger(ServerPath.class.getName());
    private static final WorkCompletion[] NONE = new WorkCompletion[0];

    final ServerSession session;
    final long uuidHi;
    final long uuidLo;
    final int cidNum;
    final int reconCnt;
    final long generation;
    /** Answers waiting for room in the send queue, oldest first; sized once for every chunk of the session. */
    private final ArrayDeque<ServerIo> deferred;
    final PathVerbs verbs;
    final MemoryRegion chunkRegion;
    final CmId[] ids;
    final QueuePair[] qps;
    final Heartbeat heartbeat;
    private final WorkCompletion[] wcs = CompletionQueue.array(32);
    private boolean connected;
    boolean closed;

    ServerPath(ServerSession session, PathVerbs verbs, long uuidHi, long uuidLo, int cidNum, int reconCnt, long generation) {
        this.session = session;
        this.verbs = verbs;
        this.uuidHi = uuidHi;
        this.uuidLo = uuidLo;
        this.cidNum = cidNum;
        this.reconCnt = reconCnt;
        this.generation = generation;
        this.deferred = new ArrayDeque<>(session.queueDepth);
        this.ids = new CmId[cidNum];
        this.qps = new QueuePair[cidNum];
        this.chunkRegion = verbs.registerRemoteWritable(session.chunks);
        RtrsServer server = session.server;
        this.heartbeat = new Heartbeat(server.config.heartbeatIntervalNanos, server.config.heartbeatMissedMax);
    }

    boolean connected() {
        return connected && !closed;
    }

    /** Makes connection {@code cid}'s QP, receives posted, ready for accept. */
    void attach(int cid, CmId id) {
        ids[cid] = id;
        qps[cid] = cid == 0 ? verbs.createServiceQp(id, Rtrs.SERVICE_QUEUE_DEPTH + 8)
            : verbs.createIoQp(id, sendQueueDepth(session), session.queueDepth);
    }

    /** Polls the path's CQ and runs its heartbeat; returns the work done. */
    int poll(long now) {
        if (closed) {
            return 0;
        }
        int n = verbs.cq.poll(wcs);
        for (int i = 0; i < n && !closed; i++) {
            completion(wcs[i]);
        }
        if (!deferred.isEmpty() && !closed) {
            n += postDeferred();
        }
        if (!closed) {
            int hb = heartbeat.poll(now);
            if (hb == Heartbeat.SEND) {
                verbs.sendEmpty(qps[0], Imm.heartbeat(), 0);
            } else if (hb == Heartbeat.DEAD) {
                session.server.closePath(this, "HB missed max reached");
            }
        }
        return n;
    }

    /** An answer the send queue refused: posted again, in order, from {@link #poll}. */
    void defer(ServerIo io) {
        deferred.addLast(io);
    }

    /** The server's configured send queue depth, or the session's queue depth and 8 more (room for the heartbeat and stragglers). */
    private static int sendQueueDepth(ServerSession session) {
        int configured = session.server.config.sendQueueDepth;
        return configured > 0 ? configured : session.queueDepth + 8;
    }

    private int postDeferred() {
        int n = 0;
        ServerIo io;
        while ((io = deferred.peekFirst()) != null) {
            if (io.deferred && io.path == this && io.pathGeneration == generation) {
                if (io.post() != 0) {
                    break; // still full: the next poll, after the CQ freed room
                }
                io.deferred = false;
                n++;
            }
            deferred.pollFirst();
        }
        return n;
    }

    private int cidOf(int qpn) {
        for (int c = 0; c < cidNum; c++) {
            if (qps[c] != null && qps[c].qpNum() == qpn) {
                return c;
            }
        }
        return -1;
    }

    private void completion(WorkCompletion wc) {
        int cid = cidOf(wc.qpNum());
        if (cid < 0) {
            return; // a QP of an earlier incarnation
        }
        if (!wc.ok()) {
            if (wc.status() != WcStatus.WR_FLUSH_ERROR) {
                session.server.closePath(this, "RDMA failed: " + wc.statusName() + " on connection " + cid);
            }
            return;
        }
        int op = wc.opcode();
        if (op != WcOpcode.RECV && op != WcOpcode.RECV_WITH_IMM && op != WcOpcode.RECV_RDMA_WITH_IMM) {
            return; // our own sends
        }
        heartbeat.alive();
        QueuePair qp = qps[cid];
        if (op == WcOpcode.RECV) {
            if (cid == 0 && !connected) {
                infoRequest(wc); // read before the slot is posted again
            }
            if (!closed) { // a refused INFO_REQ closed the path, its QPs and slots with it
                verbs.repost(qp, wc.wrId());
            }
            return;
        }
        verbs.repost(qp, wc.wrId());
        int imm = wc.immediate();
        switch (Imm.type(imm)) {
            case Imm.IO_REQ -> ioRequest(qp, imm);
            case Imm.HB_MSG -> verbs.sendEmpty(qps[0], Imm.heartbeatAck(), 0);
            case Imm.HB_ACK -> heartbeat.acked(verbs.context.now());
            default -> session.server.counters.badIoRequests++;
        }
    }

    private void infoRequest(WorkCompletion wc) {
        MemorySegment r = verbs.receives();
        long at = PathVerbs.slotOffset(wc.wrId());
        if (InfoReq.check(r, at, wc.byteLength()) != InfoReq.OK) {
            session.server.counters.badInfoRequests++;
            session.server.closePath(this, "invalid INFO_REQ");
            return;
        }
        session.name = InfoReq.name(r, at);
        MemorySegment c = verbs.control();
        InfoRsp.writeHeader(c, 0, 1);
        InfoRsp.writeDesc(c, 0, 0, session.chunks.address(), chunkRegion.rkey(), session.queueDepth * session.chunkSize);
        connected = true;
        LOG.log(System.Logger.Level.INFO, "rtrs server: session " + session.name + ": path " + generation + " connected");
        heartbeat.start(verbs.context.now());
        verbs.sendControl(qps[0], InfoRsp.length(1), 0);
    }

    private void ioRequest(QueuePair qp, int imm) {
        ServerSession s = session;
        int memBits = Imm.memBits(s.queueDepth);
        if (!connected) {
            s.server.counters.badIoRequests++;
            return;
        }
        int check = IoRequestCheck.check(imm, s.chunks, s.chunkSize, s.queueDepth, memBits);
        if (check == IoRequestCheck.BAD_CHUNK) {
            s.server.counters.badChunkIds++; // no chunk, so no message id to answer
            return;
        }
        int id = Imm.chunkId(imm, memBits);
        if (check != IoRequestCheck.OK) {
            s.server.counters.badIoRequests++;
            verbs.sendEmpty(qp, Imm.ioRsp(id, Errno.EINVAL, false), id);
            return;
        }
        ServerIo io = s.ios[id];
        if (io.busy) {
            // The client re-issued this permit's request (its path failed): the old one's answer would go nowhere.
            s.server.counters.superseded++;
        }
        int off = Imm.offset(imm, memBits);
        boolean read = MsgType.of(io.chunk, off) == MsgType.READ;
        io.take(this, qp, read, off);
        s.server.handler.onRequest(io);
    }

    /** Disconnects and destroys every connection; the registered chunks are let go, the verbs resources kept for another path. */
    void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (ServerIo io : deferred) {
            io.deferred = false; // their path is gone: the client fails them over
        }
        deferred.clear();
        heartbeat.stop();
        for (int c = 0; c < cidNum; c++) {
            destroy(ids[c], qps[c]);
            ids[c] = null;
            qps[c] = null;
        }
        chunkRegion.deregister();
        verbs.drain();
    }

    static void destroy(CmId id, QueuePair qp) {
        try {
            if (id != null) {
                id.destroy();
            }
        } catch (VerbsException e) {
            // already gone with its device
        }
        if (qp != null) {
            qp.destroy();
        }
    }
}
