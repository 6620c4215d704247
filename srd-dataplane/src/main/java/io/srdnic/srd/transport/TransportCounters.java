package io.srdnic.srd.transport;

import static io.srdnic.srd.counters.CountersLayout.COUNTER;
import static io.srdnic.srd.counters.CountersLayout.GAUGE;

import io.srdnic.srd.counters.CountersWriter;
import io.srdnic.srd.transport.engine.PathSet;
import io.srdnic.srd.transport.engine.ReliableSender;

/**
 * Publishes a transport's own counts into a counters file: the device's {@link SrdCounters}, each
 * SRD context's (one per remote device) and its paths', and each QP's. It counts nothing itself:
 * {@link #export} copies what the transport already keeps, on the transport's thread, at whatever
 * pace its caller chooses (the duty cycle, every few milliseconds), so the per-packet path is
 * unchanged. Allocates only when a context or QP appears or goes (its counters' labels).
 */
public final class TransportCounters {
    private static final String[] PEER_NAMES = {"peer_tx_packets", "peer_retransmits", "peer_rto_events", "peer_rack_losses",
        "peer_rx_packets", "peer_duplicates", "peer_delivered", "peer_drops", "peer_srtt_ns", "peer_cwnd_packets", "peer_inflight"};
    private static final int PEER_GAUGES = 3;
    private static final String[] PATH_NAMES = {"path_tx_packets", "path_losses", "path_rto_events", "path_srtt_ns", "path_healthy"};
    private static final int PATH_GAUGES = 2;
    private static final String[] QP_NAMES = {"qp_rnr_drops", "qp_state", "qp_sends_outstanding", "qp_receives_posted"};
    private static final int QP_GAUGES = 3;

    private final SrdTransport transport;
    private final CountersWriter writer;
    private final String scope;
    private final long[] device = new long[SrdCounters.count()];
    private final int[] deviceIds;
    private final int txDroppedId;
    private final int contextsId;

    /** Per context slot: the flow and context id its counters were made for, and their ids (null: none). */
    private final long[] peerFlow;
    private final int[] peerContextId;
    private final int[][] peerIds;
    /** Context slots whose counters exist, and whether this export saw them live. */
    private final int[] exported;
    private int exportedCount;
    private final boolean[] seen;

    /** Per QP slot: the QP its counters were made for, and their ids. */
    private final SrdQp[] qpOf;
    private final int[][] qpIds;

    /** Allocates the device's counters in {@code writer} under {@code scope} (e.g. {@code device=sim-1}). */
    public TransportCounters(SrdTransport transport, CountersWriter writer, String scope) {
        this.transport = transport;
        this.writer = writer;
        this.scope = scope;
        String[] names = SrdCounters.names();
        deviceIds = new int[names.length];
        for (int i = 0; i < names.length; i++) {
            deviceIds[i] = writer.allocate(COUNTER, scope + " " + names[i], 0);
        }
        txDroppedId = writer.allocate(COUNTER, scope + " port_tx_dropped", 0);
        contextsId = writer.allocate(GAUGE, scope + " contexts", 0);
        int slots = transport.config().maxContexts;
        peerFlow = new long[slots];
        peerContextId = new int[slots];
        peerIds = new int[slots][];
        exported = new int[slots];
        seen = new boolean[slots];
        qpOf = new SrdQp[transport.qpIndexMask() + 1];
        qpIds = new int[qpOf.length][];
    }

    /** Copies every count into the file; on the transport's thread. */
    public void export() {
        transport.counters.copyInto(device);
        for (int i = 0; i < deviceIds.length; i++) {
            writer.set(deviceIds[i], device[i]);
        }
        writer.set(txDroppedId, transport.packetIo().txDropped());
        writer.set(contextsId, transport.contextCount());
        exportContexts();
        exportQps();
    }

