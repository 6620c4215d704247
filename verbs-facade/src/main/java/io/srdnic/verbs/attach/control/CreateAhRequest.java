package io.srdnic.verbs.attach.control;

import java.nio.ByteBuffer;

/** CREATE_AH in PD {@code pd} for a remote device; the reply's handle is the transport's address-handle number. */
public record CreateAhRequest(int pd, long mac, int ip, int udpPort) implements ControlMessage {
    public static final int TYPE = 6;

    @Override
    public int type() {
        return TYPE;
    }

    @Override
    public void encode(ByteBuffer out) {
        out.putInt(pd).putLong(mac).putInt(ip).putInt(udpPort);
    }

    static CreateAhRequest decode(ByteBuffer in) throws ProtocolException {
        return new CreateAhRequest(Fields.int32(in), Fields.int64(in), Fields.int32(in), Fields.int32(in));
    }
}
