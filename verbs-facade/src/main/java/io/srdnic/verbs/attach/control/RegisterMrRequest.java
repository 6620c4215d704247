package io.srdnic.verbs.attach.control;

import java.nio.ByteBuffer;

/**
 * REG_MR: {@code length} bytes at {@code poolOffset} of the client's pool, in PD {@code pd}, which
 * RDMA names from {@code iova} on (the client's address of them); the reply's handle is the lkey (= rkey).
 */
public record RegisterMrRequest(int pd, long poolOffset, long length, long iova, int access) implements ControlMessage {
    public static final int TYPE = 7;

    @Override
    public int type() {
        return TYPE;
    }

    @Override
    public void encode(ByteBuffer out) {
        out.putInt(pd).putLong(poolOffset).putLong(length).putLong(iova).putInt(access);
    }

    static RegisterMrRequest decode(ByteBuffer in) throws ProtocolException {
        return new RegisterMrRequest(Fields.int32(in), Fields.int64(in), Fields.int64(in), Fields.int64(in), Fields.int32(in));
    }
}
