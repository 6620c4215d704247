package io.srdnic.verbs.attach.control;

import java.nio.ByteBuffer;

/**
 * The answer to QUERY_QP: the QP's attributes in MODIFY_QP's whole form (its mask and every value),
 * so that one encoding carries QpAttributes both ways.
 */
public record QpAttributesReply(ModifyQpRequest attributes) implements ControlMessage {
    public static final int TYPE = 15;

    @Override
    public int type() {
        return TYPE;
    }

    @Override
    public void encode(ByteBuffer out) {
        attributes.encode(out);
    }

    static QpAttributesReply decode(ByteBuffer in) throws ProtocolException {
        return new QpAttributesReply(ModifyQpRequest.decode(in));
    }
}
