package io.srdnic.verbs.attach.control;

import java.nio.ByteBuffer;

/**
 * CREATE_SRQ in the client's PD {@code pd}: a basic SRQ ({@code xrcd} 0), or an XRC SRQ of the
 * client's XRC domain {@code xrcd} completing on its CQ {@code cq}. The reply's handle is the SRQ's
 * number (its events name it), its state the XRC SRQ number senders name (0 for a basic SRQ), its
 * first ring the SRQ's receive ring.
 */
public record CreateSrqRequest(int pd, int xrcd, int cq, int maxWr, int maxSge, int limit) implements ControlMessage {
    public static final int TYPE = 18;

    @Override
    public int type() {
        return TYPE;
    }

    @Override
    public void encode(ByteBuffer out) {
        out.putInt(pd).putInt(xrcd).putInt(cq).putInt(maxWr).putInt(maxSge).putInt(limit);
    }

    static CreateSrqRequest decode(ByteBuffer in) throws ProtocolException {
        return new CreateSrqRequest(Fields.int32(in), Fields.int32(in), Fields.int32(in), Fields.int32(in), Fields.int32(in),
            Fields.int32(in));
    }
}
