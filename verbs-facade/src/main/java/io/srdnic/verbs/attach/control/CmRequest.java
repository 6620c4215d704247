package io.srdnic.verbs.attach.control;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A connection-manager call of the client on its CM id {@code id} (0 for {@link #CREATE}), which the
 * dataplane's connection manager of the client's port makes for it: {@code op}, up to {@link #ARGS}
 * numbers whose meaning the op gives, and private data (connect, accept, reject). Answered with a
 * HandleReply (the id made; BIND: the port bound as its state) or an ERROR worded as the CM words it.
 */
public record CmRequest(int op, int id, int[] args, byte[] data) implements ControlMessage {
    public static final int TYPE = 16;
    public static final int ARGS = 4;
    /** The longest private data a CM message carries (an accept's). */
    public static final int MAX_DATA = 196;

    /** args: port space, XRC type (-1 none, else XrcQpType's ordinal). */
    public static final int CREATE = 1;
    /** args: port (0 picks one). */
    public static final int BIND = 2;
    /** args: backlog. */
    public static final int LISTEN = 3;
    /** args: IPv4, port. */
    public static final int RESOLVE_ADDR = 4;
    public static final int RESOLVE_ROUTE = 5;
    /** args: the client's QP number. */
    public static final int ATTACH_QP = 6;
    /** args: responder resources, initiator depth, retry count, RNR retry count; data: private data. */
    public static final int CONNECT = 7;
    /** As CONNECT. */
    public static final int ACCEPT = 8;
    /** data: private data. */
    public static final int REJECT = 9;
    public static final int DISCONNECT = 10;
    public static final int DESTROY = 11;
    /** args: IBTA's 5-bit code. */
    public static final int SET_MIN_RNR_TIMER = 12;
    /** args: the 5-bit code. */
    public static final int SET_ACK_TIMEOUT = 13;

    public CmRequest {
        if (args.length != ARGS || data.length > MAX_DATA) {
            throw new IllegalArgumentException("a CM request takes " + ARGS + " numbers and at most " + MAX_DATA + " bytes");
        }
    }

    /** A request with {@code values} first among its numbers (the rest 0) and no private data. */
    public static CmRequest of(int op, int id, int... values) {
        return new CmRequest(op, id, Arrays.copyOf(values, ARGS), new byte[0]);
    }

    @Override
    public int type() {
        return TYPE;
    }

    @Override
    public void encode(ByteBuffer out) {
        out.putInt(op).putInt(id);
        for (int a : args) {
            out.putInt(a);
        }
        Fields.putBytes(out, data);
    }

    static CmRequest decode(ByteBuffer in) throws ProtocolException {
        int op = Fields.int32(in);
        int id = Fields.int32(in);
        int[] args = new int[ARGS];
        for (int i = 0; i < ARGS; i++) {
            args[i] = Fields.int32(in);
        }
        return new CmRequest(op, id, args, Fields.bytes(in, MAX_DATA));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CmRequest r && r.op == op && r.id == id && Arrays.equals(r.args, args) && Arrays.equals(r.data, data);
    }

    @Override
    public int hashCode() {
        return (op * 31 + id) * 31 + Arrays.hashCode(args);
    }
}
