package io.srdnic.verbs.attach.control;

import java.nio.ByteBuffer;

/** ALLOC_PD: a protection domain of the client's; the reply's handle names it. No payload. */
public record AllocPdRequest() implements ControlMessage {
    public static final int TYPE = 3;

    @Override
    public int type() {
        return TYPE;
    }

    @Override
    public void encode(ByteBuffer out) {
    }

    static AllocPdRequest decode(ByteBuffer in) {
        return new AllocPdRequest();
    }
}
