package io.srdnic.verbs.attach.control;

import java.nio.ByteBuffer;

/**
 * OPEN: a client asks for a context on the dataplane's port {@code port}, with a shared pool of
 * {@code poolBytes} for its memory regions and {@code ringBytes} for its rings. {@code pid} is what
 * the client says it is (for logs only: SO_PEERCRED's uid is what the allow rule checks).
 */
public record OpenRequest(int port, long poolBytes, long ringBytes, long pid) implements ControlMessage {
    public static final int TYPE = 1;

    @Override
    public int type() {
        return TYPE;
    }

    @Override
    public void encode(ByteBuffer out) {
        out.putInt(port).putLong(poolBytes).putLong(ringBytes).putLong(pid);
    }

    static OpenRequest decode(ByteBuffer in) throws ProtocolException {
        return new OpenRequest(Fields.int32(in), Fields.int64(in), Fields.int64(in), Fields.int64(in));
    }
}
