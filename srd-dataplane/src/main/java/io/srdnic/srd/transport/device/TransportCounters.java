package io.srdnic.srd.transport.device;

import static io.srdnic.srd.counters.CountersLayout.COUNTER;
import static io.srdnic.srd.counters.CountersLayout.GAUGE;

import io.srdnic.pmd.PortStats;
import io.srdnic.srd.counters.CountersWriter;
import io.srdnic.srd.counters.SrdCounters;
import io.srdnic.srd.transport.engine.PathSet;
import io.srdnic.srd.transport.engine.ReliableSender;
import io.srdnic.srd.transport.port.QpTable;
import io.srdnic.srd.transport.rc.DeviceQp;
import io.srdnic.srd.transport.srd.ContextTable;
import io.srdnic.srd.transport.srd.FlowKey;
import io.srdnic.srd.transport.srd.SrdContext;
import java.util.function.IntConsumer;

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

    private final TransportDevice transport;
    private final CountersWriter writer;
    private final String scope;
    private final long[] device = new long[SrdCounters.count()];
    private final int[] deviceIds;
    private final int txDroppedId;
    /** The port's own totals (rte_eth_stats), when its PacketIo keeps them; ids -1 otherwise. */
    private final long[] port = new long[PortStats.NAMES.size()];
    private final int[] portIds = new int[PortStats.NAMES.size()];
    private final int contextsId;

    /** Per context slot: the flow and context id its counters were made for, and their ids (null: none). */
    private final long[] peerFlow;
    private final int[] peerContextId;
    private final int[][] peerIds;
    private final ExportedSlots peerSlots;
    private final IntConsumer peerGone = this::freePeer;

    /** Per QP slot: the QP its counters were made for, and their ids (null: none). */
    private final DeviceQp[] qpOf;
    private final int[][] qpIds;
    private final ExportedSlots qpSlots;
    private final IntConsumer qpGone = this::freeQp;

    /** Allocates the device's counters in {@code writer} under {@code scope} (e.g. {@code device=sim-1}). */
    public TransportCounters(TransportDevice transport, CountersWriter writer, String scope) {
        this.transport = transport;
        this.writer = writer;
        this.scope = scope;
        String[] names = SrdCounters.names();
        deviceIds = new int[names.length];
        for (int i = 0; i < names.length; i++) {
            deviceIds[i] = writer.allocate(COUNTER, scope + " " + names[i], 0);
        }
        txDroppedId = writer.allocate(COUNTER, scope + " port_tx_dropped", 0);
        boolean portKeepsStats = transport.packetIo().readPortStats(port);
        for (int i = 0; i < portIds.length; i++) {
            portIds[i] = portKeepsStats ? writer.allocate(COUNTER, scope + " " + PortStats.NAMES.get(i), 0) : -1;
        }
        contextsId = writer.allocate(GAUGE, scope + " contexts", 0);
        int slots = transport.config().maxContexts();
        peerFlow = new long[slots];
        peerContextId = new int[slots];
        peerIds = new int[slots][];
        peerSlots = new ExportedSlots(slots);
        qpOf = new DeviceQp[transport.qpIndexMask() + 1];
        qpIds = new int[qpOf.length][];
        qpSlots = new ExportedSlots(qpOf.length);
    }

    /** Copies every count into the file; on the transport's thread. */
    public void export() {
        transport.counters.copyInto(device);
        for (int i = 0; i < deviceIds.length; i++) {
            writer.set(deviceIds[i], device[i]);
        }
        writer.set(txDroppedId, transport.packetIo().txDropped());
        if (portIds[0] >= 0 && transport.packetIo().readPortStats(port)) {
            for (int i = 0; i < portIds.length; i++) {
                writer.set(portIds[i], port[i]);
            }
        }
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
                allocatePeer(slot, ctx);
            }
            peerSlots.markSeen(slot);
            exportPeer(peerIds[slot], ctx);
        }
        peerSlots.sweep(peerGone); // reclaimed since the last export
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

    /** Counters for the context in {@code slot} (a new remote device, or a new incarnation): those of the slot's last one go. */
    private void allocatePeer(int slot, SrdContext ctx) {
        if (peerIds[slot] != null) {
            freeAll(peerIds[slot]);
        } else {
            peerSlots.add(slot);
        }
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
    }

    private void freePeer(int slot) {
        freeAll(peerIds[slot]);
        peerIds[slot] = null;
    }

    private void exportQps() {
        QpTable<DeviceQp> qps = transport.qpTable();
        for (int i = 0; i < qps.liveCount(); i++) {
            DeviceQp qp = qps.live(i);
            int slot = qp.qpn & qps.indexMask();
            if (qpOf[slot] != qp) {
                allocateQp(slot, qp);
            }
            qpSlots.markSeen(slot);
            int[] ids = qpIds[slot];
            writer.set(ids[0], qp.rnrDrops);
            writer.set(ids[1], qp.state.ordinal());
            writer.set(ids[2], qp.sqOutstanding);
            writer.set(ids[3], qp.receives.size());
        }
        qpSlots.sweep(qpGone); // destroyed since the last export
    }

    private void allocateQp(int slot, DeviceQp qp) {
        if (qpIds[slot] != null) {
            freeAll(qpIds[slot]);
        } else {
            qpSlots.add(slot);
        }
        qpIds[slot] = new int[QP_NAMES.length];
        allocateAll(qpIds[slot], 0, scope + ",qp=" + qp.qpn + ",type=" + qp.type.name().toLowerCase(), QP_NAMES, QP_GAUGES, qp.qpn);
        qpOf[slot] = qp;
    }

    private void freeQp(int slot) {
        freeAll(qpIds[slot]);
        qpIds[slot] = null;
        qpOf[slot] = null;
    }

    private void freeAll(int[] ids) {
        for (int id : ids) {
            writer.free(id);
        }
    }

    /**
     * Allocates {@code names} (the last {@code gauges} of them gauges) under {@code scope} into
     * {@code ids} from {@code k}; returns the next k.
     */
    private int allocateAll(int[] ids, int k, String scope, String[] names, int gauges, long key) {
        for (int n = 0; n < names.length; n++) {
            ids[k++] = writer.allocate(n >= names.length - gauges ? GAUGE : COUNTER, scope + " " + names[n], key);
        }
        return k;
    }
}
