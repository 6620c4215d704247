package io.srdnic.rtrs.session;

import static io.srdnic.rtrs.session.RtrsSim.MS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.rtrs.client.PathState;
import io.srdnic.rtrs.client.RtrsClient;
import io.srdnic.rtrs.protocol.ConReq;
import io.srdnic.rtrs.protocol.ConRsp;
import io.srdnic.rtrs.protocol.Errno;
import io.srdnic.rtrs.protocol.Imm;
import io.srdnic.rtrs.protocol.InfoReq;
import io.srdnic.rtrs.protocol.InfoRsp;
import io.srdnic.rtrs.protocol.ReadMsg;
import io.srdnic.rtrs.server.ServerConfig;
import io.srdnic.srd.api.QpType;
import io.srdnic.verbs.Access;
import io.srdnic.verbs.CompletionQueue;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.MemoryRegion;
import io.srdnic.verbs.ProtectionDomain;
import io.srdnic.verbs.QpInitAttributes;
import io.srdnic.verbs.RecvWr;
import io.srdnic.verbs.SendWr;
import io.srdnic.verbs.WorkCompletion;
import io.srdnic.verbs.cm.CmEvent;
import io.srdnic.verbs.cm.CmEventType;
import io.srdnic.verbs.cm.CmId;
import io.srdnic.verbs.cm.ConnParam;
import io.srdnic.verbs.cm.EventChannel;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * Seed step 1-2 from the server's side: a hand-made client sends each CON_REQ the server must
 * refuse, and reads the errno out of the CON_RSP in the reject; the accepted ones carry the
 * session's limits.
 */
class RtrsEstablishmentSimTest {
    static final long SESSION_HI = 0x1111;
    static final long SESSION_LO = 0x2222;

    /** A hand-made connection: its id, PD and CQ, and how the connect ended. */
    record Raw(CmId id, ProtectionDomain pd, CompletionQueue cq, CmEventType end) {
    }

    /** The CM event that ends a connect with {@code data} on link 0: ESTABLISHED or REJECTED; its CON_RSP is copied to {@code rsp}. */
    private static CmEventType connect(RtrsSim sim, byte[] data, byte[] rsp) {
        return raw(sim, data, rsp, null).end();
    }

    /** As {@link #connect}, on {@code pd} (a new one if null); {@code receive} (if not null) is posted first. */
    static Raw raw(RtrsSim sim, byte[] data, byte[] rsp, ProtectionDomain given) {
        Context ctx = sim.clientLinks.get(0);
        EventChannel ch = new EventChannel(8);
        CmId id = CmId.create(ch, ctx);
        id.resolveAddr(sim.serverLinks.get(0).ip(), ServerConfig.DEFAULT_PORT);
        CmEvent[] got = new CmEvent[1];
        CmEventType[] type = new CmEventType[1];
        assertTrue(sim.run(() -> (got[0] = ch.poll()) != null, 100 * MS));
        ch.ack(got[0]);
        id.resolveRoute();
        assertTrue(sim.run(() -> (got[0] = ch.poll()) != null, 100 * MS));
        ch.ack(got[0]);
        ProtectionDomain pd = given != null ? given : ctx.allocPd();
        CompletionQueue cq = ctx.createCq(16);
        id.createQp(pd, QpInitAttributes.builder(QpType.RC).cq(cq).maxSendWr(8).maxRecvWr(8).build());
        id.connect(new ConnParam().privateData(data));
        assertTrue(sim.run(() -> (got[0] = ch.poll()) != null, 1000 * MS));
        type[0] = got[0].type();
        System.arraycopy(got[0].privateData(), 0, rsp, 0, Math.min(rsp.length, got[0].privateDataLength()));
        ch.ack(got[0]);
        return new Raw(id, pd, cq, type[0]);
    }

    private static byte[] request(int cid, int cidNum, long pathLo, boolean first) {
        byte[] b = new byte[ConReq.LENGTH];
        ConReq.write(MemorySegment.ofArray(b), 0, cid, cidNum, 0, 0x77, pathLo, SESSION_HI, SESSION_LO, first);
        return b;
    }

    private static int errno(byte[] rsp) {
        MemorySegment m = MemorySegment.ofArray(rsp);
        assertEquals(ConRsp.OK, ConRsp.check(m, 0, rsp.length), "a CON_RSP rides on the reject");
        return ConRsp.errno(m, 0);
    }

