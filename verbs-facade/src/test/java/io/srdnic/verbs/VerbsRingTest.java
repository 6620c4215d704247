package io.srdnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.Eal;
import io.srdnic.pmd.EalConfig;
import io.srdnic.pmd.EthPort;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.MbufPool;
import io.srdnic.pmd.PortConfig;
import io.srdnic.pmd.PortStats;
import io.srdnic.pmd.RingLink;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.WcOpcode;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.counters.Counter;
import io.srdnic.srd.counters.CountersReader;
import io.srdnic.srd.testing.DeliveryLedger;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The verbs API on real DPDK: two contexts on a net_ring pair in this JVM, in both threading modes.
 * DEDICATED: each dataplane on its own agent thread, the test thread posting and polling through
 * the single-producer rings.
 */
class VerbsRingTest {
    static Eal eal;
    static RingLink link;
    static MbufPool pool;

    @BeforeAll
    static void start() {
        eal = Eal.start(new EalConfig());
        link = RingLink.create(1024);
        pool = MbufPool.create("verbs", 16383, 4096 + 256);
        link.a().configure(PortConfig.DEFAULT, pool).start();
        link.b().configure(PortConfig.DEFAULT, pool).start();
    }

    @AfterAll
    static void stop() {
        eal.close();
    }

    static VerbsPair pair(ThreadingMode mode) {
        return pair(mode, QpType.SRD, 512, 1024);
    }

    static VerbsPair pair(ThreadingMode mode, QpType type, int receives, int size) {
        // DEDICATED: A's dataplane thread pinned to the last CPU, as a dataplane process would be.
        int cpu = mode == ThreadingMode.DEDICATED ? Runtime.getRuntime().availableProcessors() - 1 : -1;
        Context a = Context.open(Device.dpdk(link.a(), pool), new ContextConfig().mode(mode).cpu(cpu).ip(0x0A000001));
        // DEDICATED: B's dataplane thread busy-spins instead of backing off.
        Context b = Context.open(Device.dpdk(link.b(), pool), new ContextConfig().mode(mode).busySpin(true).ip(0x0A000002));
        return new VerbsPair(a, b, type, receives, size);
    }

    @Test
    void shouldPublishThePortsOwnTotalsNextToTheTransportsCounts(@TempDir Path dir) {
        Context a = Context.open(Device.dpdk(link.a(), pool), new ContextConfig().mode(ThreadingMode.DEDICATED).ip(0x0A000001)
                .countersDir(dir));
        Context b = Context.open(Device.dpdk(link.b(), pool), new ContextConfig().ip(0x0A000002));
        Path file = a.countersFile();
        try (VerbsPair p = new VerbsPair(a, b, QpType.SRD, 64, 256)) {
            SendWr wr = new SendWr().destination(p.sa.toPeer, p.sb.qp.qpNum(), VerbsPair.QKEY).numSge(1);
            wr.sge(0).set(p.sa.mr, 0, 256);
            for (int i = 0; i < 50; i++) {
                assertEquals(0, p.sa.qp.postSend(wr.wrId(i)));
            }
            assertEquals(50, VerbsPair.await(p.sb.cq, CompletionQueue.array(50), 50));
            assertEquals(50, VerbsPair.await(p.sa.cq, CompletionQueue.array(50), 50));
        }
        PortStats port = link.a().stats();
        try (CountersReader r = CountersReader.open(file).orElseThrow()) {
            Map<String, Long> c = r.counters().stream().collect(
                Collectors.toMap(Counter::name, Counter::value, (x, y) -> x));
            assertEquals(port.txPackets(), c.get("port_tx_packets"), "the final export read the port's totals: " + c);
            assertEquals(port.rxPackets(), c.get("port_rx_packets"));
            assertTrue(c.get("port_tx_packets") >= c.get("tx_data") + c.get("tx_acks"), "the port carried what the transport sent: " + c);
            assertTrue(c.get("tx_data") >= 50);
        }
    }

