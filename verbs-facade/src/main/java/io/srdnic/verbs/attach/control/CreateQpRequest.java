package io.srdnic.verbs.attach.control;

import java.nio.ByteBuffer;

/**
 * CREATE_QP in the client's PD {@code pd} of {@code qpType} (QpType's ordinal) on its CQs; the
 * reply's handle is the QP number, its rings the send and receive rings in the shared file.
 * {@code srq}: the client's SRQ (its number) the QP takes its receives from, or 0. An XRC QP:
 * {@code xrcType} XrcQpType's ordinal (-1: not XRC), and for XRC_RECV the client's XRC domain
 * {@code xrcd}.
 */
public record CreateQpRequest(int pd, int qpType, int sendCq, int recvCq, int maxSendWr, int maxRecvWr, int maxSendSge,
                              int maxInlineData, int srq, int xrcType, int xrcd) implements ControlMessage {
    public static final int TYPE = 5;

    @Override
    public int type() {
        return TYPE;
    }

    @Override
    public void encode(ByteBuffer out) {
        out.putInt(pd).putInt(qpType).putInt(sendCq).putInt(recvCq).putInt(maxSendWr).putInt(maxRecvWr).putInt(maxSendSge)
            .putInt(maxInlineData).putInt(srq).putInt(xrcType).putInt(xrcd);
    }

    static CreateQpRequest decode(ByteBuffer in) throws ProtocolException {
        return new CreateQpRequest(Fields.int32(in), Fields.int32(in), Fields.int32(in), Fields.int32(in), Fields.int32(in),
            Fields.int32(in), Fields.int32(in), Fields.int32(in), Fields.int32(in), Fields.int32(in), Fields.int32(in));
    }
}
