package io.srdnic.verbs.attach.control;

import java.nio.ByteBuffer;

/** CREATE_CQ of {@code depth} completions; the reply names the CQ and its completion ring in the shared file. */
public record CreateCqRequest(int depth) implements ControlMessage {
    public static final int TYPE = 4;

    @Override
    public int type() {
        return TYPE;
    }

    @Override
    public void encode(ByteBuffer out) {
        out.putInt(depth);
    }

    static CreateCqRequest decode(ByteBuffer in) throws ProtocolException {
        return new CreateCqRequest(Fields.int32(in));
    }
}
