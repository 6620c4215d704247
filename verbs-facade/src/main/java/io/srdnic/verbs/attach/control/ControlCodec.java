package io.srdnic.verbs.attach.control;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;

/**
 * The control protocol's framing, on the dataplane's unix socket (SOCK_STREAM), big-endian:
 * <pre>
 *   0          4          6          8             12
 *   +----------+----------+----------+-------------+------------------------+
 *   | length   | version  | type     | request id  | payload (length - 8)   |
 *   +----------+----------+----------+-------------+------------------------+
 * </pre>
 * {@code length} counts what follows it (8 header bytes and the payload), at most {@link #MAX_FRAME}.
 * A reply carries its request's id; the dataplane's unasked messages (async events) carry 0. A frame
 * of another version, an unknown type, a payload too short or with bytes left over is a
 * {@link ProtocolException}: the dataplane counts it and drops the client.
 */
public final class ControlCodec {
    public static final int VERSION = 1;
    public static final int LENGTH_BYTES = 4;
    public static final int HEADER_BYTES = 8;
    public static final int MAX_FRAME = 16 * 1024;

    private ControlCodec() {
    }

    /** Writes one whole frame of {@code message} at {@code out}'s position. */
    public static void write(ByteBuffer out, int requestId, ControlMessage message) {
        int start = out.position();
        out.putInt(0).putShort((short) VERSION).putShort((short) message.type()).putInt(requestId);
        message.encode(out);
        out.putInt(start, out.position() - start - LENGTH_BYTES);
    }

    /**
     * The length field of a frame whose first 4 bytes are at {@code in}'s position (not consumed),
     * or -1 when fewer than 4 bytes are there; throws when it is out of range.
     */
    public static int frameLength(ByteBuffer in) throws ProtocolException {
        if (in.remaining() < LENGTH_BYTES) {
            return -1;
        }
        int length = in.getInt(in.position());
        if (length < HEADER_BYTES || length > MAX_FRAME) {
            throw new ProtocolException("frame length " + length + " outside " + HEADER_BYTES + ".." + MAX_FRAME);
        }
        return length;
    }

    /** The request id of the frame at {@code frame}'s position (whose length {@link #frameLength} checked). */
    public static int requestId(ByteBuffer frame) {
        return frame.getInt(frame.position() + LENGTH_BYTES + 4);
    }

    /** Decodes the whole frame at {@code frame}'s position (its length already checked), consuming it. */
    public static ControlMessage read(ByteBuffer frame) throws ProtocolException {
        int length = frameLength(frame);
        if (length < 0 || frame.remaining() < LENGTH_BYTES + length) {
            throw new ProtocolException("frame truncated");
        }
        ByteBuffer body = frame.slice(frame.position() + LENGTH_BYTES, length);
        frame.position(frame.position() + LENGTH_BYTES + length);
        int version = Short.toUnsignedInt(body.getShort());
        if (version != VERSION) {
            throw new ProtocolException("protocol version " + version + ", this dataplane speaks " + VERSION);
        }
        int type = Short.toUnsignedInt(body.getShort());
        body.getInt(); // request id
        ControlMessage m;
        try {
            m = decode(type, body);
        } catch (BufferUnderflowException e) {
            throw Fields.underflow(e);
        }
        if (body.hasRemaining()) {
            throw new ProtocolException("message type " + type + " has " + body.remaining() + " bytes too many");
        }
        return m;
    }

    private static ControlMessage decode(int type, ByteBuffer in) throws ProtocolException {
        return switch (type) {
            case OpenRequest.TYPE -> OpenRequest.decode(in);
            case OpenReply.TYPE -> OpenReply.decode(in);
            case AllocPdRequest.TYPE -> AllocPdRequest.decode(in);
            case CreateCqRequest.TYPE -> CreateCqRequest.decode(in);
            case CreateQpRequest.TYPE -> CreateQpRequest.decode(in);
            case CreateAhRequest.TYPE -> CreateAhRequest.decode(in);
            case RegisterMrRequest.TYPE -> RegisterMrRequest.decode(in);
            case DestroyRequest.TYPE -> DestroyRequest.decode(in);
            case HandleReply.TYPE -> HandleReply.decode(in);
            case ErrorReply.TYPE -> ErrorReply.decode(in);
            case AsyncEventMessage.TYPE -> AsyncEventMessage.decode(in);
            case ModifyQpRequest.TYPE -> ModifyQpRequest.decode(in);
            case CloseRequest.TYPE -> CloseRequest.decode(in);
            case QueryQpRequest.TYPE -> QueryQpRequest.decode(in);
            case QpAttributesReply.TYPE -> QpAttributesReply.decode(in);
            case CmRequest.TYPE -> CmRequest.decode(in);
            case CmEventMessage.TYPE -> CmEventMessage.decode(in);
            case CreateSrqRequest.TYPE -> CreateSrqRequest.decode(in);
            case SrqRequest.TYPE -> SrqRequest.decode(in);
            case OpenXrcdRequest.TYPE -> OpenXrcdRequest.decode(in);
            default -> throw new ProtocolException("unknown message type " + type);
        };
    }
}
