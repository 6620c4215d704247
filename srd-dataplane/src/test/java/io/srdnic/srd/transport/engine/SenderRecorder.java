package io.srdnic.srd.transport.engine;

import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.counters.SrdCounters;
import java.util.ArrayList;
import java.util.List;

/** Records what a {@link ReliableSender} does: every transmission (psn, transmission number, time) and each packet given up. */
final class SenderRecorder implements ReliableSender.Listener {
    private static final long US = 1_000;
    private static final long[] NO_SACK = new long[1];

    final List<long[]> emitted = new ArrayList<>();
    final List<Integer> exhausted = new ArrayList<>();

    @Override
    public void emit(ReliableSender flow, int psn, int owner, int segment, int path, int xmit, long now) {
        emitted.add(new long[] {psn, xmit, now});
    }

    @Override
    public void acked(ReliableSender flow, int psn, int owner, int segment) {
    }

    @Override
    public void exhausted(ReliableSender flow, int psn, int owner, long now) {
        exhausted.add(psn);
        flow.forget(psn);
    }

    long retransmissionsOf(int psn) {
        return emitted.stream().filter(e -> e[0] == psn && e[1] > 1).count();
    }

    long retransmissions() {
        return emitted.stream().filter(e -> e[1] > 1).count();
    }

    /** A sender with the default configuration over {@code paths} paths, its window allocated, starting at PSN 100 at time 0. */
    static ReliableSender newSender(SrdCounters counters, int paths) {
        ReliableSender s = new ReliableSender(0, new TransportConfig(), counters, paths);
        s.ensureWindow();
        s.reset(100, 0);
        return s;
    }

    /**
     * Warms {@code sender} up: {@code packets} packets one at a time from time 0, 20 us apart, each
     * acknowledged 10 us after it left (the RTO at its 50 us floor, the window grown from its start).
     */
    static void warmUp(ReliableSender sender, ReliableSender.Listener listener, int packets) {
        long t = 0;
        for (int i = 0; i < packets; i++, t += 20 * US) {
            int psn = sender.send(i, 0, t, listener);
            sender.onAckTiming(psn, t, t + 10 * US, Long.MAX_VALUE);
            sender.onAcknowledged(psn + 1, NO_SACK, listener);
            sender.advanceSendBase();
        }
    }
}
