package io.srdnic.verbs.attach.control;

import java.nio.ByteBuffer;

/** CLOSE: the client is done; everything it made is destroyed, as if it had died. No payload. */
public record CloseRequest() implements ControlMessage {
    public static final int TYPE = 13;

    @Override
    public int type() {
        return TYPE;
    }

    @Override
    public void encode(ByteBuffer out) {
    }

    static CloseRequest decode(ByteBuffer in) {
        return new CloseRequest();
    }
}