    private void exportContexts() {
        ContextTable contexts = transport.contextTable();
        for (int i = 0; i < contexts.liveCount(); i++) {
            SrdContext ctx = contexts.live(i);
            int slot = ctx.index;
            if (peerIds[slot] == null || peerFlow[slot] != ctx.flow || peerContextId[slot] != ctx.id) {
                freePeer(slot);
                allocatePeer(slot, ctx);
            }
            seen[slot] = true;
            exportPeer(peerIds[slot], ctx);
        }
        for (int i = 0; i < exportedCount; ) {
            int slot = exported[i];
            if (seen[slot]) {
                seen[slot] = false;
                i++;
            } else {
                freePeer(slot); // reclaimed: its last entry moves to i
            }
        }
    }

    private void exportPeer(int[] ids, SrdContext ctx) {
        ReliableSender s = ctx.sender;
        int k = 0;
        writer.set(ids[k++], s.txPackets);
        writer.set(ids[k++], s.retransmits);
        writer.set(ids[k++], s.timeouts);
        writer.set(ids[k++], s.rackLosses);
        writer.set(ids[k++], ctx.rxPackets);
        writer.set(ids[k++], ctx.duplicates);
        writer.set(ids[k++], ctx.delivered);
        writer.set(ids[k++], ctx.drops);
        writer.set(ids[k++], s.rtt.srtt());
        writer.set(ids[k++], (long) s.cwnd.window());
        writer.set(ids[k++], s.inflight);
        PathSet p = s.paths;
        for (int path = 0; path < p.count(); path++) {
            writer.set(ids[k++], p.transmits[path]);
            writer.set(ids[k++], p.losses[path]);
            writer.set(ids[k++], p.timeouts[path]);
            writer.set(ids[k++], p.srtt[path]);
            writer.set(ids[k++], p.isHealthy(path) ? 1 : 0);
        }
    }

    private void allocatePeer(int slot, SrdContext ctx) {
        PathSet p = ctx.sender.paths;
        int[] ids = new int[PEER_NAMES.length + PATH_NAMES.length * p.count()];
        String peerScope = scope + ",peer=" + FlowKey.toString(ctx.flow);
        int k = allocateAll(ids, 0, peerScope, PEER_NAMES, PEER_GAUGES, slot);
        for (int path = 0; path < p.count(); path++) {
            k = allocateAll(ids, k, peerScope + ",path=" + path, PATH_NAMES, PATH_GAUGES, path);
        }
        peerIds[slot] = ids;
        peerFlow[slot] = ctx.flow;
        peerContextId[slot] = ctx.id;
        exported[exportedCount++] = slot;
    }

    private void freePeer(int slot) {
        int[] ids = peerIds[slot];
        if (ids == null) {
            return;
        }
        for (int id : ids) {
            writer.free(id);
        }
        peerIds[slot] = null;
        seen[slot] = false;
        for (int i = 0; i < exportedCount; i++) {
            if (exported[i] == slot) {
                exported[i] = exported[--exportedCount];
                break;
            }
        }
    }

    private void exportQps() {
        for (int i = 0; i < qpOf.length; i++) {
            SrdQp qp = transport.qpTable().at(i);
            if (qp != qpOf[i]) {
                if (qpIds[i] != null) {
                    for (int id : qpIds[i]) {
                        writer.free(id);
                    }
                    qpIds[i] = null;
                }
                qpOf[i] = qp;
                if (qp != null) {
                    qpIds[i] = new int[QP_NAMES.length];
                    allocateAll(qpIds[i], 0, scope + ",qp=" + qp.qpn + ",type=" + qp.type.name().toLowerCase(), QP_NAMES, QP_GAUGES, qp.qpn);
                }
            }
            if (qp != null) {
                int[] ids = qpIds[i];
                writer.set(ids[0], qp.rnrDrops);
                writer.set(ids[1], qp.state.ordinal());
                writer.set(ids[2], qp.sqOutstanding);
                writer.set(ids[3], qp.receives.size());
            }
        }
    }

    /** Allocates {@code names} (the last {@code gauges} of them gauges) under {@code scope} into {@code ids} from {@code k}; returns the next k. */
    private int allocateAll(int[] ids, int k, String scope, String[] names, int gauges, long key) {
        for (int n = 0; n < names.length; n++) {
            ids[k++] = writer.allocate(n >= names.length - gauges ? GAUGE : COUNTER, scope + " " + names[n], key);
        }
        return k;
    }
}
