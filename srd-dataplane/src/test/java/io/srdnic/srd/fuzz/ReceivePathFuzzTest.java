package io.srdnic.srd.fuzz;

import static io.srdnic.srd.fuzz.FuzzWorld.VICTIM;
import static io.srdnic.srd.fuzz.HostileFabric.MS;
import static io.srdnic.srd.fuzz.HostileFabric.US;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.wire.PacketType;
import io.srdnic.srd.wire.SrdHeader;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;

/**
 * The whole receive path under attack: a live {@link io.srdnic.srd.transport.device.TransportDevice} (the
 * victim) talking SRD to two honest peers on the simulated network, with contexts established by
 * real messages and legitimate messages in flight both ways, receives frames the fuzzer makes
 * ({@link Forger}), through an {@link io.srdnic.pmd.fault.InjectingPacketIo} over its real port.
 * Between frames the fuzzer lets virtual time pass, posts more legitimate messages, and kills or
 * revives fabric paths (so that a lie in a forged ACK cannot be rescued by the real packet arriving
 * anyway); some frames are garbage, some have one byte flipped after their checksums were made.
 * <p>
 * After every duty cycle the state is checked against its bounds ({@link HostileFabric}); once the
 * attack stops and the legitimate traffic has run to completion, the truthful-completion and
 * no-forged-delivery invariants ({@link Ledger}) and that nothing leaked. A broken invariant is a
 * {@link Violation}; an exception out of the transport is a finding as it stands. The transports
 * are new for every input, on a simulated network that outlives them ({@link FuzzWorld}).
 */
class ReceivePathFuzzTest {
    private static final FuzzRun RUN = new FuzzRun("ReceivePathFuzzTest");
    static final boolean TRACE = HostileFabric.TRACE;
    /**
     * -Dsrdnic.fuzz.withoutForgeries=true replays an input with every forged frame left out (the
     * rest — legitimate sends, time, dead paths — as it was): a finding that then passes is the
     * forged frames' doing, not the harness's or the network's.
     */
    static final boolean WITHOUT_FORGERIES = Boolean.getBoolean("srdnic.fuzz.withoutForgeries");
    static final int MAX_ACTIONS = 64;
    static final int A = 1;
    static final int B = 2;

    @AfterAll
    static void report() {
        RUN.report();
    }

    @FuzzTest(maxDuration = "6s")
    void hostileFramesNeverBreakTheTransport(FuzzedDataProvider data) {
        RUN.count();
        try (HostileFabric fabric = new HostileFabric()) {
            new Attack(fabric, data).run();
        }
    }

    /** One input's attack: warm-up, fuzzer-chosen actions, then the legitimate traffic to completion. */
    static final class Attack {
        private final HostileFabric f;
        private final FuzzedDataProvider data;
        private final Sniffer s;
        private final Forger forger;
        private final byte[] frame;
        private final ArrayDeque<Recent> recent = new ArrayDeque<>();

        Attack(HostileFabric fabric, FuzzedDataProvider data) {
            this.f = fabric;
            this.data = data;
            this.s = fabric.world.victimSniffer;
            this.forger = new Forger(fabric, data);
            this.frame = forger.frame;
        }

        void run() {
            // Live contexts both ways with both peers, by real messages.
            f.send(A, VICTIM, 64, false);
            f.send(VICTIM, A, 64, true);
            f.send(B, VICTIM, 32, false);
            f.send(VICTIM, B, 32, false);
            boolean warm = f.runUntil(f.ledger::allSendsCompleted, 20 * MS);
            if (!warm || f.ledger.sendStatus.values().stream().anyMatch(st -> st != WcStatus.SUCCESS)) {
                throw new IllegalStateException("harness: the warm-up messages did not all complete SUCCESS: " + f.ledger.sendStatus);
            }
            // Legitimate messages in flight while the attack starts.
            for (int k = 0; k < 2; k++) {
                f.send(A, VICTIM, 8 + 40 * k, k == 1);
                f.send(VICTIM, A, 100, false);
                f.send(B, VICTIM, 200, false);
                f.send(VICTIM, B, 16, true);
            }
            try {
                for (int i = 0; i < MAX_ACTIONS && data.remainingBytes() > 0; i++) {
                    act(data.consumeInt(0, 15));
                    f.tick(20 * US);
                }
                for (int p = 0; p < f.network.pathCount(); p++) {
                    f.network.blackhole(p, false);
                }
                f.runUntil(f.ledger::allSendsCompleted, 500 * MS);
                f.runFor(5 * MS);
                f.runUntil(() -> f.network.inFlight() == 0, 5 * MS);
                f.tick(1);
                f.drainDeliveries();
                f.checkQuiet();
                if (TRACE) {
                    note("victim's counters (non-zero): " + nonZero(f.hosts[VICTIM].counters().snapshot()) + ", forged deliveries "
                        + f.ledger.forgedDeliveries);
                }
            } catch (RuntimeException | AssertionError e) {
                String what = e instanceof Violation ? e.getMessage()
                    : "RECEIVE-PATH VIOLATION: an exception escaped the transport: " + e;
                throw new AssertionError(what + "\nlast forged frames (newest last; victim 10.0.0.1, peers 10.0.0.2 and 10.0.0.3):\n"
                    + recent.stream().map(Recent::toString).collect(Collectors.joining("\n")), e);
            }
        }

