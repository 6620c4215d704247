package io.srdnic.rnbd.client;

import io.srdnic.block.Extents;
import io.srdnic.block.IoCompletion;
import java.nio.ByteBuffer;

/**
 * One BlockDevice operation on its way through the session: pooled, so a request allocates
 * nothing. Larger than one RTRS IO, it goes as pieces, one after the other, each at most the
 * session's max IO (data) or the device's discard limit.
 */
final class BlockOp {
    RnbdDevice device;
    int op;
    int flags;
    long offset;
    long length;
    ByteBuffer buffer;
    IoCompletion done;
    /** A block status's receiver of the extents; null for any other operation. */
    Extents extents;
    long progress;
    int piece;
    /** System.nanoTime() when queued, and when its current piece went to RTRS (IoStages). */
    long enqueuedAt;
    long submittedAt;

    void set(RnbdDevice device, int op, int flags, long offset, long length, ByteBuffer buffer, IoCompletion done) {
        this.device = device;
        this.op = op;
        this.flags = flags;
        this.offset = offset;
        this.length = length;
        this.buffer = buffer;
        this.done = done;
        this.extents = null;
        this.progress = 0;
        this.piece = 0;
    }
}
