package io.srdnic.srd.transport.ud;

import io.srdnic.pmd.Mbuf;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.WcOpcode;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.counters.SrdCounters;
import io.srdnic.srd.transport.port.AddressHandles;
import io.srdnic.srd.transport.port.FrameWriter;
import io.srdnic.srd.transport.port.SendDelivery;
import io.srdnic.srd.transport.port.TransportPort;
import io.srdnic.srd.transport.port.TxBurst;
import io.srdnic.srd.transport.qp.TransportQp;
import io.srdnic.srd.wire.Ipv4UdpFrame;
import io.srdnic.srd.wire.PacketType;
import io.srdnic.srd.wire.SrdHeader;
import java.lang.foreign.MemorySegment;

/**
 * UD's message layer, all of it: a datagram is one packet with {@code FLAG_UNRELIABLE}, no flow,
 * context, PSN or ACK, sent when posted and delivered on arrival (or dropped, counted: no
 * indication goes back). Its UDP source ports rotate over the paths, as SRD's
 * packets spray, so that datagrams spread over the fabric's ECMP paths too.
 */
public final class UdDatagrams {
    private final AddressHandles addressHandles;
    private final SrdCounters counters;
    private final TxBurst tx;
    private final int epoch;
    private final FrameWriter frames;
    private final SendDelivery delivery;
    private final int paths;
    private int datagramEntropy;

    public UdDatagrams(TransportPort port, int paths, FrameWriter frames) {
        this.addressHandles = port.addressHandles;
        this.counters = port.counters;
        this.tx = port.tx;
        this.epoch = port.epoch;
        this.frames = frames;
        this.delivery = new SendDelivery(port);
        this.paths = paths;
    }

    /** A datagram arrived: into the destination QP's next receive if the QP checks pass, else dropped and counted. */
    public void onDatagram(Mbuf m, int type) {
        counters.rxDatagrams++;
        if (delivery.check(m, type, QpType.UD) != 0 || delivery.deliver(m, type, Ipv4UdpFrame.sourceIp(m)) != 0) {
            counters.datagramsDropped++; // UD: no indication goes back
        }
    }

    /**
     * Sends a UD datagram now, from the posting thread's cycle: one packet, no flow, no PSN or ACK;
     * it completes SUCCESS once handed to the TX burst (or lost locally for want of an mbuf: UD is
     * unreliable), LOCAL_PROTECTION_ERROR if its buffer was closed.
     */
    public void send(TransportQp qp, int ah, int destQpn, int qkey, long wrId, MemorySegment buffer, long offset, int length,
                     boolean withImmediate, int immediate, boolean signaled, long now) {
        qp.sqOutstanding++;
        long address = tx.take();
        if (address == 0) {
            counters.sendCompletions[WcStatus.SUCCESS]++;
            qp.completeSend(wrId, WcOpcode.SEND, WcStatus.SUCCESS, length, signaled); // UD: a datagram lost locally is lost
            qp.released(buffer, offset);
            return;
        }
        Mbuf m = tx.view.wrap(address);
        try {
            m.copyFrom(buffer, offset, SrdHeader.PAYLOAD_OFFSET, length);
        } catch (IllegalStateException closedBuffer) {
            tx.giveBack(address);
            counters.sendCompletions[WcStatus.LOCAL_PROTECTION_ERROR]++;
            qp.completeSend(wrId, WcOpcode.SEND, WcStatus.LOCAL_PROTECTION_ERROR, length, signaled);
            qp.released(buffer, offset);
            return;
        }
        SrdHeader.write(m, withImmediate ? PacketType.SEND_WITH_IMM : PacketType.SEND, SrdHeader.FLAG_UNRELIABLE, length, 0, 0, epoch,
            0, 0, qp.qpn, destQpn, qkey, immediate, now);
        int entropy = datagramEntropy;
        datagramEntropy = datagramEntropy + 1 == paths ? 0 : datagramEntropy + 1;
        frames.onPath(m, addressHandles.mac(ah), addressHandles.ip(ah), addressHandles.port(ah), entropy, SrdHeader.LENGTH + length);
        counters.txDatagrams++;
        tx.emit(address);
        counters.sendCompletions[WcStatus.SUCCESS]++;
        qp.completeSend(wrId, WcOpcode.SEND, WcStatus.SUCCESS, length, signaled);
        qp.released(buffer, offset);
    }
}
