package io.srdnic.srd.transport.device;

import static io.srdnic.srd.transport.device.Requests.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.SendOpcode;
import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.api.WcOpcode;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.transport.port.MemoryRegions;
import io.srdnic.srd.transport.rc.DeviceQp;
import io.srdnic.srd.wire.DropReason;
import io.srdnic.srd.wire.PacketType;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * RDMA WRITE, WRITE with immediate and READ on SRD, between two simulated hosts: whole transfers
 * under loss, duplication and reordering, the responder's memory protection, and deregistration
 * taking effect for requests already in flight.
 */
class SrdRdmaTest {
    static final long MS = 1_000_000;
    static final int MIB = 1 << 20;
    static final LinkConfig HOSTILE = LinkConfig.builder().lossProbability(0.05).duplicateProbability(0.05).reorderProbability(0.05)
        .build();

    /** Two hosts, a QP each; the responder's region is filled with one pattern, the requester's buffer with another. */
    private static final class Pair implements AutoCloseable {
        final SimFabric f;
        final TransportDevice a;
        final TransportDevice b;
        final TestQp qa;
        final TestQp qb;
        final int ah;
        final MemorySegment local;
        final MemorySegment remote;

        Pair(LinkConfig link, long seed, int size, int receives) {
            f = new SimFabric(8, link, seed);
            a = f.addHost(new TransportConfig().paths(8));
            b = f.addHost(new TransportConfig().paths(8));
            qa = f.qp(a, 1, 64);
            qb = f.qp(b, receives, 64);
            ah = f.ah(a, 1);
            local = f.arena.allocate(size, 64);
            remote = f.arena.allocate(size + 128, 64); // 64 guard bytes either side of the target
            fill(local, seed);
            fill(remote, ~seed);
        }

        int post(int opcode, long wrId, int length, long remoteAddress, int rkey, int imm) {
            return a.post(qa.qp(), request(wrId, opcode, local, 0, length).immediate(imm).remote(remoteAddress, rkey)
                .to(ah, qb.qpn(), SimFabric.QKEY));
        }

        /** Runs until the requester has one send completion; returns it. */
        TestQp.Wc complete(long maxNanos) {
            assertTrue(f.runUntil(() -> qa.sendCq().size() > 0, maxNanos), "the request completed");
            List<TestQp.Wc> wcs = qa.sends();
            assertEquals(1, wcs.size());
            return wcs.get(0);
        }

        @Override
        public void close() {
            f.close();
        }
    }

