package io.srdnic.verbs.attach.control;

import java.nio.ByteBuffer;

/** OPEN_XRCD: a new XRC domain; the reply's handle names it in this client's requests, its state is the domain's number. */
public record OpenXrcdRequest() implements ControlMessage {
    public static final int TYPE = 20;

    @Override
    public int type() {
        return TYPE;
    }

    @Override
    public void encode(ByteBuffer out) {
    }

    static OpenXrcdRequest decode(ByteBuffer in) {
        return new OpenXrcdRequest();
    }
}
