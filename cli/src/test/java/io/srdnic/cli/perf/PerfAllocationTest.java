package io.srdnic.cli.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.ThreadMXBean;
import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.ContextConfig;
import io.srdnic.verbs.Device;
import io.srdnic.verbs.SimWorld;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The hot-path rule for perf's agents over RC and SRC (and SRD alike): once warm, a message — posting it,
 * its packets through the transport and the simulated network, its completion, the reply or the
 * repost — allocates nothing (under a byte a message: a one-off growth is let pass). Both sides run in this thread, in virtual time, as on
 * --link sim.
 */
class PerfAllocationTest {

    @TempDir
    Path countersDir;

    /**
     * With counters, the dataplane copies the transport's counts into its counters file every 50
     * virtual µs: that copy allocates nothing either.
     */
    @ParameterizedTest
    @CsvSource({"lat,rc,send,12000,false", "bw,rc,send,12000,false", "lat,rc,write,12000,false", "bw,rc,write,12000,false",
        "lat,rc,read,12000,false", "bw,rc,read,12000,false", "lat,srd,send,64,false", "lat,srd,send,64,true", "bw,rc,send,12000,true",
        "lat,src,send,12000,false", "bw,src,write,12000,false"})
    void shouldNotAllocatePerMessageOnceWarm(String mode, String transport, String op, String size, boolean counters) {
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        PerfParams p = new PerfParams(PerfParams.Mode.valueOf(mode), PerfParams.Op.valueOf(op), PerfParams.Transport.valueOf(transport),
            Integer.parseInt(size), 11000, 0, 0, 2, 32, Long.MAX_VALUE, false, false, 5, Long.MAX_VALUE, false, 0);
        try (SimWorld world = new SimWorld(3, 16, LinkConfig.builder().build())) {
            Context serverCtx = Context.open(Device.sim(world), SideConfig.withSettings(config(31, counters), Map.of()));
            Context clientCtx = Context.open(Device.sim(world), SideConfig.withSettings(config(32, counters), Map.of()));
            assertEquals(counters, clientCtx.countersFile() != null);
            try (PerfEndpoint server = new PerfEndpoint(serverCtx, p, 1, false);
                    PerfEndpoint client = new PerfEndpoint(clientCtx, p, 2, true)) {
                PerfEndpoint.connectInOneThread(server, client, System.nanoTime() + 60_000_000_000L);
                LongSupplier clock = world.network().clock()::now;
                Responder responder = new Responder(server, clock);
                PerfClient agent = p.latency() ? new LatencyClient(client, clock) : new BandwidthClient(client, clock);
                runUntil(agent, responder, 3000);
                long tid = Thread.currentThread().threadId();
                // Three windows of ~2,500 messages: a one-off growth (the reorder buffer's pool, made at an RC QP's first
                // out-of-order packet) lands in one of them; an allocation per message shows in every one.
                long[] perWindow = new long[3];
                long messages = Long.MAX_VALUE;
                for (int w = 0; w < perWindow.length; w++) {
                    long before = threads.getThreadAllocatedBytes(tid);
                    long from = agent.progress();
                    runUntil(agent, responder, 5500 + 2500L * w);
                    perWindow[w] = threads.getThreadAllocatedBytes(tid) - before;
                    messages = Math.min(messages, agent.progress() - from);
                }
                Arrays.sort(perWindow);
                long allocated = perWindow[1];
                assertTrue(messages >= 2000, "traffic flowed: " + messages); // progress moves in bursts of completions
                assertEquals(0, agent.errors(), agent.firstError());
                assertTrue(allocated < messages, "median window: " + allocated + " bytes allocated for " + messages + " messages");
            }
        }
    }

    private ContextConfig config(long seed, boolean counters) {
        ContextConfig config = new ContextConfig().seed(seed);
        return counters ? config.countersDir(countersDir).countersInterval(50_000) : config;
    }

    private static void runUntil(PerfClient agent, Responder responder, long progress) {
        long spins = 0;
        while (agent.progress() < progress && !agent.done()) {
            agent.doWork();
            responder.doWork();
            if (++spins > 50_000_000L) {
                throw new IllegalStateException("stuck at " + agent.progress());
            }
        }
    }
}