    private static void fill(MemorySegment s, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        for (long i = 0; i < s.byteSize(); i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) r.nextInt());
        }
    }

    private static byte[] bytes(MemorySegment s) {
        return s.toArray(ValueLayout.JAVA_BYTE);
    }

    @Test
    void shouldWriteOneMebibyteIntactUnderLossDuplicationAndReordering() {
        try (Pair p = new Pair(HOSTILE, 11, MIB, 1)) {
            int rkey = p.b.regions().register(p.remote, 0, MemoryRegions.REMOTE_WRITE);
            byte[] before = bytes(p.remote);
            assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.RDMA_WRITE, 5, MIB, p.remote.address() + 64, rkey, 0));
            TestQp.Wc wc = p.complete(5_000 * MS);
            assertEquals(WcStatus.SUCCESS, wc.status());
            assertEquals(WcOpcode.RDMA_WRITE, wc.opcode());
            assertEquals(MIB, wc.byteLength());
            byte[] after = bytes(p.remote);
            assertTrue(Arrays.equals(bytes(p.local), 0, MIB, after, 64, 64 + MIB), "every byte landed where addressed");
            assertTrue(Arrays.equals(before, 0, 64, after, 0, 64), "nothing below the target changed");
            assertTrue(Arrays.equals(before, 64 + MIB, MIB + 128, after, 64 + MIB, MIB + 128), "nothing above it either");
            assertEquals(List.of(), p.qb.receives(), "a plain WRITE consumes no receive");
            assertTrue(p.a.counters().txRetransmits > 0, "the faults cost retransmissions");
            assertEquals(0, p.a.requestsInUse());
        }
    }

    @Test
    void shouldCompleteAWriteWithImmediateOnlyOnceEveryByteHasLanded() {
        try (Pair p = new Pair(HOSTILE, 12, MIB, 1)) {
            int rkey = p.b.regions().register(p.remote, 0, MemoryRegions.REMOTE_WRITE);
            assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.RDMA_WRITE_WITH_IMM, 6, MIB, p.remote.address() + 64, rkey, 0xC0FFEE));
            boolean[] intactAtCompletion = {false};
            int[] receives = {0};
            assertTrue(p.f.runUntil(() -> {
                if (p.qb.recvCq().size() > 0 && receives[0] == 0) {
                    // Looked at the moment the completion is visible, before anything else runs.
                    intactAtCompletion[0] = Arrays.equals(bytes(p.local), 0, MIB, bytes(p.remote), 64, 64 + MIB);
                    List<TestQp.Wc> r = p.qb.receives();
                    receives[0] = r.size();
                    assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, r.get(0).opcode());
                    assertEquals(0xC0FFEE, r.get(0).imm());
                    assertEquals(MIB, r.get(0).byteLength(), "the write's length");
                    assertEquals(p.qa.qpn(), r.get(0).srcQpn());
                }
                return p.qa.sendCq().size() > 0;
            }, 5_000 * MS));
            assertEquals(1, receives[0]);
            assertTrue(intactAtCompletion[0], "the receive completed with the whole write in place");
            assertEquals(WcStatus.SUCCESS, p.qa.sends().get(0).status());
            p.f.runFor(50 * MS);
            assertEquals(List.of(), p.qb.receives(), "exactly one receive consumed, duplicates notwithstanding");
        }
    }

    @Test
    void shouldReadOneMebibyteOfRemoteMemoryUnderLossDuplicationAndReordering() {
        try (Pair p = new Pair(HOSTILE, 13, MIB, 1)) {
            int rkey = p.b.regions().register(p.remote, 0, MemoryRegions.REMOTE_READ);
            byte[] remoteBefore = bytes(p.remote);
            assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.RDMA_READ, 7, MIB, p.remote.address() + 64, rkey, 0));
            TestQp.Wc wc = p.complete(5_000 * MS);
            assertEquals(WcStatus.SUCCESS, wc.status());
            assertEquals(WcOpcode.RDMA_READ, wc.opcode());
            assertTrue(Arrays.equals(remoteBefore, 64, 64 + MIB, bytes(p.local), 0, MIB), "the remote bytes, in place");
            assertTrue(Arrays.equals(remoteBefore, bytes(p.remote)), "a READ changes nothing remote");
            assertEquals(List.of(), p.qb.receives());
            p.f.runFor(100 * MS);
            assertEquals(0, p.a.requestsInUse());
            assertEquals(0, p.b.requestsInUse(), "the responder's answer is done with too");
        }
    }

    @Test
    void shouldCarryZeroByteRdma() {
        try (Pair p = new Pair(LinkConfig.DEFAULT, 14, 64, 1)) {
            int rkey = p.b.regions().register(p.remote, 0, MemoryRegions.REMOTE_READ | MemoryRegions.REMOTE_WRITE);
            assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.RDMA_READ, 1, 0, p.remote.address(), rkey, 0));
            assertEquals(WcStatus.SUCCESS, p.complete(MS).status());
            assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.RDMA_WRITE, 2, 0, p.remote.address(), rkey, 0));
            assertEquals(WcStatus.SUCCESS, p.complete(MS).status());
        }
    }

    /** Every way memory protection refuses a request: the request fails with REMOTE_ACCESS_ERROR and remote memory is untouched. */
    @Test
    void shouldRefuseEveryRemoteAccessViolationWithoutTouchingMemory() {
        try (Pair p = new Pair(LinkConfig.DEFAULT, 15, 8192, 1)) {
            long target = p.remote.address() + 64;
            int writeOnly = p.b.regions().register(p.remote, 0, MemoryRegions.REMOTE_WRITE);
            int readOnly = p.b.regions().register(p.remote, 0, MemoryRegions.REMOTE_READ);
            int otherPd = p.b.regions().register(p.remote, 7, MemoryRegions.REMOTE_READ | MemoryRegions.REMOTE_WRITE);
            int gone = p.b.regions().register(p.remote, 0, MemoryRegions.REMOTE_READ | MemoryRegions.REMOTE_WRITE);
            p.b.regions().deregister(gone);
            byte[] before = bytes(p.remote);
            long size = p.remote.byteSize();
            record Case(String what, int opcode, int rkey, long address, int length) {
            }
            List<Case> cases = List.of(
                new Case("made-up rkey", SendOpcode.RDMA_WRITE, writeOnly ^ 0x55, target, 100),
                new Case("deregistered region", SendOpcode.RDMA_WRITE, gone, target, 100),
                new Case("another PD's region", SendOpcode.RDMA_WRITE, otherPd, target, 100),
                new Case("WRITE without REMOTE_WRITE", SendOpcode.RDMA_WRITE, readOnly, target, 100),
                new Case("READ without REMOTE_READ", SendOpcode.RDMA_READ, writeOnly, target, 100),
                new Case("WRITE one byte past the end", SendOpcode.RDMA_WRITE, writeOnly, p.remote.address() + size - 99, 100),
                new Case("WRITE starting below the region", SendOpcode.RDMA_WRITE, writeOnly, p.remote.address() - 1, 100),
                new Case("multi-packet WRITE whose last packet overruns", SendOpcode.RDMA_WRITE, writeOnly,
                    p.remote.address() + size - 8191, 8192),
                new Case("READ past the end", SendOpcode.RDMA_READ, readOnly, p.remote.address() + size - 10, 11),
                new Case("WRITE with immediate past the end", SendOpcode.RDMA_WRITE_WITH_IMM, writeOnly, p.remote.address() + size, 1));
            long wrId = 100;
            for (Case c : cases) {
                assertEquals(TransportDevice.POST_OK, p.post(c.opcode(), wrId++, c.length(), c.address(), c.rkey(), 9), c.what());
                TestQp.Wc wc = p.complete(100 * MS);
                assertEquals(WcStatus.REMOTE_ACCESS_ERROR, wc.status(), c.what());
                p.f.runFor(MS);
                assertTrue(Arrays.equals(before, bytes(p.remote)), c.what() + ": remote memory unchanged");
            }
            assertEquals(List.of(), p.qb.receives(), "no receive consumed by a refused WRITE with immediate");
            assertEquals(0, p.a.requestsInUse());
        }
    }

    @Test
    void shouldRefuseTheRestOfAWriteOnceItsRegionIsDeregistered() {
        try (Pair p = new Pair(LinkConfig.DEFAULT, 16, MIB, 1)) {
            int rkey = p.b.regions().register(p.remote, 0, MemoryRegions.REMOTE_WRITE);
            assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.RDMA_WRITE, 1, MIB, p.remote.address() + 64, rkey, 0));
            assertTrue(p.f.runUntil(() -> p.b.counters().rdmaWritesPlaced > 10, 100 * MS));
            p.b.regions().deregister(rkey);
            long placed = p.b.counters().rdmaWritesPlaced;
            assertEquals(WcStatus.REMOTE_ACCESS_ERROR, p.complete(1_000 * MS).status());
            p.f.runFor(10 * MS);
            assertEquals(placed, p.b.counters().rdmaWritesPlaced, "nothing landed after the deregistration");
            assertEquals(0, p.a.requestsInUse(), "the write's other packets left the window, the rest never went");
        }
    }

    @Test
    void shouldFailAReadWhoseRegionIsDeregisteredWhileItIsAnswered() {
        try (Pair p = new Pair(LinkConfig.DEFAULT, 17, MIB, 1)) {
            int rkey = p.b.regions().register(p.remote, 0, MemoryRegions.REMOTE_READ);
            assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.RDMA_READ, 1, MIB, p.remote.address(), rkey, 0));
            assertTrue(p.f.runUntil(() -> p.a.counters().readResponsesPlaced > 10, 100 * MS));
            p.b.regions().deregister(rkey);
            assertEquals(WcStatus.REMOTE_ACCESS_ERROR, p.complete(1_000 * MS).status());
            p.f.runFor(200 * MS);
            assertEquals(0, p.b.requestsInUse(), "the responder stopped answering");
        }
    }

    @Test
    void shouldRetryAWriteWithImmediateUntilAReceiveIsPosted() {
        try (Pair p = new Pair(LinkConfig.DEFAULT, 18, 3 * 4096, 0)) {
            int rkey = p.b.regions().register(p.remote, 0, MemoryRegions.REMOTE_WRITE);
            p.qa.qp().rnrRetry(7);
            assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.RDMA_WRITE_WITH_IMM, 1, 3 * 4096, p.remote.address(), rkey, 77));
            p.f.runFor(2 * MS);
            assertEquals(0, p.qa.sendCq().size(), "still retrying: no receive yet");
            assertTrue(p.b.counters().dropsSent[DropReason.RNR] > 0);
            p.qb.qp().postReceive(42, p.qb.receiveBuffer(), 0, 1);
            assertEquals(WcStatus.SUCCESS, p.complete(100 * MS).status());
            List<TestQp.Wc> r = p.qb.receives();
            assertEquals(1, r.size());
            assertEquals(42, r.get(0).wrId());
            assertEquals(77, r.get(0).imm());
            assertTrue(Arrays.equals(bytes(p.local), 0, 3 * 4096, bytes(p.remote), 0, 3 * 4096));
        }
    }

    /** Atomics are RC's alone: one that reaches an SRD QP anyway (from a requester that is not srdnic's) is dropped, nothing changed. */
    @Test
    void shouldDropAnAtomicReachingAnSrdQpAsAnInvalidRequest() {
        try (Pair p = new Pair(LinkConfig.DEFAULT, 20, 64, 1)) {
            int rkey = p.b.regions().register(p.remote, 0, MemoryRegions.REMOTE_ATOMIC | MemoryRegions.REMOTE_WRITE);
            byte[] before = bytes(p.remote);
            Attacker x = new Attacker(p.f);
            for (int type : new int[] {PacketType.ATOMIC_CMP_SWAP, PacketType.ATOMIC_FETCH_ADD}) {
                x.atomic(1, 0, SimFabric.ip(0) + 100 + type, Attacker.MAC, 1, p.qb.qpn(), 7, type, p.remote.address() + 64, rkey, 1, 0, 0);
            }
            x.settle();
            assertEquals(2, p.b.counters().dropsSent[DropReason.REMOTE_INVALID_REQUEST]);
            assertTrue(Arrays.equals(before, bytes(p.remote)), "nothing changed");
        }
    }

    @Test
    void shouldCompleteRdmaOnAUdQpWithLocalQpOperationError() {
        try (Pair p = new Pair(LinkConfig.DEFAULT, 19, 64, 1)) {
            DeviceQp ud = p.a.createQp(new TransportQpAttributes(QpType.UD).sqDepth(4).sendCq(p.qa.sendCq()).recvCq(p.qa.recvCq()));
            ud.modify(QpState.INIT, SimFabric.QKEY);
            ud.modify(QpState.RTR, 0);
            ud.modify(QpState.RTS, 0);
            assertEquals(TransportDevice.POST_OK,
                p.a.post(ud, request(1, SendOpcode.RDMA_WRITE, p.local, 0, 8).to(p.ah, 1, SimFabric.QKEY)));
            assertEquals(WcStatus.LOCAL_QP_OPERATION_ERROR, p.qa.sends().get(0).status());
            assertEquals(0, p.a.counters().txData, "nothing went on the wire");
        }
    }

    @Test
    void shouldCompleteRdmaOverTheMaximumSizeWithLocalLengthError() {
        try (Pair p = new Pair(LinkConfig.DEFAULT, 19, 64, 1)) {
            assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.RDMA_WRITE, 2, p.a.maxRdmaSize() + 1, 0, 0, 0));
            assertEquals(WcStatus.LOCAL_LENGTH_ERROR, p.qa.sends().get(0).status());
            assertEquals(0, p.a.counters().txData, "nothing went on the wire");
        }
    }
}
