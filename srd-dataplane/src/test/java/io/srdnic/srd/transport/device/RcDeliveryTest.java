package io.srdnic.srd.transport.device;

import static io.srdnic.srd.transport.device.RcPair.HOSTILE;
import static io.srdnic.srd.transport.device.RcPair.MIB;
import static io.srdnic.srd.transport.device.RcPair.MS;
import static io.srdnic.srd.transport.device.RcPair.bytes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.srd.api.SendOpcode;
import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.api.WcOpcode;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.transport.port.MemoryRegions;
import io.srdnic.srd.transport.qp.SharedReceiveQueue;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * RC's data path on the simulator under 5% loss, duplication and reordering: messages of 1 MiB cut
 * into path-MTU packets, sprayed over 16 paths or pinned to one, arrive intact, once, and in order;
 * completions come in post order at both ends.
 */
class RcDeliveryTest {

    private static void sendsArriveIntactOnceAndInOrder(TransportConfig config, long seed) {
        sendsArriveIntactOnceAndInOrder(config, seed, p -> { });
    }

    private static void sendsArriveIntactOnceAndInOrder(TransportConfig config, long seed, Consumer<RcPair> alsoCheck) {
        try (RcPair p = new RcPair(HOSTILE, seed, config).connect()) {
            int messages = 4;
            MemorySegment rx = p.receives(messages, MIB);
            MemorySegment tx = p.random((long) messages * MIB, seed);
            int[] lengths = {MIB, 1, MIB - 7, 0};
            for (int i = 0; i < messages; i++) {
                int op = i % 2 == 0 ? SendOpcode.SEND : SendOpcode.SEND_WITH_IMM;
                assertEquals(TransportDevice.POST_OK, p.post(op, i, tx, (long) i * MIB, lengths[i], 0, 0, 0xA000 + i));
            }
            List<TestQp.Wc> sends = p.sendCompletions(messages, 20_000 * MS);
            for (int i = 0; i < messages; i++) {
                assertEquals(i, sends.get(i).wrId(), "send completions in post order");
                assertEquals(WcStatus.SUCCESS, sends.get(i).status());
            }
            assertTrue(p.f.runUntil(() -> p.qb.recvCq().size() >= messages, 100 * MS));
            List<TestQp.Wc> recvs = p.qb.receives();
            assertEquals(messages, recvs.size(), "each message exactly once");
            for (int i = 0; i < messages; i++) {
                TestQp.Wc wc = recvs.get(i);
                assertEquals(100 + i, wc.wrId(), "receives consumed in order");
                assertEquals(WcStatus.SUCCESS, wc.status());
                assertEquals(lengths[i], wc.byteLength());
                assertEquals(i % 2 == 1, wc.hasImm());
                if (wc.hasImm()) {
                    assertEquals(0xA000 + i, wc.imm());
                }
                assertEquals(p.qa.qpn(), wc.srcQpn());
                assertArrayEquals(bytes(tx, (long) i * MIB, lengths[i]), bytes(rx, (long) i * MIB, lengths[i]), "message " + i + " intact");
            }
            p.f.runFor(50 * MS);
            assertEquals(List.of(), p.qb.receives(), "no message delivered twice, however late its copies");
            assertTrue(p.a.counters().txRetransmits > 0, "the faults cost retransmissions");
            assertTrue(p.b.counters().rcHeldEarly > 0, "packets came early and waited in the reorder buffer");
            assertTrue(p.b.counters().duplicates > 0, "duplicates arrived and were not executed again");
            assertTrue(p.a.counters().txData >= 2 * MIB / 1024, "the messages went as path-MTU (1024 B) packets");
            alsoCheck.accept(p);
        }
    }

    /**
     * The reorder buffers of all QPs share one pool per transport: with only 4 slots, early packets
     * that find it full are dropped unacknowledged (counted) and come again, and everything still
     * arrives intact, once and in order; every slot is back when the gaps have filled.
     */
    @Test
    void shouldDeliverIntactWhenTheSharedReorderPoolRunsFull() {
        sendsArriveIntactOnceAndInOrder(new TransportConfig().rcHeldPackets(4), 23, p -> {
            assertTrue(p.b.counters().rcHeldPoolFull > 0, "early packets found the 4-slot pool full");
            assertEquals(0, p.b.heldPackets.inUse(), "every held packet was executed and its slot given back");
        });
    }

