package io.srdnic.verbs.attach.control;

import java.nio.ByteBuffer;

/**
 * Success: the handle made (PD, CQ, QP number, AH number, lkey), a state (a QP's after MODIFY_QP,
 * QpState's ordinal) and up to two rings in the shared file (offset from the ring area's start,
 * capacity in records): a CQ's completion ring; a QP's send and receive rings. Zeros where unused.
 */
public record HandleReply(int handle, int state, long firstRing, int firstCapacity, long secondRing, int secondCapacity)
    implements ControlMessage {
    public static final int TYPE = 9;

    public static HandleReply of(int handle) {
        return new HandleReply(handle, 0, 0, 0, 0, 0);
    }

    @Override
    public int type() {
        return TYPE;
    }

    @Override
    public void encode(ByteBuffer out) {
        out.putInt(handle).putInt(state).putLong(firstRing).putInt(firstCapacity).putLong(secondRing).putInt(secondCapacity);
    }

    static HandleReply decode(ByteBuffer in) throws ProtocolException {
        return new HandleReply(Fields.int32(in), Fields.int32(in), Fields.int64(in), Fields.int32(in), Fields.int64(in), Fields.int32(in));
    }
}
