package io.srdnic.verbs.attach.control;

import java.nio.ByteBuffer;

/** DESTROY one of the client's objects: {@code kind} says which table {@code handle} is looked up in (the client's own only). */
public record DestroyRequest(int kind, int handle) implements ControlMessage {
    public static final int TYPE = 8;
    public static final int PD = 1;
    public static final int CQ = 2;
    public static final int QP = 3;
    public static final int AH = 4;
    public static final int MR = 5;
    /** An SRQ, by its number. */
    public static final int SRQ = 6;
    public static final int XRCD = 7;

    @Override
    public int type() {
        return TYPE;
    }

    @Override
    public void encode(ByteBuffer out) {
        out.putInt(kind).putInt(handle);
    }

    static DestroyRequest decode(ByteBuffer in) throws ProtocolException {
        return new DestroyRequest(Fields.int32(in), Fields.int32(in));
    }
}
