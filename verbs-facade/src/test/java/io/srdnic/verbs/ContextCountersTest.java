package io.srdnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.counters.Counter;
import io.srdnic.srd.counters.CountersReader;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ContextConfig.countersDir: the transport's counts, its peers', paths' and QPs', published in a file as the context runs. */
class ContextCountersTest {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    @TempDir
    Path dir;

    @Test
    void shouldPublishWhatTheTransportCountedUntilItCloses() {
        LinkConfig lossy = LinkConfig.builder().lossProbability(0.05).build();
        try (SimWorld w = new SimWorld(7, 16, lossy)) {
            ContextConfig config = new ContextConfig().countersDir(dir).countersInterval(100_000);
            VerbsPair p = new VerbsPair(Context.open(Device.sim(w), config), Context.open(Device.sim(w), config), QpType.SRD, 600, 64);
            Path fileA = p.a.countersFile();
            assertNotNull(fileA);
            int messages = 500;
            SendWr wr = new SendWr().destination(p.sa.toPeer, p.sb.qp.qpNum(), VerbsPair.QKEY).numSge(1);
            wr.sge(0).set(p.sa.mr, 0, 64);
            for (int i = 0; i < messages; i++) {
                assertEquals(0, p.sa.qp.postSend(wr.wrId(i)));
                if (i % 64 == 63) {
                    assertEquals(64, VerbsPair.await(p.sa.cq, CompletionQueue.array(64), 64));
                }
            }
            assertEquals(messages % 64, VerbsPair.await(p.sa.cq, CompletionQueue.array(64), messages % 64));
            assertEquals(messages, VerbsPair.await(p.sb.cq, CompletionQueue.array(messages), messages));
            try (CountersReader live = CountersReader.open(fileA).orElseThrow()) {
                assertEquals("live", live.status());
                Map<String, Counter> byLabel = live.counters().stream().collect(Collectors.toMap(Counter::label, c -> c));
                String device = "device=" + p.a.device.name;
                assertTrue(byLabel.containsKey(device + " duty_cycles"), byLabel.keySet().toString());
                String peer = device + ",peer=" + ipv4(p.b.ip()) + ":" + p.b.udpPort();
                assertTrue(byLabel.get(peer + " peer_tx_packets").value() >= messages - 64, "the peer's counts, published on the way");
                assertTrue(byLabel.containsKey(peer + ",path=15 path_tx_packets"), "each of the 16 paths");
                assertTrue(byLabel.containsKey(device + ",qp=" + p.sa.qp.qpNum() + ",type=srd qp_sends_outstanding"));
            }
            Map<String, Long> reported = p.a.counters();
            p.close();
            try (CountersReader after = CountersReader.open(fileA).orElseThrow()) {
                assertEquals("closed", after.status());
                Map<String, Long> published = after.counters().stream().filter(c -> c.scope().equals("device=" + p.a.device.name))
                    .collect(Collectors.toMap(Counter::name, Counter::value));
                reported.forEach((name, value) -> assertEquals(value, published.get(name), name));
                assertTrue(published.get("tx_retransmits") > 0, "5% loss: retransmissions counted");
                assertTrue(published.get("tx_data") >= messages, "every message went out");
            }
        }
    }

    @Test
    void shouldFreeTheCountersOfWhatIsGone() {
        try (SimWorld w = new SimWorld(3)) {
            ContextConfig config = new ContextConfig().countersDir(dir).countersInterval(100_000);
            VerbsPair p = new VerbsPair(Context.open(Device.sim(w), config), Context.open(Device.sim(w), config), QpType.SRD, 64, 64);
            SendWr wr = new SendWr().wrId(1).destination(p.sa.toPeer, p.sb.qp.qpNum(), VerbsPair.QKEY).numSge(1);
            wr.sge(0).set(p.sa.mr, 0, 64);
            try (CountersReader r = CountersReader.open(p.a.countersFile()).orElseThrow()) {
                // Virtual time moves with the traffic (the world jumps from event to event): send until an export has run.
                for (int i = 0; i < 60 && !names(r).contains("peer_tx_packets"); i++) {
                    assertEquals(0, p.sa.qp.postSend(wr));
                    assertEquals(1, VerbsPair.await(p.sa.cq, CompletionQueue.array(1), 1));
                }
                assertTrue(names(r).contains("peer_tx_packets"), "the context to B has counters: " + names(r));
                assertTrue(names(r).contains("qp_state"), "and the QP");
                p.sa.qp.destroy();
                // Idle, the world jumps to A's next deadline: the reclaim of its context, idle for idle-context (1 s).
                long end = p.a.now() + 2_000_000_000L;
                while (p.a.now() - end < 0) {
                    p.a.progress();
                }
                p.a.progress();
                assertEquals(0, r.counters().stream().filter(c -> c.name().equals("contexts")).findFirst().orElseThrow().value());
                assertTrue(!names(r).contains("qp_state"), "a destroyed QP's counters go with it: " + names(r));
                assertTrue(!names(r).contains("peer_tx_packets") && !names(r).contains("path_srtt_ns"), "a reclaimed context's too");
            }
            p.close();
        }
    }

    private static Set<String> names(CountersReader r) {
        return r.counters().stream().map(Counter::name).collect(Collectors.toSet());
    }

    @Test
    void shouldPublishLiveFromADedicatedDataplaneThread() throws Exception {
        ContextConfig config = new ContextConfig().mode(ThreadingMode.DEDICATED).countersDir(dir).countersInterval(1_000_000);
        try (Context ctx = Context.open(Device.of("silent", new SilentPort(), System::nanoTime), config);
             CountersReader r = CountersReader.open(ctx.countersFile()).orElseThrow()) {
            long before = cycles(r);
            long heartbeat = r.heartbeatMillis();
            Thread.sleep(50);
            assertTrue(cycles(r) > before, "the agent's duty cycles counted and published as they run");
            assertTrue(r.heartbeatMillis() > heartbeat, "and the heartbeat with them");
            assertTrue(r.counters().stream().anyMatch(c -> c.name().equals("post_ring_backlog_max")), "DEDICATED has a post ring");
        }
    }

    /** A port where nothing arrives and nothing can be sent: the loop spins idle. */
    @Test
    void shouldWriteNoFileUnlessAsked() {
        try (SimWorld w = new SimWorld(1); Context ctx = Context.open(Device.sim(w), new ContextConfig())) {
            assertNull(ctx.countersFile());
        }
    }

    private static long cycles(CountersReader r) {
        List<Counter> cs = r.counters();
        return cs.stream().filter(c -> c.name().equals("duty_cycles")).findFirst().orElseThrow().value();
    }

    private static String ipv4(int ip) {
        return (ip >>> 24) + "." + ((ip >>> 16) & 0xFF) + "." + ((ip >>> 8) & 0xFF) + "." + (ip & 0xFF);
    }
}