    @Test
    void shouldCarryRcSendWriteAndReadOfOneMebibyteOverRealDpdkInBothThreadingModes() {
        for (ThreadingMode mode : ThreadingMode.values()) {
            int size = 1 << 20;
            try (VerbsPair p = pair(mode, QpType.RC, 1, size)) {
                MemorySegment src = p.arena.allocate(size, 64);
                MemorySegment back = p.arena.allocate(size, 64);
                MemorySegment target = p.arena.allocate(size, 64);
                for (int i = 0; i < size; i += 8) {
                    src.set(ValueLayout.JAVA_LONG_UNALIGNED, i, i * 0x9E37_79B9_7F4A_7C15L + mode.ordinal());
                }
                MemoryRegion srcMr = p.sa.pd.registerMemory(src, Access.LOCAL_WRITE);
                MemoryRegion backMr = p.sa.pd.registerMemory(back, Access.LOCAL_WRITE);
                MemoryRegion remote = p.sb.pd.registerMemory(target, Access.REMOTE_WRITE | Access.REMOTE_READ);
                WorkCompletion[] wcs = CompletionQueue.array(1);
                SendWr send = new SendWr().wrId(1).opcode(SendWr.OP_SEND_WITH_IMM).immediate(7).numSge(1);
                send.sge(0).set(srcMr, 0, size);
                assertEquals(0, p.sa.qp.postSend(send), "an RC send names no destination: the QP is connected");
                assertEquals(1, awaitWhileTheResponderRuns(p, wcs), mode + ": the 1 MiB send completed");
                assertEquals(WcStatus.SUCCESS, wcs[0].status(), mode.toString());
                WorkCompletion[] rx = CompletionQueue.array(1);
                assertEquals(1, p.sb.cq.await(rx, 1, TimeUnit.SECONDS), mode + ": one receive");
                assertEquals(WcOpcode.RECV_WITH_IMM, rx[0].opcode());
                assertEquals(size, rx[0].byteLength());
                assertEquals(-1, MemorySegment.mismatch(src, 0, size, p.sb.mr.segment(), 16L * size, 17L * size),
                    mode + ": the message arrived whole");
                SendWr wr = new SendWr().wrId(2).opcode(SendWr.OP_RDMA_WRITE).rdma(target.address(), remote.rkey()).numSge(1);
                writeThenReadBack(p, mode, wr, 3, srcMr, backMr, target);
            }
            drainLink();
        }
    }

    @Test
    void shouldReadBackAWrittenMebibyteOverRealDpdkInBothThreadingModes() {
        for (ThreadingMode mode : ThreadingMode.values()) {
            try (VerbsPair p = pair(mode)) {
                int size = 1 << 20;
                MemorySegment src = p.arena.allocate(size, 64);
                MemorySegment back = p.arena.allocate(size, 64);
                MemorySegment target = p.arena.allocate(size, 64);
                for (int i = 0; i < size; i += 8) {
                    src.set(ValueLayout.JAVA_LONG_UNALIGNED, i, i * 0x9E37_79B9_7F4A_7C15L);
                }
                MemoryRegion srcMr = p.sa.pd.registerMemory(src, Access.LOCAL_WRITE);
                MemoryRegion backMr = p.sa.pd.registerMemory(back, Access.LOCAL_WRITE);
                MemoryRegion remote = p.sb.pd.registerMemory(target, Access.REMOTE_WRITE | Access.REMOTE_READ);
                SendWr wr = new SendWr().wrId(1).opcode(SendWr.OP_RDMA_WRITE)
                    .destination(p.sa.toPeer, p.sb.qp.qpNum(), VerbsPair.QKEY).rdma(target.address(), remote.rkey()).numSge(1);
                writeThenReadBack(p, mode, wr, 2, srcMr, backMr, target);
            }
        }
    }

    /**
     * Posts {@code write} (an RDMA WRITE of all of {@code srcMr} to {@code target}), checks it landed
     * whole, then READs {@code target} back into {@code backMr} with the same work request ({@code readWrId}) and checks that.
     */
    private static void writeThenReadBack(VerbsPair p, ThreadingMode mode, SendWr write, long readWrId, MemoryRegion srcMr,
                                          MemoryRegion backMr, MemorySegment target) {
        MemorySegment src = srcMr.segment();
        MemorySegment back = backMr.segment();
        int size = (int) src.byteSize();
        write.sge(0).set(srcMr, 0, size);
        assertEquals(0, p.sa.qp.postSend(write));
        WorkCompletion[] wcs = CompletionQueue.array(1);
        assertEquals(1, awaitWhileTheResponderRuns(p, wcs), mode + ": the write completed");
        assertEquals(WcStatus.SUCCESS, wcs[0].status(), () -> mode + ": requester " + p.a.counters() + " responder " + p.b.counters());
        assertEquals(-1, MemorySegment.mismatch(src, 0, size, target, 0, size), mode + ": landed whole");
        write.wrId(readWrId).opcode(SendWr.OP_RDMA_READ).sge(0).set(backMr, 0, size);
        assertEquals(0, p.sa.qp.postSend(write));
        assertEquals(1, awaitWhileTheResponderRuns(p, wcs), mode + ": the read completed");
        assertEquals(WcStatus.SUCCESS, wcs[0].status(), () -> mode + ": requester " + p.a.counters() + " responder " + p.b.counters());
        assertEquals(WcOpcode.RDMA_READ, wcs[0].opcode());
        assertEquals(-1, MemorySegment.mismatch(target, 0, size, back, 0, size), mode + ": read back whole");
    }

