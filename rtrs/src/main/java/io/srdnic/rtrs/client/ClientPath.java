package io.srdnic.rtrs.client;

import io.srdnic.rtrs.link.Heartbeat;
import io.srdnic.rtrs.link.PathVerbs;
import io.srdnic.rtrs.protocol.ConReq;
import io.srdnic.rtrs.protocol.ConRsp;
import io.srdnic.rtrs.protocol.Errno;
import io.srdnic.rtrs.protocol.Imm;
import io.srdnic.rtrs.protocol.InfoReq;
import io.srdnic.rtrs.protocol.InfoRsp;
import io.srdnic.rtrs.protocol.ReadMsg;
import io.srdnic.rtrs.protocol.Rtrs;
import io.srdnic.rtrs.protocol.WriteMsg;
import io.srdnic.srd.api.WcOpcode;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.verbs.CompletionQueue;
import io.srdnic.verbs.MemoryRegion;
import io.srdnic.verbs.QueuePair;
import io.srdnic.verbs.VerbsException;
import io.srdnic.verbs.WorkCompletion;
import io.srdnic.verbs.cm.CmEvent;
import io.srdnic.verbs.cm.CmId;
import io.srdnic.verbs.cm.ConnParam;
import io.srdnic.verbs.cm.EventChannel;
import java.lang.foreign.MemorySegment;
import java.util.UUID;

/**
 * One path of a client session (Linux's rtrs_clt_path): a service connection (cid 0) and the IO
 * connections, connected per the seed's steps 1-4 (cid 0 first: its CON_RSP says the queue
 * depth the IO connections are sized for; then the others; then INFO_REQ/INFO_RSP), watched by
 * heartbeats, torn down on any error and reconnected after a back-off.
 */
final class ClientPath {
    private static final System.Logger LOG = System.getLogger(ClientPath.class.getName());
    final RtrsClient client;
    /** This path's index in its session, for the log. */
    final int index;
    final PathAddress address;
    final long uuidHi;
    final long uuidLo;
    final int cidNum;
    final PathStats stats = new PathStats();
    final Heartbeat heartbeat;
    private final EventChannel channel = new EventChannel(64);
    private PathVerbs verbs;
    private MemoryRegion staging;
    private final CmId[] ids;
    private final QueuePair[] qps;
    private final boolean[] up;
    private final WorkCompletion[] wcs = CompletionQueue.array(32);
    private final byte[] request = new byte[ConReq.LENGTH];
    private final MemorySegment requestSegment = MemorySegment.ofArray(request);
    /** Per chunk: where it is on the server and its key, from this path's INFO_RSP. */
    private long[] chunkAddress;
    private int[] chunkKey;
    PathState state = PathState.CONNECTING;
    private int established;
    private boolean infoSent;
    private int attempts;
    private int reconCnt;
    private long deadline;
    private long reconnectAt;
    private boolean wasConnected;
    /** The errno of the last refused connect (0: none), for tests and stats. */
    int lastRejectErrno;

    ClientPath(RtrsClient client, int index, PathAddress address, UUID uuid) {
        this.client = client;
        this.index = index;
        this.address = address;
        this.uuidHi = uuid.getMostSignificantBits();
        this.uuidLo = uuid.getLeastSignificantBits();
        this.cidNum = 1 + client.config.ioConnections;
        this.ids = new CmId[cidNum];
        this.qps = new QueuePair[cidNum];
        this.up = new boolean[cidNum];
        this.heartbeat = new Heartbeat(client.config.heartbeatIntervalNanos, client.config.heartbeatMissedMax);
    }

    long now() {
        return address.context().now();
    }

    /** Starts a connect attempt: cid 0 first. */
    void connect() {
        if (verbs == null) {
            verbs = new PathVerbs(address.context());
        }
        if (state == PathState.RECONNECTING) {
            log(System.Logger.Level.INFO, "reconnecting (attempt " + (attempts + 1) + ")");
        }
        state = PathState.CONNECTING;
        established = 0;
        infoSent = false;
        deadline = now() + client.config.connectTimeoutNanos;
        open(0);
    }

    private void open(int cid) {
        CmId id = CmId.create(channel, address.context());
        ids[cid] = id;
        up[cid] = false;
        id.resolveAddr(address.serverIp(), client.config.port);
    }

    private int cidOf(CmId id) {
        for (int c = 0; c < cidNum; c++) {
            if (ids[c] == id) {
                return c;
            }
        }
        return -1;
    }

