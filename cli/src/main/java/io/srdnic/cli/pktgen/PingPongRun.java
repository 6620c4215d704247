package io.srdnic.cli.pktgen;

import io.srdnic.pmd.Eal;
import io.srdnic.pmd.EthPort;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.PacketIo;
import java.lang.foreign.Arena;
import java.util.function.BooleanSupplier;

/** The loops that run each side of a raw ping-pong on a port this thread owns (pktgen and perf both use them). */
public final class PingPongRun {
    private PingPongRun() {
    }

    /** Waits until the port's link is up (a memif client until it has connected); throws at the deadline. */
    public static void awaitLink(EthPort port, Eal eal, long deadlineNanos) {
        while (!port.link().up()) {
            if (System.nanoTime() - deadlineNanos > 0 || eal.quitRequested()) {
                throw new IllegalStateException("link of " + port.name() + " never came up: is the other side running?");
            }
            Thread.onSpinWait();
        }
    }

    /** Runs the initiator to the end (or the deadline, or shutdown) and returns its round trips. */
    public static LatencySummary initiate(PingPongInitiator initiator, Eal eal, long deadlineNanos, Progress progress) {
        eal.enterLoop();
        try {
            int spins = 0;
            while (!initiator.done()) {
                initiator.doWork();
                if ((++spins & 0x3FF) == 0) {
                    progress.update(initiator.progress(), initiator.total());
                    if (initiator.progress() >= 8 && initiator.returned() == 0) {
                        throw new IllegalStateException("none of the first " + initiator.progress()
                            + " ping frames came back: does a frame this long cross the link? is the reflector up?");
                    }
                    if (System.nanoTime() - deadlineNanos > 0 || eal.quitRequested()) {
                        throw new IllegalStateException("raw ping-pong did not finish in time: " + initiator.progress()
                                + " round trips done");
                    }
                }
            }
        } finally {
            eal.exitLoop();
        }
        return initiator.summary();
    }

    /** Reflects until {@code stop} says so (checked every few hundred cycles), then frees what is left in the RX queue. */
    public static PingPongReflector reflect(PacketIo io, Arena arena, int runId, Eal eal, BooleanSupplier stop) {
        PingPongReflector reflector = new PingPongReflector(io, arena, runId);
        eal.enterLoop();
        try {
            int spins = 0;
            while (true) {
                reflector.doWork();
                if ((++spins & 0xFF) == 0 && (stop.getAsBoolean() || eal.quitRequested())) {
                    break;
                }
            }
        } finally {
            eal.exitLoop();
        }
        PingPongReflector.drain(io, new MbufBatch(arena));
        return reflector;
    }
}