    @Test
    void shouldDeliverSendsExactlyOnceInOrderSprayedOverSixteenPaths() {
        sendsArriveIntactOnceAndInOrder(new TransportConfig(), 21);
    }

    @Test
    void shouldDeliverSendsExactlyOnceInOrderPinnedToOnePath() {
        sendsArriveIntactOnceAndInOrder(new TransportConfig().rcPaths(1), 22);
    }

    @Test
    void shouldLandAOneMebibyteWriteIntactInPostOrder() {
        try (RcPair p = new RcPair(HOSTILE, 23).connect()) {
            MemorySegment remote = p.f.arena.allocate(MIB + 128, 64);
            byte[] before = bytes(remote, 0, MIB + 128);
            int rkey = p.b.regions().register(remote, 0, MemoryRegions.REMOTE_WRITE);
            MemorySegment tx = p.random(MIB, 23);
            assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.RDMA_WRITE, 1, tx, 0, MIB, remote.address() + 64, rkey, 0));
            assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.RDMA_WRITE, 2, tx, 0, 8, remote.address(), rkey, 0));
            List<TestQp.Wc> wcs = p.sendCompletions(2, 20_000 * MS);
            assertEquals(List.of(1L, 2L), wcs.stream().map(TestQp.Wc::wrId).toList(), "the small write completes after the big one");
            assertEquals(WcOpcode.RDMA_WRITE, wcs.get(0).opcode());
            assertEquals(WcStatus.SUCCESS, wcs.get(0).status());
            assertArrayEquals(bytes(tx, 0, MIB), bytes(remote, 64, MIB));
            assertArrayEquals(Arrays.copyOfRange(before, 64 + MIB, MIB + 128), bytes(remote, 64 + MIB, 64), "nothing past it changed");
            assertEquals(List.of(), p.qb.receives(), "a plain WRITE consumes no receive");
        }
    }

    @Test
    void shouldWriteWithImmediateConsumingOneReceiveWithTheWritesLength() {
        try (RcPair p = new RcPair(HOSTILE, 24).connect()) {
            p.receives(1, 16);
            MemorySegment remote = p.f.arena.allocate(MIB, 64);
            int rkey = p.b.regions().register(remote, 0, MemoryRegions.REMOTE_WRITE);
            MemorySegment tx = p.random(MIB, 24);
            assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.RDMA_WRITE_WITH_IMM, 1, tx, 0, MIB, remote.address(), rkey, 0xBEEF));
            assertEquals(WcStatus.SUCCESS, p.sendCompletions(1, 20_000 * MS).get(0).status());
            assertTrue(p.f.runUntil(() -> p.qb.recvCq().size() > 0, 100 * MS));
            TestQp.Wc r = p.qb.receives().get(0);
            assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, r.opcode());
            assertEquals(0xBEEF, r.imm());
            assertEquals(MIB, r.byteLength());
            assertArrayEquals(bytes(tx, 0, MIB), bytes(remote, 0, MIB));
        }
    }

    @Test
    void shouldReadOneMebibyteOfTheRemotesBytes() {
        try (RcPair p = new RcPair(HOSTILE, 25).connect()) {
            MemorySegment remote = p.random(MIB, 250);
            int rkey = p.b.regions().register(remote, 0, MemoryRegions.REMOTE_READ);
            MemorySegment into = p.f.arena.allocate(MIB, 64);
            assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.RDMA_READ, 1, into, 0, MIB, remote.address(), rkey, 0));
            assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.RDMA_READ, 2, into, 0, 16, remote.address(), rkey, 0));
            List<TestQp.Wc> wcs = p.sendCompletions(2, 20_000 * MS);
            assertEquals(WcOpcode.RDMA_READ, wcs.get(0).opcode());
            assertEquals(WcStatus.SUCCESS, wcs.get(0).status());
            assertEquals(List.of(1L, 2L), wcs.stream().map(TestQp.Wc::wrId).toList());
            assertArrayEquals(bytes(remote, 0, MIB), bytes(into, 0, MIB));
        }
    }

    @Test
    void shouldDeliverOverACleanLinkWithoutRetransmitting() {
        try (RcPair p = new RcPair(LinkConfig.DEFAULT, 26).connect()) {
            MemorySegment rx = p.receives(1, 64 * 1024);
            MemorySegment tx = p.random(64 * 1024, 26);
            assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.SEND, 1, tx, 0, 64 * 1024, 0, 0, 0));
            assertEquals(WcStatus.SUCCESS, p.sendCompletions(1, 100 * MS).get(0).status());
            assertArrayEquals(bytes(tx, 0, 64 * 1024), bytes(rx, 0, 64 * 1024));
            assertEquals(0, p.a.counters().txRetransmits);
        }
    }

    /**
     * A READ the responder cannot answer yet (every answer slot holds an answer not yet
     * acknowledged: the requester may issue its next READ as soon as the data is in, before its ACK
     * of the answer has come back) waits at the responder, held and acknowledged selectively, and
     * runs when a slot frees: never dropped, so never resent, never a retry spent.
     */
    @Test
    void shouldHoldAReadWithNoFreeAnswerSlotRatherThanDropIt() {
        try (RcPair p = new RcPair(LinkConfig.DEFAULT, 27)) {
            p.maxRdAtomic = 16;
            p.connect();
            int reads = 200;
            int size = 4096;
            MemorySegment remote = p.random((long) reads * size, 270);
            int rkey = p.b.regions().register(remote, 0, MemoryRegions.REMOTE_READ);
            MemorySegment into = p.f.arena.allocate((long) reads * size, 64);
            for (int i = 0; i < reads; i++) {
                assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.RDMA_READ, i, into, (long) i * size, size,
                        remote.address() + (long) i * size, rkey, 0));
            }
            List<TestQp.Wc> wcs = p.sendCompletions(reads, 5_000 * MS);
            for (int i = 0; i < reads; i++) {
                assertEquals(i, wcs.get(i).wrId());
                assertEquals(WcStatus.SUCCESS, wcs.get(i).status());
            }
            assertArrayEquals(bytes(remote, 0, (long) reads * size), bytes(into, 0, (long) reads * size));
            assertTrue(p.b.counters().readsDeferred > 0, "READs found every answer slot busy");
            assertEquals(0, p.a.counters().txRetransmits, "and waited at the responder instead of being dropped and resent");
        }
    }

    @Test
    void shouldTakeReceivesFromAnSrqInOrderUnderFaults() {
        SharedReceiveQueue[] srq = new SharedReceiveQueue[1];
        try (RcPair p = new RcPair(HOSTILE, 27, new TransportConfig(), t -> srq[0] = t.createSrq(16, 0)).connect()) {
            MemorySegment rx = p.f.arena.allocate(8L * 8192, 64);
            for (int i = 0; i < 8; i++) {
                assertTrue(srq[0].postReceive(200 + i, rx, i * 8192L, 8192));
            }
            MemorySegment tx = p.random(8L * 8192, 27);
            for (int i = 0; i < 8; i++) {
                assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.SEND, i, tx, i * 8192L, 5000 + i, 0, 0, 0));
            }
            List<TestQp.Wc> sends = p.sendCompletions(8, 2_000 * MS);
            assertTrue(sends.stream().allMatch(w -> w.status() == WcStatus.SUCCESS), sends.toString());
            assertTrue(p.f.runUntil(() -> p.qb.recvCq().size() >= 8, 100 * MS));
            List<TestQp.Wc> recvs = p.qb.receives();
            for (int i = 0; i < 8; i++) {
                assertEquals(200 + i, recvs.get(i).wrId(), "the SRQ's receives taken in order");
                assertEquals(5000 + i, recvs.get(i).byteLength());
                assertArrayEquals(bytes(tx, i * 8192L, 5000 + i), bytes(rx, i * 8192L, 5000 + i));
            }
        }
    }
}