    /** Runs the path: its CM events, completions, heartbeat and timers. */
    int poll() {
        if (state == PathState.CLOSED) {
            return 0;
        }
        int work = 0;
        CmEvent e;
        while ((e = channel.poll()) != null) {
            work++;
            event(e);
            channel.ack(e);
        }
        if (state == PathState.CONNECTED || state == PathState.CONNECTING) {
            int n = verbs.cq.poll(wcs);
            for (int i = 0; i < n && (state == PathState.CONNECTED || state == PathState.CONNECTING); i++) {
                completion(wcs[i]);
            }
            work += n;
        }
        long now = now();
        if (state == PathState.CONNECTING && now - deadline >= 0) {
            failed("connect timed out after " + client.config.connectTimeoutNanos / 1_000_000 + " ms");
        } else if (state == PathState.CONNECTED) {
            int hb = heartbeat.poll(now);
            if (hb == Heartbeat.SEND) {
                verbs.sendEmpty(qps[0], Imm.heartbeat(), 0);
            } else if (hb == Heartbeat.DEAD) {
                failed("HB missed max reached (" + client.config.heartbeatMissedMax + " x "
                        + client.config.heartbeatIntervalNanos / 1_000_000
                    + " ms)");
            }
        } else if (state == PathState.RECONNECTING && now - reconnectAt >= 0) {
            connect();
        }
        return work;
    }

    private void event(CmEvent e) {
        int cid = cidOf(e.id());
        if (cid < 0 || state != PathState.CONNECTING && state != PathState.CONNECTED) {
            return;
        }
        CmId id = e.id();
        switch (e.type()) {
            case ADDR_RESOLVED -> id.resolveRoute();
            case ROUTE_RESOLVED -> {
                qps[cid] = cid == 0 ? verbs.createServiceQp(id, Rtrs.SERVICE_QUEUE_DEPTH + 8)
                    : verbs.createIoQp(id, client.queueDepth + 8, client.queueDepth);
                boolean first = !client.anyConnected();
                ConReq.write(requestSegment, 0, cid, cidNum, reconCnt, uuidHi, uuidLo, client.uuidHi, client.uuidLo, first);
                id.connect(client.config.rcRetry.apply(id, new ConnParam().privateData(request)));
            }
            case ESTABLISHED -> established(cid, e);
            case REJECTED -> {
                MemorySegment m = MemorySegment.ofArray(e.privateData());
                lastRejectErrno = ConRsp.check(m, 0, e.privateDataLength()) == ConRsp.OK ? ConRsp.errno(m, 0) : Errno.ECONNRESET;
                failed("connection " + cid + " rejected by the server: errno " + lastRejectErrno);
            }
            default -> failed("CM event " + e.type() + " on connection " + cid); // UNREACHABLE, DISCONNECTED, DEVICE_REMOVAL...
        }
    }

    private void established(int cid, CmEvent e) {
        MemorySegment m = MemorySegment.ofArray(e.privateData());
        if (ConRsp.check(m, 0, e.privateDataLength()) != ConRsp.OK || ConRsp.errno(m, 0) != 0) {
            failed("invalid CON_RSP on connection " + cid);
            return;
        }
        if (cid == 0) {
            int depth = ConRsp.queueDepth(m, 0);
            if (!client.geometry(depth, ConRsp.maxIoSize(m, 0), ConRsp.maxHdrSize(m, 0))) {
                failed("the server's queue depth or chunk size changed (" + depth + ")");
                state = PathState.DEAD; // Linux too stops reconnecting when the queue depth changed
                log(System.Logger.Level.WARNING, "dead: no more reconnects after a change of geometry");
                return;
            }
            if (chunkAddress == null) {
                chunkAddress = new long[depth];
                chunkKey = new int[depth];
            }
            if (staging == null) {
                staging = verbs.registerRemoteWritable(client.staging);
            }
            for (int c = 1; c < cidNum; c++) {
                open(c);
            }
        }
        up[cid] = true;
        if (++established == cidNum) {
            MemorySegment c = verbs.control();
            InfoReq.write(c, 0, client.nameBytes);
            verbs.sendControl(qps[0], InfoReq.LENGTH, 0);
            infoSent = true;
        }
    }

    private void completion(WorkCompletion wc) {
        int cid = -1;
        for (int c = 0; c < cidNum; c++) {
            if (qps[c] != null && qps[c].qpNum() == wc.qpNum()) {
                cid = c;
            }
        }
        if (cid < 0) {
            return; // an earlier incarnation's QP
        }
        if (!wc.ok()) {
            if (wc.status() != WcStatus.WR_FLUSH_ERROR) {
                failed("RDMA failed: " + wc.statusName() + " on connection " + cid);
            }
            return;
        }
        int op = wc.opcode();
        if (op != WcOpcode.RECV && op != WcOpcode.RECV_WITH_IMM && op != WcOpcode.RECV_RDMA_WITH_IMM) {
            return;
        }
        heartbeat.alive();
        verbs.repost(qps[cid], wc.wrId());
        if (op == WcOpcode.RECV) {
            if (cid == 0 && infoSent && state == PathState.CONNECTING) {
                infoResponse(wc);
            }
            return;
        }
        int imm = wc.immediate();
        switch (Imm.type(imm)) {
            case Imm.IO_RSP, Imm.IO_RSP_W_INV -> client.response(this, Imm.msgId(imm), Imm.errno(imm));
            case Imm.HB_MSG -> verbs.sendEmpty(qps[0], Imm.heartbeatAck(), 0);
            case Imm.HB_ACK -> {
                heartbeat.acked(now());
                stats.latencyNanos = heartbeat.latencyNanos();
            }
            default -> { } // not for a client
        }
    }