    @Test
    void shouldRefuseEachMalformedOrUnexpectedRequestWithLinuxsErrno() {
        try (RtrsSim sim = new RtrsSim(4, 1, RtrsSim.smallServer().maxPaths(1), 1 << 16)) {
            byte[] rsp = new byte[ConRsp.LENGTH];

            byte[] badMagic = request(0, 2, 1, true);
            badMagic[2] ^= 1;
            assertEquals(CmEventType.REJECTED, connect(sim, badMagic, rsp));
            assertEquals(Errno.ECONNRESET, errno(rsp), "bad magic");

            byte[] badMajor = request(0, 2, 1, true);
            badMajor[5] = 3;
            assertEquals(CmEventType.REJECTED, connect(sim, badMajor, rsp));
            assertEquals(Errno.ECONNRESET, errno(rsp), "major 3");

            assertEquals(CmEventType.REJECTED, connect(sim, request(2, 2, 1, true), rsp));
            assertEquals(Errno.ECONNRESET, errno(rsp), "cid >= cid_num");

            assertEquals(CmEventType.REJECTED, connect(sim, new byte[10], rsp));
            assertEquals(Errno.ECONNRESET, errno(rsp), "shorter than a CON_REQ");

            assertEquals(CmEventType.REJECTED, connect(sim, request(0, 2, 1, false), rsp));
            assertEquals(Errno.ENXIO, errno(rsp), "a path of a session the server does not have, not first_conn");
            assertEquals(0, sim.server.sessions());

            byte[] minor = request(0, 2, 1, true);
            minor[4] = 7; // version 2.7: only the major is checked
            assertEquals(CmEventType.ESTABLISHED, connect(sim, minor, rsp));
            MemorySegment m = MemorySegment.ofArray(rsp);
            assertEquals(0, ConRsp.errno(m, 0));
            assertEquals(16, ConRsp.queueDepth(m, 0));
            assertEquals(12 * 1024, ConRsp.maxIoSize(m, 0));
            assertEquals(4096, ConRsp.maxHdrSize(m, 0));
            assertEquals(1, sim.server.sessions(), "first_conn made the session");

            assertEquals(CmEventType.REJECTED, connect(sim, request(0, 2, 1, false), rsp));
            assertEquals(Errno.ECONNRESET, errno(rsp), "the same connection of the same path again");

            assertEquals(CmEventType.REJECTED, connect(sim, request(0, 2, 2, false), rsp));
            assertEquals(Errno.ECONNRESET, errno(rsp), "a second path where one is allowed");

            assertEquals(CmEventType.ESTABLISHED, connect(sim, request(1, 2, 1, false), rsp),
                "the path's other connection, not first_conn: the session exists");

            var counters = sim.server.counters();
            assertEquals(4, counters.get("rejected_malformed"));
            assertEquals(1, counters.get("rejected_no_session"));
            assertEquals(1, counters.get("rejected_too_many_paths"));
            assertEquals(1, counters.get("rejected_bad_connection"));
        }
    }

    @Test
    void shouldKeepAPathTheServerRefusesReconnectingWithItsErrnoWhileTheOthersServe() {
        try (RtrsSim sim = new RtrsSim(5, 2, RtrsSim.smallServer().maxPaths(1), 1 << 16)) {
            RtrsClient c = RtrsClient.open(RtrsSim.smallClient(), sim.addresses());
            sim.client = c;
            assertTrue(sim.run(() -> (c.state(0) == PathState.CONNECTED) != (c.state(1) == PathState.CONNECTED)
                && c.lastRejectErrno(0) + c.lastRejectErrno(1) != 0, 2000 * MS));
            int refused = c.state(0) == PathState.CONNECTED ? 1 : 0;
            assertEquals(Errno.ECONNRESET, c.lastRejectErrno(refused), "too many paths");
            assertTrue(c.stats(refused).reconnectsFailed() == 0, "never connected: not a reconnect");
            IoDriver io = new IoDriver(c, 20);
            assertTrue(sim.run(() -> {
                io.submit();
                return io.finished();
            }, 1000 * MS));
            io.assertAllWrittenOnce(sim.disk);
            assertEquals(1, sim.server.connectedPaths());
        }
    }