        private void act(int action) {
            if (TRACE && action >= 10 && action <= 12) {
                note("action " + (action == 10 ? "legitimate send" : action == 11 ? "time passes" : "blackhole toggle"));
            }
            switch (action) {
                case 8 -> {
                    int n = data.consumeInt(2, 16);
                    for (int i = 0; i < n; i++) {
                        inject(forger.forge(i + 1));
                    }
                }
                case 9 -> {
                    byte[] garbage = data.consumeBytes(data.consumeInt(0, 200));
                    remember("garbage", garbage, garbage.length);
                    if (!WITHOUT_FORGERIES) {
                        f.inject(garbage, garbage.length);
                    }
                }
                case 10 -> {
                    int direction = data.consumeInt(0, 3);
                    int from = direction % 2 == 0 ? (direction == 0 ? A : B) : VICTIM;
                    int to = direction % 2 == 0 ? VICTIM : (direction == 1 ? A : B);
                    f.send(from, to, data.consumeInt(8, Ledger.SLOT), data.consumeBoolean());
                }
                case 11 -> {
                    long nanos = data.consumeInt(1, 3000) * US;
                    if (TRACE) {
                        note("  for " + nanos + " ns");
                    }
                    f.runFor(nanos);
                }
                case 12 -> {
                    int path = data.consumeInt(0, f.network.pathCount() - 1);
                    f.network.blackhole(path, !f.network.isBlackholed(path));
                    if (TRACE) {
                        note("  path " + path + (f.network.isBlackholed(path) ? " dead" : " alive"));
                    }
                }
                case 13 -> {
                    int length = forger.forge(0);
                    if (length > 0) {
                        frame[data.consumeInt(0, length - 1)] ^= (byte) data.consumeInt(1, 255); // one bad byte, checksums not repaired
                    }
                    inject(length);
                }
                default -> inject(forger.forge(0));
            }
        }

        private void inject(int length) {
            remember("forged", frame, length);
            bookPerfectForgery(length);
            if (!WITHOUT_FORGERIES) {
                f.inject(frame, length);
            }
        }

        /** Tells the ledger about a forged frame the victim cannot tell from its peer's own (see {@link Ledger#perfectData}). */
        private void bookPerfectForgery(int length) {
            int type = FuzzFrames.referenceParse(frame, length, 1, FuzzFrames.PORT, FuzzFrames.MTU);
            int srcIp = FuzzFrames.s32(frame, FuzzFrames.IP_SRC);
            int peer = srcIp == FuzzWorld.ip(A) ? A : srcIp == FuzzWorld.ip(B) ? B : 0;
            if (type <= 0 || peer == 0 || FuzzFrames.s32(frame, FuzzFrames.IP_DST) != FuzzWorld.ip(VICTIM)) {
                return;
            }
            int srd = FuzzFrames.SRD;
            if (PacketType.isData(type) && (frame[srd + 1] & SrdHeader.FLAG_UNRELIABLE) == 0) {
                if (FuzzFrames.s32(frame, srd + 4) == s.peerContext[peer] && FuzzFrames.s32(frame, srd + 12) == s.peerEpoch[peer]) {
                    f.ledger.perfectData(peer, FuzzFrames.s32(frame, srd + 16), FuzzFrames.s32(frame, srd + 20));
                }
            } else if (type == PacketType.ACK && FuzzFrames.s32(frame, srd + 8) == s.victimContext[peer]
                && FuzzFrames.s32(frame, srd + 20) == HostileFabric.epoch(VICTIM)) {
                long[] sack = new long[4];
                for (int w = 0; w < 4; w++) {
                    sack[w] = FuzzFrames.s64(frame, srd + 40 + 8 * w);
                }
                f.ledger.perfectAck(peer, FuzzFrames.s32(frame, srd + 16), sack, s.victimMaxPsn[peer]);
            }
        }

        private void remember(String what, byte[] bytes, int length) {
            if (TRACE) {
                note(what + ": " + FuzzFrames.describe(bytes, length));
            }
            if (recent.size() == 8) {
                recent.removeFirst();
            }
            recent.addLast(new Recent(f.now() - f.start, what, Arrays.copyOf(bytes, length)));   // described only on failure
        }

        /** A frame injected lately, for the failure message. */
        record Recent(long at, String what, byte[] bytes) {
            @Override
            public String toString() {
                return "  t=" + at + " ns " + what + ": " + FuzzFrames.describe(bytes, bytes.length) + "\n    "
                    + HexFormat.of().formatHex(bytes, 0, Math.min(bytes.length, 160));
            }
        }

        private static String nonZero(Map<String, Long> counters) {
            return counters.entrySet().stream().filter(e -> e.getValue() != 0).map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining(" "));
        }

        private void note(String what) {
            f.trace(what);
        }
    }
}
