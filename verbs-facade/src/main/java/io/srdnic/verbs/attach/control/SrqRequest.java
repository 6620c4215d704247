package io.srdnic.verbs.attach.control;

import java.nio.ByteBuffer;

/**
 * A call on the client's SRQ {@code srq} (its number): {@link #MODIFY} arms or disarms its limit
 * ({@code value}); {@link #LIMIT} and {@link #POSTED} ask its armed limit and its receives waiting,
 * answered as the reply's state.
 */
public record SrqRequest(int op, int srq, int value) implements ControlMessage {
    public static final int TYPE = 19;
    public static final int MODIFY = 1;
    public static final int LIMIT = 2;
    public static final int POSTED = 3;

    @Override
    public int type() {
        return TYPE;
    }

    @Override
    public void encode(ByteBuffer out) {
        out.putInt(op).putInt(srq).putInt(value);
    }

    static SrqRequest decode(ByteBuffer in) throws ProtocolException {
        return new SrqRequest(Fields.int32(in), Fields.int32(in), Fields.int32(in));
    }
}