    private void infoResponse(WorkCompletion wc) {
        MemorySegment r = verbs.receives();
        long at = PathVerbs.slotOffset(wc.wrId());
        int depth = client.queueDepth;
        int chunk = client.chunkSize;
        if (InfoRsp.check(r, at, wc.byteLength(), depth, chunk) != InfoRsp.OK) {
            failed("invalid INFO_RSP");
            return;
        }
        int i = 0;
        for (int d = 0; d < InfoRsp.descs(r, at); d++) {
            long base = InfoRsp.descAddress(r, at, d);
            int key = InfoRsp.descKey(r, at, d);
            long n = Integer.toUnsignedLong(InfoRsp.descLength(r, at, d)) / chunk;
            for (long k = 0; k < n; k++, i++) {
                chunkAddress[i] = base + k * chunk;
                chunkKey[i] = key;
            }
        }
        state = PathState.CONNECTED;
        log(System.Logger.Level.INFO, wasConnected ? "reconnected after " + attempts + " attempt(s)" : "connected");
        attempts = 0;
        if (wasConnected) {
            stats.reconnectsOk++;
        }
        wasConnected = true;
        heartbeat.start(now());
    }

    /** Posts {@code p}'s request on this path; false when the send queue refused it. */
    boolean post(Permit p) {
        int cid = 1 + p.id % (cidNum - 1);
        int memBits = Imm.memBits(client.queueDepth);
        MemorySegment s = client.staging;
        long base = p.offset;
        int rc;
        if (p.read) {
            long msg = base + client.maxIoSize + p.headerLength;
            ReadMsg.write(s, msg, p.headerLength, 0, s.address() + base, staging.rkey(), p.dataLength);
            int imm = Imm.ioReq(p.id, p.headerLength, memBits);
            rc = verbs.writeWithImm(qps[cid], staging, base + client.maxIoSize, p.headerLength + ReadMsg.length(1),
                chunkAddress[p.id], chunkKey[p.id], imm, p.id, true);
        } else {
            WriteMsg.write(s, base + p.dataLength + p.headerLength, p.headerLength);
            int imm = Imm.ioReq(p.id, p.dataLength + p.headerLength, memBits);
            rc = verbs.writeWithImm(qps[cid], staging, base, p.dataLength + p.headerLength + WriteMsg.LENGTH,
                chunkAddress[p.id], chunkKey[p.id], imm, p.id, true);
        }
        if (rc != 0) {
            return false; // the send queue is full
        }
        p.path = this;
        stats.inflight++;
        return true;
    }

    /** The attempt or the connected path failed for {@code reason}: tear down, fail over its IO, and wait to reconnect. */
    void failed(String reason) {
        if (state != PathState.CONNECTING && state != PathState.CONNECTED) {
            return;
        }
        boolean wasUp = state == PathState.CONNECTED;
        teardown();
        if (!wasUp && wasConnected) {
            stats.reconnectsFailed++;
        }
        attempts++;
        reconCnt = (reconCnt + 1) & 0xFFFF;
        int max = client.config.maxReconnectAttempts;
        String what = wasUp ? "disconnected: " : "connect attempt " + attempts + " failed: ";
        if (max >= 0 && attempts > max) {
            state = PathState.DEAD;
            log(System.Logger.Level.WARNING, what + reason + "; dead, " + max + " reconnect attempt(s) spent");
        } else {
            state = PathState.RECONNECTING;
            long delay = client.config.reconnectDelayNanos << Math.min(3, Math.max(0, attempts - 1));
            delay += client.config.random.nextLong(Math.max(1, delay / 8));
            reconnectAt = now() + delay;
            log(System.Logger.Level.WARNING, what + reason + "; reconnecting in " + delay / 1_000_000 + " ms");
        }
        client.pathDown(this);
    }

    private void teardown() {
        heartbeat.stop();
        for (int c = 0; c < cidNum; c++) {
            CmId id = ids[c];
            ids[c] = null;
            try {
                if (id != null) {
                    id.destroy();
                }
            } catch (VerbsException e) {
                // its device is gone
            }
            if (qps[c] != null) {
                qps[c].destroy();
                qps[c] = null;
            }
            up[c] = false;
        }
        verbs.drain();
        stats.inflight = 0;
    }

    /** One line per state change, with the path and why, as Linux's rtrs_err/rtrs_info do. */
    void log(System.Logger.Level level, String what) {
        int ip = address.serverIp();
        LOG.log(level, "rtrs client " + client.config.sessionName + ": path " + index + " (to " + (ip >>> 24) + "."
                + (ip >>> 16 & 0xFF) + "."
            + (ip >>> 8 & 0xFF) + "." + (ip & 0xFF) + "): " + what);
    }

    /** Closes the path for good (removePath, close). */
    void close() {
        if (state == PathState.CONNECTING || state == PathState.CONNECTED) {
            teardown();
        }
        state = PathState.CLOSED;
        if (staging != null) {
            staging.deregister();
            staging = null;
        }
        if (verbs != null) {
            verbs.close();
        }
        channel.close();
    }
}
