package io.srdnic.cli.perf;

import io.srdnic.pmd.Eal;
import io.srdnic.pmd.EalConfig;
import io.srdnic.pmd.MbufPool;
import io.srdnic.pmd.PortConfig;
import io.srdnic.pmd.RingLink;
import io.srdnic.verbs.ThreadingMode;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An adversary run over a net_ring pair in this JVM, as {@link RingPerf} runs perf: the peer on a
 * thread of its own with port B, the victim on the calling thread with port A, over an in-memory
 * side channel. The attacker's frames enter the victim's port A through its injecting decorator.
 */
final class AdversaryRing {
    private static final AtomicInteger RUNS = new AtomicInteger();

    private AdversaryRing() {
    }

    static AdversaryReport run(AdversaryParams p, AdversarySession.AttackPlan plan, int memoryMb, Map<String, String> settings,
                               int peerCpu, int victimCpu) {
        Eal eal = Eal.startOrGet(new EalConfig().memoryMb(memoryMb));
        int run = RUNS.getAndIncrement();
        try (RingLink link = RingLink.create(1024);
             MbufPool poolA = MbufPool.create("adva" + run, PerfPort.POOL_SIZE, PerfPort.FRAME_ROOM);
             MbufPool poolB = MbufPool.create("advb" + run, PerfPort.POOL_SIZE, PerfPort.FRAME_ROOM)) {
            link.a().configure(PortConfig.DEFAULT, poolA).start();
            link.b().configure(PortConfig.DEFAULT, poolB).start();
            SideConfig peerSide = new SideConfig(eal, () -> new PerfPort(link.b(), poolB, false), PerfCommand.SERVER_IP,
                    ThreadingMode.INVOKER,
                "ring", false, settings, peerCpu);
            SideConfig victimSide = new SideConfig(eal, () -> new PerfPort(link.a(), poolA, false), PerfCommand.CLIENT_IP,
                    ThreadingMode.INVOKER,
                "ring", false, settings, victimCpu);
            long acceptTimeoutMillis = p.timeLimitNanos() / 1_000_000;
            return InProcessPerf.run(eal, "srdnic-adversary-peer", ch -> AdversarySession.peer(ch, peerSide, acceptTimeoutMillis),
                ch -> AdversarySession.victim(ch, p, victimSide, plan));
        }
    }
}
