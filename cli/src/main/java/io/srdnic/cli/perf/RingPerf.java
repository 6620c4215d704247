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
 * perf over a net_ring pair in this JVM: the server side on a thread of its own with port B, the
 * client on the calling thread with port A, each polling its own INVOKER context (or handing work
 * to a DEDICATED one), talking over an in-memory side channel — the same session as two processes.
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
            MemoryChannel[] ch = MemoryChannel.pair();
            SideConfig serverSide = new SideConfig(eal, () -> new PerfPort(link.b(), poolB, false), PerfCommand.SERVER_IP,
                    threading, "ring", false,
                settings, serverCpu);
            SideConfig clientSide = new SideConfig(eal, () -> new PerfPort(link.a(), poolA, false), PerfCommand.CLIENT_IP,
                    threading, "ring", false,
                settings, clientCpu);
            Throwable[] serverFailure = new Throwable[1];
            Thread server = new Thread(() -> {
                eal.registerThread(); // an lcore id, so the mempool cache works on this thread too
                try {
                    PerfSession.server(ch[0], serverSide, p.timeLimitNanos() / 1_000_000);
                } catch (Throwable t) {
                    serverFailure[0] = t;
                    ch[0].send("ERROR " + t.getMessage());
                } finally {
                    ch[0].close();
                    eal.unregisterThread();
                }
            }, "srdnic-perf-server");
            server.start();
            try {
                return PerfSession.client(ch[1], p, clientSide);
            } catch (RuntimeException e) {
                if (serverFailure[0] != null) {
                    e.addSuppressed(serverFailure[0]);
                }
                throw e;
            } finally {
                ch[1].close();
                join(server);
            }
        }
    }

    private static void join(Thread t) {
        try {
            t.join(30_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
