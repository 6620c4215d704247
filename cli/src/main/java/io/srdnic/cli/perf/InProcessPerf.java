package io.srdnic.cli.perf;

import io.srdnic.pmd.Eal;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Both sides of a run in this JVM: the serving side on a thread of its own, the leading side on the
 * calling thread, each polling its own context on its own port, talking over an in-memory side
 * channel — the same session as two processes. For the links whose two ends one process can hold
 * (net_ring, net_tap), for perf and the adversary alike.
 */
final class InProcessPerf {
    private InProcessPerf() {
    }

    /** perf: the server on a thread, the client here. */
    static PerfResult run(Eal eal, PerfParams p, SideConfig serverSide, SideConfig clientSide) {
        return run(eal, "srdnic-perf-server", ch -> PerfSession.server(ch, serverSide, p.timeLimitNanos() / 1_000_000),
            ch -> PerfSession.client(ch, p, clientSide));
    }

    /**
     * Runs {@code serving} on a thread named {@code thread} and {@code leading} on this one, each with
     * its end of one side channel; a side that fails tells the other with an ERROR line, and the
     * serving side's failure is added to the leading side's. Returns what the leading side returns.
     */
    static <R> R run(Eal eal, String thread, Consumer<MemoryChannel> serving, Function<MemoryChannel, R> leading) {
        MemoryChannel[] ch = MemoryChannel.pair();
        Throwable[] servingFailure = new Throwable[1];
        Thread server = new Thread(() -> {
            eal.registerThread(); // an lcore id, so the mempool cache works on this thread too
            try {
                serving.accept(ch[0]);
            } catch (Throwable t) {
                servingFailure[0] = t;
                ch[0].send("ERROR " + t.getMessage());
            } finally {
                ch[0].close();
                eal.unregisterThread();
            }
        }, thread);
        server.start();
        try {
            return leading.apply(ch[1]);
        } catch (RuntimeException e) {
            ch[1].send("ERROR " + e.getMessage());
            if (servingFailure[0] != null) {
                e.addSuppressed(servingFailure[0]);
            }
            throw e;
        } finally {
            ch[1].close();
            join(server);
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
