package io.srdnic.verbs.attach.control;

import java.nio.ByteBuffer;

/** QUERY_QP of the client's QP {@code qpn} (ibv_query_qp): answered with a {@link QpAttributesReply}. */
public record QueryQpRequest(int qpn) implements ControlMessage {
    public static final int TYPE = 14;

    @Override
    public int type() {
        return TYPE;
    }

    @Override
    public void encode(ByteBuffer out) {
        out.putInt(qpn);
    }

    static QueryQpRequest decode(ByteBuffer in) throws ProtocolException {
        return new QueryQpRequest(Fields.int32(in));
    }
}
