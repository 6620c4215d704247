package io.srdnic.verbs.attach.control;

import java.nio.ByteBuffer;

/** A refused request: what the dataplane says went wrong, which the client throws as a VerbsException. */
public record ErrorReply(String message) implements ControlMessage {
    public static final int TYPE = 10;

    @Override
    public int type() {
        return TYPE;
    }

    @Override
    public void encode(ByteBuffer out) {
        Fields.putString(out, message.length() > 1000 ? message.substring(0, 1000) : message);
    }

    static ErrorReply decode(ByteBuffer in) throws ProtocolException {
        return new ErrorReply(Fields.string(in));
    }
}
