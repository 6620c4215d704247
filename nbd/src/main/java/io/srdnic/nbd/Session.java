package io.srdnic.nbd;

import io.srdnic.block.BlockDevice;

/**
 * What the handshake agreed on: the export, the transmission flags sent, structured replies, and
 * whether the client selected the {@code base:allocation} metadata context for this export (then
 * NBD_CMD_BLOCK_STATUS is valid).
 */
record Session(Export export, int transmissionFlags, boolean structuredReplies, boolean blockStatus) {

    /**
     * The transmission flags for a device (NBD_FLAG_SEND_DF only once structured replies are on;
     * NBD_FLAG_SEND_FAST_ZERO when the device can zero quickly).
     */
    static int transmissionFlags(BlockDevice device, boolean structuredReplies) {
        int flags = Nbd.FLAG_HAS_FLAGS | Nbd.FLAG_SEND_FLUSH | Nbd.FLAG_SEND_FUA | Nbd.FLAG_SEND_TRIM
            | Nbd.FLAG_SEND_WRITE_ZEROES;
        if (device.readOnly()) {
            flags |= Nbd.FLAG_READ_ONLY;
        }
        if (device.multiConnSafe()) {
            flags |= Nbd.FLAG_CAN_MULTI_CONN;
        }
        if (structuredReplies) {
            // Every read is answered with one data chunk, so "don't fragment" always holds.
            flags |= Nbd.FLAG_SEND_DF;
        }
        if (device.canFastZero()) {
            flags |= Nbd.FLAG_SEND_FAST_ZERO;
        }
        return flags;
    }

    boolean fastZero() {
        return (transmissionFlags & Nbd.FLAG_SEND_FAST_ZERO) != 0;
    }
}
