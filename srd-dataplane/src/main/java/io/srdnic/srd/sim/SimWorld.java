package io.srdnic.srd.sim;

import io.srdnic.srd.transport.SrdConfig;
import java.lang.foreign.Arena;

/** What every host of one run shares: the scenario, the transport settings, the ledger, the tallies. */
final class SimWorld {
    final Scenario scenario;
    final SrdConfig config;
    final Arena arena;
    final Ledger ledger;
    final SrdSimulation.Outcome outcome;
    /** Whether some sends are hostile; which kinds this run's sizes allow. */
    final boolean hostile;
    private final byte[] hostileKinds;
    /** Length of a too-long message: longer than any posted receive, within the MTU. */
    final int tooLongLength;
    int nextUid = 1;
    /** Sends completed or orphaned so far. */
    long resolved;

    SimWorld(Scenario scenario, SrdConfig config, Arena arena, SrdSimulation.Outcome outcome) {
        this.scenario = scenario;
        this.config = config;
        this.arena = arena;
        this.outcome = outcome;
        double fraction = scenario.events().hostileFraction();
        this.hostile = fraction > 0;
        int receiveLength = Math.max(8, scenario.size());
        int longer = receiveLength + 1 + (int) Math.floorMod(scenario.seed(), 64L);
        boolean tooLongFits = hostile && longer <= config.mtu();
        this.tooLongLength = tooLongFits ? longer : 0;
        this.hostileKinds = tooLongFits ? new byte[] {Ledger.BAD_QPN, Ledger.BAD_QKEY, Ledger.TOO_LONG, Ledger.RNR}
            : new byte[] {Ledger.BAD_QPN, Ledger.BAD_QKEY, Ledger.RNR};
        this.ledger = new Ledger(scenario.size(), tooLongLength);
    }

    /** What message {@code seq} of {@code sender} is: a function of the seed, so a refused post retries the same. */
    byte kindOf(int sender, long seq) {
        if (!hostile) {
            return Ledger.NORMAL;
        }
        long h = mix(scenario.seed() ^ mix(((long) sender << 40) ^ seq));
        double u = (h >>> 11) * 0x1.0p-53;
        if (u >= scenario.events().hostileFraction()) {
            return Ledger.NORMAL;
        }
        return hostileKinds[(int) Math.floorMod(mix(h), (long) hostileKinds.length)];
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
