package io.srdnic.srd.transport.port;

import io.srdnic.srd.counters.SrdCounters;
import io.srdnic.srd.transport.qp.TransportQp;

/**
 * What every QP type's sending and receiving halves share below the transport: the TX burst and
 * the writers of frames and ACKs, the memory regions RDMA lands in, the pool of held RC packets,
 * the counters, this incarnation's epoch, and the device's QP and address-handle tables. Handed to
 * them at construction, so that they do not reach into the device for it. The tables of one QP
 * type (SRD's contexts, SRC's SRQs) are handed to that type's layer alone.
 */
public final class TransportPort {
    public final TxBurst tx;
    public final FrameWriter frames;
    public final AckWriter acks;
    public final MemoryRegions regions;
    public final HeldPacketPool heldPackets;
    public final SrdCounters counters;
    public final int epoch;
    /** The device's QPs by number (read here as transport QPs; RC is handed the device's own type). */
    public final QpTable<? extends TransportQp> qps;
    public final AddressHandles addressHandles;

    public TransportPort(TxBurst tx, FrameWriter frames, AckWriter acks, MemoryRegions regions, HeldPacketPool heldPackets,
                         SrdCounters counters, int epoch, QpTable<? extends TransportQp> qps, AddressHandles addressHandles) {
        this.tx = tx;
        this.frames = frames;
        this.acks = acks;
        this.regions = regions;
        this.heldPackets = heldPackets;
        this.counters = counters;
        this.epoch = epoch;
        this.qps = qps;
        this.addressHandles = addressHandles;
    }
}
