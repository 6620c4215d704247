package io.srdnic.srd.sim;

import io.srdnic.pmd.sim.SimNetwork;
import io.srdnic.srd.api.TransportConfig;
import java.lang.foreign.Arena;

/** What every host of one run shares: the scenario, the transport settings, the ledger, the tallies. */
final class SimWorld {
    final Scenario scenario;
    final TransportConfig config;
    final Arena arena;
    final Ledger ledger;
    final SrdSimulation.Outcome outcome;
    /** Whether some sends are hostile; which kinds this run's sizes allow. */
    final boolean hostile;
    private final byte[] hostileKinds;
    /** Length of a too-long message: longer than any posted receive, within the MTU. */
    final int tooLongLength;
    /** Whether every host needs a QP without receives (RNR sends, hostile or asked for by {@code --ops rnr}). */
    final boolean sinks;
    /** Whether every host needs a UD QP ({@code --ops ud}). */
    final boolean datagrams;
    /**
     * What the RDMA operations must leave in memory, when the run has any ({@code --ops rdma-*};
     * the hosts then register a region); else null.
     */
    final RdmaChecks rdma;
    /** The network the hosts are on: whose stall schedule ({@code --host-stalls}) says when a host's thread runs. */
    SimNetwork network;
    int nextUid = 1;
    /** Sends completed or orphaned so far. */
    long resolved;

    SimWorld(Scenario scenario, TransportConfig config, Arena arena, SrdSimulation.Outcome outcome) {
        this.scenario = scenario;
        this.config = config;
        this.arena = arena;
        this.outcome = outcome;
        double fraction = scenario.events().hostileFraction();
        this.hostile = fraction > 0;
        int receiveLength = Math.max(8, scenario.size());
        int longer = receiveLength + 1 + (int) Math.floorMod(scenario.seed(), 64L);
        boolean tooLongFits = hostile && longer <= config.mtu();
        boolean tooLongAsked = scenario.ops().contains(SimOp.TOO_LONG);
        if (tooLongAsked && receiveLength >= config.mtu()) {
            // A message longer than the receives must still fit one packet: SRD does not segment.
            throw new IllegalArgumentException("--ops too-long needs --size below the SRD MTU " + config.mtu()
                + ": its messages are longer than the receives posted for --size, and must fit one packet");
        }
        // Asked for, it is as long as the hostile one would be, or as long as the MTU allows.
        this.tooLongLength = tooLongFits ? longer : tooLongAsked ? Math.min(longer, config.mtu()) : 0;
        this.hostileKinds = tooLongFits ? new byte[] {Ledger.BAD_QPN, Ledger.BAD_QKEY, Ledger.TOO_LONG, Ledger.RNR}
            : new byte[] {Ledger.BAD_QPN, Ledger.BAD_QKEY, Ledger.RNR};
        this.sinks = hostile || scenario.ops().contains(SimOp.RNR);
        this.datagrams = scenario.ops().contains(SimOp.UD);
        this.ledger = new Ledger(scenario.size(), tooLongLength);
        this.rdma = scenario.ops().stream().anyMatch(SimOp::isRdma) ? new RdmaChecks(ledger, scenario) : null;
    }

    /**
     * What message {@code seq} of {@code sender} is: its operation ({@link Scenario#op}) unless the
     * hostile draw, a function of the seed, makes it hostile; so a refused post retries the same.
     */
    byte kindOf(int sender, long seq) {
        byte asked = scenario.op(seq).kind();
        if (!hostile) {
            return asked;
        }
        long h = mix(scenario.seed() ^ mix(((long) sender << 40) ^ seq));
        double u = (h >>> 11) * 0x1.0p-53;
        if (u >= scenario.events().hostileFraction()) {
            return asked;
        }
        return hostileKinds[(int) Math.floorMod(mix(h), (long) hostileKinds.length)];
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
