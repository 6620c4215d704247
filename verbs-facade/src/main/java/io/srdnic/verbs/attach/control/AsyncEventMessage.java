package io.srdnic.verbs.attach.control;

import java.nio.ByteBuffer;

/** Dataplane to client, unasked (request id 0): an async event about one of the client's QPs or address handles. */
public record AsyncEventMessage(int eventType, int addressHandle, int remoteIp, int qpn, int srqn, long timeNanos)
    implements ControlMessage {
    public static final int TYPE = 11;

    @Override
    public int type() {
        return TYPE;
    }

    @Override
    public void encode(ByteBuffer out) {
        out.putInt(eventType).putInt(addressHandle).putInt(remoteIp).putInt(qpn).putInt(srqn).putLong(timeNanos);
    }

    static AsyncEventMessage decode(ByteBuffer in) throws ProtocolException {
        return new AsyncEventMessage(Fields.int32(in), Fields.int32(in), Fields.int32(in), Fields.int32(in), Fields.int32(in),
            Fields.int64(in));
    }
}
