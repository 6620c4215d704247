package io.srdnic.cli.perf;

import io.srdnic.cli.pktgen.Progress;
import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.ContextConfig;
import io.srdnic.verbs.Device;
import io.srdnic.verbs.SimWorld;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * perf on a simulated network: both sides in one thread on one {@link SimWorld}, in virtual time
 * (every poll runs every context's duty cycle; when none has work the clock jumps to the next
 * event). Times are virtual microseconds: what the transport and the simulated links cost, not
 * what this machine's CPU does. No raw ping-pong: there is no DPDK link.
 */
final class SimPerf {
    private SimPerf() {
    }

    static PerfResult run(PerfParams p, long seed, double loss, Map<String, String> settings) {
        LinkConfig fabric = LinkConfig.builder().lossProbability(loss).build();
        try (SimWorld world = new SimWorld(seed, 16, fabric)) {
            Context serverCtx = Context.open(Device.sim(world), SideConfig.withSettings(new ContextConfig().seed(seed * 31 + 1), settings));
            Context clientCtx = Context.open(Device.sim(world), SideConfig.withSettings(new ContextConfig().seed(seed * 31 + 2), settings));
            try (PerfEndpoint server = new PerfEndpoint(serverCtx, p, 0x5352_4453, false);
                 PerfEndpoint client = new PerfEndpoint(clientCtx, p, 0x5352_4443, true)) {
                PerfEndpoint.connectInOneThread(server, client, System.nanoTime() + p.timeLimitNanos());
                LongSupplier clock = world.network().clock()::now;
                Responder responder = new Responder(server, clock);
                PerfClient agent = p.latency() ? new LatencyClient(client, clock) : new BandwidthClient(client, clock);
                Progress progress = new Progress("perf " + p.mode() + " " + p.transport() + " (sim)", p.total());
                long deadline = System.nanoTime() + p.timeLimitNanos();
                int spins = 0;
                while (!agent.done()) {
                    agent.doWork();
                    responder.doWork();
                    if ((++spins & 0x3FF) == 0) {
                        progress.update(agent.progress(), agent.total());
                        if (agent.errors() > 0) {
                            throw new IllegalStateException("a completion failed with " + agent.firstError() + " after " + agent.progress()
                                + " of " + p.total());
                        }
                        if (responder.errors() > 0) { // a reply that failed (an RC QP gone to ERROR) would leave the client waiting
                            throw new IllegalStateException("a completion failed at the server with " + responder.firstError() + " after "
                                + agent.progress() + " of " + p.total());
                        }
                        if (System.nanoTime() - deadline > 0) {
                            throw new IllegalStateException("perf did not finish within its time limit: " + agent.progress() + " of "
                                + agent.total() + " done" + (agent.errors() > 0 ? ", first error " + agent.firstError() : ""));
                        }
                    }
                }
                // Stragglers: until everything sent has arrived, or a virtual millisecond passes with nothing.
                long quietSince = clock.getAsLong();
                while (responder.awaiting(agent.sent()) && clock.getAsLong() - quietSince < 1_000_000L) {
                    if (responder.doWork() > 0) {
                        quietSince = clock.getAsLong();
                    }
                }
                ServerCounts counts = ServerCounts.parse(responder.resultLine());
                return PerfSession.result(p, "sim", "INVOKER", null, true, agent, null, counts, client.checkPayload(),
                    p.stats() ? PerfSession.statsLines("client", clientCtx) : List.of());
            }
        }
    }
}
