package io.srdnic.verbs.attach.control;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A connection-manager event of one of the client's CM ids (unasked, request id 0): {@code id} is
 * the id it is about (for CONNECT_REQUEST a new id the dataplane made for the request, of the
 * listener {@code listenId}), {@code eventType} CmEventType's ordinal, then the event's fields as
 * CmEvent has them, what the id itself now holds (its port, peer, and the reads and atomics its
 * QP got), and the peer's private data.
 */
public record CmEventMessage(int id, int eventType, int listenId, int status, int[] values, byte[] data) implements ControlMessage {
    public static final int TYPE = 17;
    /**
     * The peer's responder resources, initiator depth, retry count, RNR retry count; the id's port,
     * peer IPv4, responder resources, initiator depth.
     */
    public static final int VALUES = 8;
    /** The longest private data a CM message carries: CmEvent's buffer. */
    public static final int MAX_DATA = 224;

    public CmEventMessage {
        if (values.length != VALUES || data.length > MAX_DATA) {
            throw new IllegalArgumentException("a CM event carries " + VALUES + " values and at most " + (MAX_DATA) + " bytes");
        }
    }

    @Override
    public int type() {
        return TYPE;
    }

    @Override
    public void encode(ByteBuffer out) {
        out.putInt(id).putInt(eventType).putInt(listenId).putInt(status);
        for (int v : values) {
            out.putInt(v);
        }
        Fields.putBytes(out, data);
    }

    static CmEventMessage decode(ByteBuffer in) throws ProtocolException {
        int id = Fields.int32(in);
        int type = Fields.int32(in);
        int listen = Fields.int32(in);
        int status = Fields.int32(in);
        int[] v = new int[VALUES];
        for (int i = 0; i < VALUES; i++) {
            v[i] = Fields.int32(in);
        }
        return new CmEventMessage(id, type, listen, status, v, Fields.bytes(in, MAX_DATA));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CmEventMessage m && m.id == id && m.eventType == eventType && m.listenId == listenId && m.status == status
            && Arrays.equals(m.values, values) && Arrays.equals(m.data, data);
    }

    @Override
    public int hashCode() {
        return (id * 31 + eventType) * 31 + Arrays.hashCode(values);
    }
}