    @Test
    void shouldRetryRcRnrUntilAReceiveIsPostedThenFailOnARemoteAccessViolationOverRealDpdk() {
        for (ThreadingMode mode : ThreadingMode.values()) {
            try (VerbsPair p = pair(mode, QpType.RC, 0, 4096)) {
                MemorySegment src = p.arena.allocate(8192, 64);
                src.fill((byte) 0x5A);
                MemoryRegion srcMr = p.sa.pd.registerMemory(src, Access.LOCAL_WRITE);
                WorkCompletion[] wcs = CompletionQueue.array(1);
                SendWr send = new SendWr().wrId(1).opcode(SendWr.OP_SEND).numSge(1);
                send.sge(0).set(srcMr, 0, 3000);
                assertEquals(0, p.sa.qp.postSend(send), "no receive posted at the responder yet");
                long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
                while (System.nanoTime() - until < 0) {
                    p.b.progress();
                    assertEquals(0, p.sa.cq.poll(wcs), mode + ": an RNR NAK is waited out (rnr_retry 7), not a completion");
                }
                RecvWr recv = new RecvWr().wrId(77);
                recv.sge().set(p.sb.mr, 0, 4096);
                assertEquals(0, p.sb.qp.postRecv(recv));
                assertEquals(1, awaitWhileTheResponderRuns(p, wcs), mode + ": delivered once the receive is there");
                assertEquals(WcStatus.SUCCESS, wcs[0].status(), mode.toString());
                MemorySegment target = p.arena.allocate(4096, 64);
                MemoryRegion readOnly = p.sb.pd.registerMemory(target, Access.REMOTE_READ);
                SendWr write = new SendWr().wrId(2).opcode(SendWr.OP_RDMA_WRITE).rdma(target.address(), readOnly.rkey()).numSge(1);
                write.sge(0).set(srcMr, 0, 4096);
                assertEquals(0, p.sa.qp.postSend(write));
                assertEquals(1, awaitWhileTheResponderRuns(p, wcs), mode + ": the violation completes");
                assertEquals(WcStatus.REMOTE_ACCESS_ERROR, wcs[0].status(), mode.toString());
                MemorySegment zeros = p.arena.allocate(4096, 64);
                assertEquals(-1, MemorySegment.mismatch(target, 0, 4096, zeros, 0, 4096), mode + ": nothing written");
                assertEquals(QpState.ERROR, p.sa.qp.query().state(), mode.toString());
            }
            drainLink();
        }
    }

    /** XRC (SRC) over a real link: one XRC_SEND QP reaches three jobs' XRC SRQs behind one XRC_RECV QP, each byte checked. */
    @Test
    void shouldCarryXrcSendsToEachJobsSrqOverRealDpdkInBothThreadingModes() {
        for (ThreadingMode mode : ThreadingMode.values()) {
            int cpu = mode == ThreadingMode.DEDICATED ? Runtime.getRuntime().availableProcessors() - 1 : -1;
            Context a = Context.open(Device.dpdk(link.a(), pool), new ContextConfig().mode(mode).cpu(cpu).ip(0x0A000001));
            Context b = Context.open(Device.dpdk(link.b(), pool), new ContextConfig().mode(mode).busySpin(true).ip(0x0A000002));
            try (XrcPair p = new XrcPair(a, b, 3, 4, 20_000)) {
                VerbsXrcSimTest.sendsReachEachJobsSrqOnItsOwnCq(p, 4);
            }
            drainLink();
        }
    }

