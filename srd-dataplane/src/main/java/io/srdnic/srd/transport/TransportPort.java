package io.srdnic.srd.transport;

import io.srdnic.srd.counters.SrdCounters;
import io.srdnic.srd.transport.port.AckWriter;
import io.srdnic.srd.transport.port.AddressHandles;
import io.srdnic.srd.transport.port.FrameWriter;
import io.srdnic.srd.transport.port.HeldPacketPool;
import io.srdnic.srd.transport.port.MemoryRegions;
import io.srdnic.srd.transport.port.TxBurst;
import io.srdnic.srd.transport.srd.ContextTable;

/**
 * What every QP type's sending and receiving halves share below the transport: the TX burst and
 * the writers of frames and ACKs, the memory regions RDMA lands in, the pool of held RC packets,
 * the counters, this incarnation's epoch, and the device's tables. Handed to them at construction, so that they do not
 * reach into {@link SrdTransport} for it.
 */
final class TransportPort {
    final TxBurst tx;
    final FrameWriter frames;
    final AckWriter acks;
    final MemoryRegions regions;
    final HeldPacketPool heldPackets;
    final SrdCounters counters;
    final int epoch;
    /** The device's tables: QPs by number, address handles, SRC SRQs by SRC number, SRD contexts by peer. */
    final QpTable qps;
    final AddressHandles addressHandles;
    final SrcSrqTable srcSrqs;
    final ContextTable contexts;

    TransportPort(TxBurst tx, FrameWriter frames, AckWriter acks, MemoryRegions regions, HeldPacketPool heldPackets, SrdCounters counters,
                  int epoch, QpTable qps, AddressHandles addressHandles, SrcSrqTable srcSrqs, ContextTable contexts) {
        this.tx = tx;
        this.frames = frames;
        this.acks = acks;
        this.regions = regions;
        this.heldPackets = heldPackets;
        this.counters = counters;
        this.epoch = epoch;
        this.qps = qps;
        this.addressHandles = addressHandles;
        this.srcSrqs = srcSrqs;
        this.contexts = contexts;
    }
}
