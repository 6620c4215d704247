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
 * perf over a net_ring pair in this JVM ({@link InProcessPerf}): the server side with port B, the
 * client with port A, each polling its own INVOKER context (or handing work to a DEDICATED one).
 * EAL is the process's (started if none is, cleaned up at exit), so runs can follow one another.
 */
final class RingPerf {
    private static final AtomicInteger RUNS = new AtomicInteger();

    private RingPerf() {
    }

    static PerfResult run(PerfParams p, ThreadingMode threading, int memoryMb, Map<String, String> settings, int serverCpu, int clientCpu) {
        Eal eal = Eal.startOrGet(new EalConfig().memoryMb(memoryMb));
        int run = RUNS.getAndIncrement();
        try (RingLink link = RingLink.create(1024);
             MbufPool poolA = MbufPool.create("perfa" + run, PerfPort.POOL_SIZE, PerfPort.FRAME_ROOM);
             MbufPool poolB = MbufPool.create("perfb" + run, PerfPort.POOL_SIZE, PerfPort.FRAME_ROOM)) {
            link.a().configure(PortConfig.DEFAULT, poolA).start();
            link.b().configure(PortConfig.DEFAULT, poolB).start();
            SideConfig serverSide = new SideConfig(eal, () -> new PerfPort(link.b(), poolB, false), PerfCommand.SERVER_IP,
                    threading, "ring", false,
                settings, serverCpu);
            SideConfig clientSide = new SideConfig(eal, () -> new PerfPort(link.a(), poolA, false), PerfCommand.CLIENT_IP,
                    threading, "ring", false,
                settings, clientCpu);
            return InProcessPerf.run(eal, p, serverSide, clientSide);
        }
    }
}
