package io.srdnic.srd.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.srd.api.TransportConfig;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@code srdnic sim --transport rc}: every RC operation checks out, on a clean and on a faulty
 * fabric, and a run that cannot finish fails.
 */
class RcSimulationTest {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    static final List<RcOp> ALL = List.of(RcOp.values());

    @Test
    void shouldCompleteEveryOperationWithTheRightResultOnACleanFabric() {
        RcSimulation.Report r = RcSimulation.run(Scenario.basic(8 * 30, 3000, 3), ALL, port -> port, new TransportConfig());
        assertTrue(r.passed(), r.toString());
        assertEquals(240, r.ok());
        assertTrue(r.rnrNaks() >= 1, "the rnr messages met an RNR NAK: " + r);
        assertEquals(60, r.counters().get("atomics_executed"), "each atomic ran once");
    }

    @Test
    void shouldCompleteEveryOperationOnceOnAFaultyFabric() {
        RcSimulation.Report r = RcSimulation.run(Scenario.basic(8 * 40, 2500, 7).withFaults(0.03, 0.03, 0.2).withPaths(4, Set.of()),
            ALL, port -> port, new TransportConfig());
        assertTrue(r.passed(), r.toString());
        assertTrue(r.retransmits() > 0, "the faults cost retransmissions: " + r);
        assertEquals(80, r.counters().get("atomics_executed"), "each atomic ran once, duplicates and resends included");
    }

    /** An answer's slot frees when its ACK arrives: with ACKs lost, a stream of atomics and READs outruns the answer ring. */
    @Test
    void shouldHoldRequestsThatFindNoAnswerSlot() {
        RcSimulation.Report r = RcSimulation.run(Scenario.basic(600, 64, 5).withFaults(0.05, 0, 0.1),
            List.of(RcOp.FETCH_ADD, RcOp.CMP_SWAP, RcOp.RDMA_READ), port -> port, new TransportConfig());
        assertTrue(r.passed(), r.toString());
        assertTrue(r.answersDeferred() > 0, "READs and atomics waited for an answer slot: " + r);
    }

    @Test
    void shouldFailARunWhoseLinksLoseEverything() {
        RcSimulation.Report r = RcSimulation.run(Scenario.basic(4, 64, 1).withPaths(2, Set.of(0, 1)), ALL, port -> port,
            new TransportConfig());
        assertFalse(r.passed(), "nothing can arrive: " + r);
        assertTrue(r.failures().stream().anyMatch(f -> f.contains("RETRY_EXCEEDED")), r.failures().toString());
    }

    @Test
    void shouldRefuseUnknownOperationNames() {
        assertEquals(List.of(RcOp.SEND, RcOp.FETCH_ADD), RcOp.list("send, fetch-add"));
        assertThrows(IllegalArgumentException.class, () -> RcOp.list("send,ud"));
    }
}
