package io.srdnic.nbd;

/** What the handshake agreed on: the export, the transmission flags sent, and structured replies. */
record Session(Export export, int transmissionFlags, boolean structuredReplies) {

    /** The transmission flags for a device (NBD_FLAG_SEND_DF only once structured replies are on). */
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
        return flags;
    }
}
