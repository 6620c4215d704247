package io.srdnic.verbs.attach.control;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** Bounds-checked reads of a payload: every short read is a {@link ProtocolException}, never an unchecked exception. */
final class Fields {
    static final int MAX_STRING = 4096;

    private Fields() {
    }

    static int int32(ByteBuffer in) throws ProtocolException {
        need(in, 4);
        return in.getInt();
    }

    static long int64(ByteBuffer in) throws ProtocolException {
        need(in, 8);
        return in.getLong();
    }

    static String string(ByteBuffer in) throws ProtocolException {
        need(in, 2);
        int n = Short.toUnsignedInt(in.getShort());
        if (n > MAX_STRING) {
            throw new ProtocolException("string of " + n + " bytes, at most " + MAX_STRING);
        }
        need(in, n);
        byte[] b = new byte[n];
        in.get(b);
        return new String(b, StandardCharsets.UTF_8);
    }

    static void putString(ByteBuffer out, String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        if (b.length > MAX_STRING) {
            throw new IllegalArgumentException("string of " + b.length + " bytes, at most " + MAX_STRING);
        }
        out.putShort((short) b.length).put(b);
    }

    /** Up to {@code max} bytes, after their 2-byte length. */
    static byte[] bytes(ByteBuffer in, int max) throws ProtocolException {
        need(in, 2);
        int n = Short.toUnsignedInt(in.getShort());
        if (n > max) {
            throw new ProtocolException(n + " bytes where at most " + max + " are allowed");
        }
        need(in, n);
        byte[] b = new byte[n];
        in.get(b);
        return b;
    }

    static void putBytes(ByteBuffer out, byte[] b) {
        out.putShort((short) b.length).put(b);
    }

    private static void need(ByteBuffer in, int n) throws ProtocolException {
        if (in.remaining() < n) {
            throw new ProtocolException("message truncated: " + n + " bytes needed, " + in.remaining() + " left");
        }
    }

    /** Guards against a mistake in a decoder: a read that slipped past the checks is still a protocol error. */
    static ProtocolException underflow(BufferUnderflowException e) {
        return new ProtocolException("message truncated");
    }
}