    /**
     * Polls A's CQ for up to ten seconds (a shared 2-core machine); in INVOKER mode B's dataplane
     * runs only when its application calls in, so this does.
     */
    private static int awaitWhileTheResponderRuns(VerbsPair p, WorkCompletion[] wcs) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        int n = 0;
        while (n == 0 && System.nanoTime() - deadline < 0) {
            p.b.progress();
            n = p.sa.cq.poll(wcs);
        }
        return n;
    }

    @Test
    void shouldStreamMessagesExactlyOnceInBothThreadingModes() {
        for (ThreadingMode mode : ThreadingMode.values()) {
            try (VerbsPair p = pair(mode)) {
                // The receiver reposts only as fast as this thread polls it: let RNR retry, as perftest does.
                p.sa.qp.rnrRetry(7);
                int messages = mode == ThreadingMode.DEDICATED ? 5_000 : 20_000; // DEDICATED: 3 busy threads on 2 cores
                SendWr wr = new SendWr().opcode(SendWr.OP_SEND_WITH_IMM)
                        .destination(p.sa.toPeer, p.sb.qp.qpNum(), VerbsPair.QKEY).numSge(1);
                wr.sge(0).set(p.sa.mr, 0, 1024);
                RecvWr repost = new RecvWr();
                DeliveryLedger seen = new DeliveryLedger(messages, "delivered");
                int next = 0;
                int ok = 0;
                int received = 0;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while ((ok < messages || received < messages) && System.nanoTime() < deadline) {
                    while (next < messages && p.sa.qp.postSend(wr.wrId(next).immediate(next)) == 0) {
                        next++;
                    }
                    int n = p.sa.cq.poll(p.sa.wcs);
                    for (int i = 0; i < n; i++) {
                        assertEquals(WcStatus.SUCCESS, p.sa.wcs[i].status(), p.sa.wcs[i].toString());
                        ok++;
                    }
                    received += drainReceiver(p, seen, repost);
                }
                assertEquals(messages, ok, mode + ": every send completed with success");
                assertEquals(messages, received, mode + ": every message arrived once");
                seen.assertAllBooked();
                assertTrue(p.a.counters().get("tx_data") >= messages);
            }
        }
        drainLink();
        assertEquals(0, pool.inUse(), "nothing leaked once both contexts are closed and the link is drained");
    }

    @Test
    void shouldSendWhatWasPostedEvenWhenThePollOnlyReturnsCompletionsAlreadyThere() {
        try (VerbsPair p = new VerbsPair(
            Context.open(Device.dpdk(link.a(), pool), new ContextConfig().ip(0x0A000001)),
            Context.open(Device.dpdk(link.b(), pool), new ContextConfig().ip(0x0A000002)), QpType.UD, 16, 1024)) {
            SendWr wr = new SendWr().opcode(SendWr.OP_SEND).destination(p.sa.toPeer, p.sb.qp.qpNum(), VerbsPair.QKEY).numSge(1);
            wr.sge(0).set(p.sa.mr, 0, 64);
            long before = link.a().stats().txPackets();
            assertEquals(0, p.sa.qp.postSend(wr.wrId(1)));
            // UD completes a send as it is built: the CQ already holds the completion, so this poll
            // runs no duty cycle; the datagram must leave all the same, not wait for a later poll.
            assertEquals(1, p.sa.cq.poll(p.sa.wcs));
            assertEquals(WcOpcode.SEND, p.sa.wcs[0].opcode());
            assertEquals(before + 1, link.a().stats().txPackets(), "the datagram left with the poll that returned its completion");
        }
        drainLink();
    }

    /** Frames still on the wire when the contexts closed (a last ACK, say) belong to the link: take them off. */
    static void drainLink() {
        try (Arena arena = Arena.ofConfined()) {
            MbufBatch batch = new MbufBatch(arena);
            for (EthPort port : new EthPort[] {link.a(), link.b()}) {
                while (port.rxQueue(0).burst(batch) > 0) {
                    MbufPool.free(batch);
                }
            }
        }
    }

    /** The receiver empties its CQ, checking each message is new, and reposts every receive. */
    static int drainReceiver(VerbsPair p, DeliveryLedger seen, RecvWr repost) {
        int received = 0;
        int n;
        while ((n = p.sb.cq.poll(p.sb.wcs)) > 0) {
            for (int i = 0; i < n; i++) {
                WorkCompletion wc = p.sb.wcs[i];
                assertEquals(WcOpcode.RECV_WITH_IMM, wc.opcode());
                seen.book(wc.immediate());
                received++;
                repost.wrId(wc.wrId()).sge().set(p.sb.mr, (16 + wc.wrId() - 1000) * 1024, 1024);
                assertEquals(0, p.sb.qp.postRecv(repost));
            }
        }
        return received;
    }
}
