package io.srdnic.srd.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.wire.DropReason;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** {@code srdnic sim --ops}: each operation ends as it must, and the mix keeps the ledger's per-message checks. */
class SimOpsTest {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    static final List<SimOp> ALL = List.of(SimOp.values());

    @Test
    void shouldEndEachOperationWithTheStatusItsKindCallsFor() {
        SimReport r = SrdSimulation.run(Scenario.basic(10 * 40, 64, 3).withOps(ALL));
        assertTrue(r.passed(), r.toString());
        assertEquals(6 * 40, r.completedOk(), "send, send-imm, ud and the three RDMA operations succeed");
        assertEquals(Map.of("BAD_DEST_QP_ERROR", 40L, "REMOTE_INVALID_REQUEST_ERROR", 40L, "RNR_ERROR", 40L,
            "REMOTE_OPERATION_ERROR", 40L), r.completedErrorByStatus());
        for (SimOp op : ALL) {
            assertEquals(op.dropReason() == 0, op.expectedStatus() == WcStatus.SUCCESS, op.label()
                    + ": refused exactly when it has a drop reason");
        }
        assertEquals(4 * 40, r.hostileSends(), "the refused operations are the ledger's hostile kinds");
        assertEquals(6 * 40, r.delivered(), "a clean network delivers every SRD message and every datagram, every RDMA operation's "
            + "bytes land or come back, nothing refused");
        assertEquals(0, r.deliveredButFailed());
        Map<String, Long> c = r.transportCounters();
        assertEquals(40, c.get("tx_datagrams"));
        assertEquals(40, c.get("rx_datagrams"));
        assertEquals(2 * 40, c.get("rdma_writes_placed"), "each write one segment at 64 bytes");
        assertEquals(40, c.get("rdma_reads_answered"));
        assertEquals(40, c.get("read_responses_placed"));
        for (SimOp op : ALL) {
            if (op.dropReason() != 0) {
                String reason = DropReason.name(op.dropReason()).toLowerCase(Locale.ROOT);
                assertEquals(40, c.get("drops_sent_" + reason), op.label());
                assertEquals(40, c.get("drops_received_" + reason), op.label());
            }
        }
    }

    @Test
    void shouldKeepSrdExactlyOnceAmongUnreliableDatagrams() {
        SimReport r = SrdSimulation.run(Scenario.basic(3 * 300, 256, 9).withFaults(0.1, 0.1, 0.3)
            .withOps(List.of(SimOp.SEND, SimOp.SEND_IMM, SimOp.UD)));
        assertTrue(r.passed(), r.toString());
        assertEquals(900, r.completedOk());
        assertEquals(0, r.duplicatesDelivered(), "a datagram the network duplicates is not an SRD duplicate");
        assertTrue(r.delivered() >= 600 && r.delivered() < 900, "every SRD message, and the datagrams that arrived: " + r.delivered());
    }

    /**
     * Every operation mixed into the seeded runs of {@link SrdPropertiesTest} (restarts, QP and
     * address-handle destroys, CQ pressure, reclaim, hostile sends, forged frames, stalls): the same
     * per-message properties hold, the refused operations counted as the hostile sends they are.
     */
    @TestFactory
    Stream<DynamicTest> shouldKeepEveryPropertyWithEveryOperationUnderSeededDisruptions() {
        return LongStream.rangeClosed(1, 40).mapToObj(seed -> DynamicTest.dynamicTest("seed " + seed, () -> {
            Scenario s = withAllOps(SrdPropertiesTest.scenario(seed));
            SimReport r = SrdSimulation.run(s);
            List<String> broken = SrdPropertiesTest.brokenProperties(s, r);
            assertTrue(broken.isEmpty(), "seed " + seed + ": " + s + "\n  " + broken + "\n  " + r.violations());
        }));
    }

    /**
     * {@code s} with every operation; at least 8 bytes, as a SEND without immediate data needs. RDMA
     * READ included where a destination QP can vanish (destroyed, in ERROR, its host restarted): a
     * READ whose responder stops answering completes REMOTE_UNRESPONSIVE (SrdReadLivenessTest).
     */
    static Scenario withAllOps(Scenario s) {
        List<SimOp> ops = ALL;
        return new Scenario(s.hosts(), s.messages(), Math.max(8, s.size()), s.loss(), s.duplicate(), s.reorder(), s.delayNanos(),
            s.jitterNanos(), s.paths(), s.blackholePaths(), s.incast(), s.linkGbps(), s.timeLimitNanos(), s.seed(), s.events(), ops);
    }

    @Test
    void shouldSegmentRdmaAtTheMtuWithEveryByteIntactOnAFaultyFabric() {
        // At --size 4096 the simulated MTU is 4096: a write of 4096 bytes takes two packets (4072 + 24
        // bytes of data), a read's answer two READ_RESPONSEs; a write with immediate holds its second.
        List<SimOp> rdma = List.of(SimOp.RDMA_WRITE, SimOp.RDMA_WRITE_IMM, SimOp.RDMA_READ);
        SimReport r = SrdSimulation.run(Scenario.basic(3 * 200, 4096, 17).withFaults(0.05, 0.05, 0.3).withOps(rdma));
        assertTrue(r.passed(), r.toString());
        assertEquals(600, r.completedOk());
        assertEquals(600, r.delivered(), "every write's bytes landed, every read's came back, every write with immediate's receive");
        Map<String, Long> c = r.transportCounters();
        assertEquals(2 * 2 * 200, c.get("rdma_writes_placed"), "two segments a write, each placed once");
        assertEquals(200, c.get("rdma_reads_answered"));
        assertEquals(2 * 200, c.get("read_responses_placed"), "two READ_RESPONSEs a read");
        assertTrue(r.retransmits() > 0, "the faults cost retransmissions");
    }

    @Test
    void shouldRunTheSameRdmaScenarioTheSameWay() {
        Scenario s = Scenario.basic(300, 1000, 23).withFaults(0.05, 0.02, 0.2)
            .withOps(List.of(SimOp.SEND, SimOp.RDMA_WRITE, SimOp.RDMA_WRITE_IMM, SimOp.RDMA_READ));
        assertEquals(SrdSimulation.run(s), SrdSimulation.run(s), "same scenario and seed, same run");
    }

    @Test
    void shouldRefuseOperationsTheMessageSizeCannotCarry() {
        assertThrows(IllegalArgumentException.class, () -> Scenario.basic(10, 4, 1).withOps(List.of(SimOp.SEND)));
        IllegalArgumentException mtu = assertThrows(IllegalArgumentException.class,
            () -> SrdSimulation.run(Scenario.basic(10, 4096, 1).withOps(List.of(SimOp.TOO_LONG))));
        assertTrue(mtu.getMessage().contains("--size below the SRD MTU"), mtu.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Scenario.basic(10, 64, 1).withOps(List.of()));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SimOp.list("send,atomic-add"));
        assertTrue(e.getMessage().contains(SimOp.labels()), e.getMessage());
        assertEquals(List.of(SimOp.SEND_IMM, SimOp.UD), SimOp.list("send-imm, UD"));
    }

    @Test
    void shouldSendTooLongMessagesEvenFromAnEmptySize() {
        SimReport r = SrdSimulation.run(Scenario.basic(20, 0, 5).withOps(List.of(SimOp.SEND_IMM, SimOp.TOO_LONG)));
        assertTrue(r.passed(), r.toString());
        assertEquals(Map.of("REMOTE_OPERATION_ERROR", 10L), r.completedErrorByStatus());
    }
}
