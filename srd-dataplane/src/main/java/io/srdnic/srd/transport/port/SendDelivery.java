package io.srdnic.srd.transport.port;

import io.srdnic.pmd.Mbuf;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.WcOpcode;
import io.srdnic.srd.transport.qp.TransportQp;
import io.srdnic.srd.wire.DropReason;
import io.srdnic.srd.wire.PacketType;
import io.srdnic.srd.wire.SrdHeader;

/**
 * The delivery policy of a SEND (SRD or UD, one message in one packet, delivered on arrival): the
 * QP checks a message must pass, and its copy into the QP's next posted receive with the receive
 * completion. The transport checks that come before (context, incarnation, window) are the
 * responder's; a message layer that reassembles or orders (RC) will bring a policy of its own.
 */
public final class SendDelivery {
    private final QpTable<? extends TransportQp> qps;

    public SendDelivery(TransportPort port) {
        this.qps = port.qps;
    }

    /**
     * The QP checks for a message to a QP of {@code qpType}; 0 when it may be delivered, else the
     * DropReason: the QP exists and can receive, the opcode is a SEND, the Q_Key matches, a receive
     * is posted (RNR is counted on the QP), the message fits it, its completion fits the CQ, and its
     * memory region is still registered (else the receive is taken with LOCAL_PROTECTION_ERROR).
     */
    public int check(Mbuf m, int type, QpType qpType) {
        TransportQp qp = qps.get(SrdHeader.destinationQpn(m));
        if (qp == null || qp.type != qpType || !qp.state.canReceive()) {
            return DropReason.BAD_DEST_QP;
        }
        if (type != PacketType.SEND && type != PacketType.SEND_WITH_IMM) {
            return DropReason.REMOTE_INVALID_REQUEST;
        }
        if (SrdHeader.qkey(m) != qp.qkey) {
            return DropReason.REMOTE_INVALID_REQUEST;
        }
        if (qp.lacksReceive()) {
            return DropReason.RNR;
        }
        if (SrdHeader.payloadLength(m) > qp.receives.headLength()) {
            return DropReason.REMOTE_OPERATION;
        }
        if (qp.receiveCompletionWouldOverrun()) {
            return DropReason.BAD_DEST_QP; // the QP is in ERROR now, its application told why
        }
        if (qp.failReceiveIfMemoryGone()) {
            // Last, once its error completion is sure to fit: the receive completed LOCAL_PROTECTION_ERROR,
            // the sender hears REMOTE_OPERATION_ERROR.
            return DropReason.REMOTE_OPERATION;
        }
        return 0;
    }

    /** Copies a checked message into the QP's next receive and completes it; 0, or the DropReason if the receive's memory is gone. */
    public int deliver(Mbuf m, int type, int srcIp) {
        TransportQp qp = qps.get(SrdHeader.destinationQpn(m));
        int length = SrdHeader.payloadLength(m);
        try {
            m.copyTo(SrdHeader.PAYLOAD_OFFSET, qp.receives.headBuffer(), qp.receives.headOffset(), length);
        } catch (IllegalStateException closedBuffer) {
            return DropReason.REMOTE_OPERATION; // the receive's memory is gone: a receive WQE we cannot use
        }
        boolean imm = type == PacketType.SEND_WITH_IMM;
        qp.completeReceive(imm ? WcOpcode.RECV_WITH_IMM : WcOpcode.RECV, length, imm, SrdHeader.immediate(m),
                SrdHeader.sourceQpn(m), srcIp);
        return 0;
    }
}