    @Test
    void shouldAnswerAForgedReadLongerThanItsChunkWithEinvalWritingNothing() {
        try (RtrsSim sim = new RtrsSim(6, 1, RtrsSim.smallServer(), 1 << 16)) {
            byte[] rsp = new byte[ConRsp.LENGTH];
            Raw service = raw(sim, request(0, 2, 9, true), rsp, null);
            assertEquals(CmEventType.ESTABLISHED, service.end());
            Raw io = raw(sim, request(1, 2, 9, true), rsp, service.pd());
            assertEquals(CmEventType.ESTABLISHED, io.end());
            MemorySegment mem = Arena.ofAuto().allocate(64 * 1024, 4096);
            MemoryRegion mr = service.pd().registerMemory(mem, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            RecvWr recv = new RecvWr();
            recv.wrId(1).sge().set(mr, 0, 512);
            service.id().qp().postRecv(recv);
            recv.wrId(2).sge().set(mr, 512, 0);
            io.id().qp().postRecv(recv);
            InfoReq.write(mem, 1024, "forger".getBytes());
            SendWr send = new SendWr().opcode(SendWr.OP_SEND).flags(0).numSge(1);
            send.sge(0).set(mr, 1024, InfoReq.LENGTH);
            service.id().qp().postSend(send);
            WorkCompletion[] wc = CompletionQueue.array(4);
            assertTrue(sim.run(() -> service.cq().poll(wc) > 0 && wc[0].wrId() == 1, 500 * MS), "INFO_RSP");
            assertEquals(InfoRsp.OK, InfoRsp.check(mem, 0, wc[0].byteLength(), 16, 16 * 1024));
            long chunks = InfoRsp.descAddress(mem, 0, 0);
            int key = InfoRsp.descKey(mem, 0, 0);
            // A read of chunk 3 whose desc asks for twice a chunk into our buffer at 32 KiB.
            ReadMsg.write(mem, 2048, 0, 0, mem.address() + 32 * 1024, mr.rkey(), 32 * 1024);
            send.opcode(SendWr.OP_RDMA_WRITE_WITH_IMM).immediate(Imm.ioReq(3, 0, Imm.memBits(16))).rdma(chunks + 3 * 16 * 1024, key)
                .sge(0).set(mr, 2048, ReadMsg.length(1));
            io.id().qp().postSend(send);
            assertTrue(sim.run(() -> io.cq().poll(wc) > 0 && wc[0].wrId() == 2, 500 * MS), "an IO_RSP");
            assertTrue(wc[0].hasImmediate());
            assertEquals(Imm.IO_RSP, Imm.type(wc[0].immediate()));
            assertEquals(3, Imm.msgId(wc[0].immediate()));
            assertEquals(Errno.EINVAL, Imm.errno(wc[0].immediate()));
            assertEquals(0, sim.disk.requests, "never handed to the user");
            assertEquals(1, sim.server.counters().get("bad_io_requests"));
            assertEquals(-1, mem.asSlice(32 * 1024, 32 * 1024).mismatch(Arena.ofAuto().allocate(32 * 1024)),
                "nothing written to the forger's buffer");
        }
    }

    @Test
    void shouldCloseAPathWhoseInfoRequestNamesAPathWithADot() {
        try (RtrsSim sim = new RtrsSim(14, 1, RtrsSim.smallServer(), 1 << 16)) {
            byte[] rsp = new byte[ConRsp.LENGTH];
            Raw service = raw(sim, request(0, 1, 9, true), rsp, null);
            assertEquals(CmEventType.ESTABLISHED, service.end());
            MemorySegment mem = Arena.ofAuto().allocate(4096, 64);
            MemoryRegion mr = service.pd().registerMemory(mem, Access.LOCAL_WRITE);
            InfoReq.write(mem, 0, "../etc".getBytes());
            SendWr send = new SendWr().opcode(SendWr.OP_SEND).flags(0).numSge(1);
            send.sge(0).set(mr, 0, InfoReq.LENGTH);
            service.id().qp().postSend(send);
            assertTrue(sim.run(() -> sim.server.counters().get("bad_info_requests") == 1, 500 * MS));
            assertEquals(1, sim.server.counters().get("paths_closed"), "Linux closes the path too");
            assertEquals(0, sim.server.sessions(), "and its session, which had no other path");
        }
    }
}
