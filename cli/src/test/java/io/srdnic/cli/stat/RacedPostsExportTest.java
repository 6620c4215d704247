package io.srdnic.cli.stat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.sim.SimNetwork;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.counters.Counter;
import io.srdnic.verbs.Access;
import io.srdnic.verbs.CompletionQueue;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.ContextConfig;
import io.srdnic.verbs.Device;
import io.srdnic.verbs.MemoryRegion;
import io.srdnic.verbs.ProtectionDomain;
import io.srdnic.verbs.QpInitAttributes;
import io.srdnic.verbs.QueuePair;
import io.srdnic.verbs.RecvWr;
import io.srdnic.verbs.SimWorld;
import io.srdnic.verbs.ThreadingMode;
import io.srdnic.verbs.VerbsException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A DEDICATED context's receives that a modify to RESET overtook (posted to the ring, then the
 * modify ran on the dataplane's thread before the ring was drained: dropped, as RESET drops
 * receives) are counted in its counters file, read by {@code srdnic stat}'s reader, and served to
 * Prometheus as a {@code _total} counter that promtool accepts.
 */
class RacedPostsExportTest {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    private static final int QKEY = 0x11111111;

    @TempDir
    Path dir;

    @Test
    void shouldExportReceivesARaceWithResetDroppedToStatAndPrometheus() throws Exception {
        try (SimNetwork network = new SimNetwork(26);
             Context ctx = Context.open(Device.of("raced", network.addHost(SimWorld.macOf(1)), System::nanoTime),
                 new ContextConfig().mode(ThreadingMode.DEDICATED).countersDir(dir).countersInterval(100_000))) {
            ProtectionDomain pd = ctx.allocPd();
            CompletionQueue cq = ctx.createCq(64);
            QueuePair qp = pd.createQueuePair(QpInitAttributes.builder(QpType.SRD).cq(cq).maxSendWr(4).maxRecvWr(256).build());
            MemoryRegion mr = pd.allocateRegion(4096, Access.LOCAL_WRITE);
            // One thread posts receives while this one moves the QP between INIT and RESET. A modify
            // takes the posts made before it first, so a receive is dropped only when the RESET runs
            // between the poster's check of the state (INIT) and its publishing the receive to the ring:
            // the race the counter counts. Repeated until it has happened (or 30 s).
            AtomicBoolean stop = new AtomicBoolean();
            Thread poster = Thread.ofPlatform().name("poster").start(() -> {
                RecvWr r = new RecvWr();
                r.sge().set(mr, 0, 4096);
                for (long i = 0; !stop.get(); i++) {
                    try {
                        qp.postRecv(r.wrId(i)); // ENOMEM when full: what matters is the ones checked in INIT
                    } catch (VerbsException inReset) {
                        // refused on this thread: the QP was in RESET when it checked
                    }
                }
            });
            long raced = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            try {
                for (int round = 0; raced == 0 && System.nanoTime() < deadline; round++) {
                    qp.modify(QpState.INIT, QKEY);
                    qp.modify(QpState.RESET, 0);
                    if (round % 64 == 63) {
                        raced = racedPosts();
                    }
                }
            } finally {
                stop.set(true);
                poster.join();
            }
            assertTrue(raced > 0, "receives dropped by a race with RESET, read through srdnic stat's reader: " + raced);
            try (MetricsEndpoint endpoint = MetricsEndpoint.start(new CountersDirectory(dir, null), 0)) {
                String body = MetricsEndpointTest.scrape(endpoint.port());
                String series = "srdnic_recv_posts_raced_reset_total{device=\"raced\"}";
                assertTrue(MetricsEndpointTest.value(body, series) >= raced, body);
                assertTrue(body.contains("# TYPE srdnic_recv_posts_raced_reset_total counter"), body);
                if (Files.isExecutable(Path.of("/usr/bin/promtool"))) { // CI installs it (scripts/setup); StatPrometheusIT requires it
                    Process promtool = new ProcessBuilder("promtool", "check", "metrics").redirectErrorStream(true).start();
                    promtool.getOutputStream().write(body.getBytes(StandardCharsets.UTF_8));
                    promtool.getOutputStream().close();
                    assertTrue(promtool.waitFor(60, TimeUnit.SECONDS));
                    String verdict = new String(promtool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                    assertEquals(0, promtool.exitValue(), "promtool check metrics:\n" + verdict + "\non:\n" + body);
                }
            }
        }
    }

    /** The count in the context's live counters file, as {@code srdnic stat} reads it (0 while not there). */
    private long racedPosts() {
        for (CountersDirectory.FileSnapshot f : new CountersDirectory(dir, null).read()) {
            for (Counter c : f.counters()) {
                if (c.name().equals("recv_posts_raced_reset") && c.scope().equals("device=raced")) {
                    return c.value();
                }
            }
        }
        return 0;
    }
}
