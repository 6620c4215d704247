package io.srdnic.nbd;

import io.srdnic.block.Errno;

/**
 * Whether a request may run, and if not the error it gets, in the order proto.md suggests:
 * unknown command (BLOCK_STATUS is unknown unless a metadata context was selected), then a flag
 * not documented for the command (FAST_ZERO only when advertised), then a write to a read-only
 * export (EPERM), then lengths (FLUSH carries none; the others at least one byte, READ and WRITE
 * at most the advertised maximum payload), then the range (past the end: ENOSPC for the writing
 * commands, EINVAL otherwise).
 */
final class RequestCheck {
    private RequestCheck() {
    }

    /** @return 0 or the errno to answer with; {@code length} is the unsigned 32-bit wire value */
    static int check(int type, int flags, long offset, long length, long size, int maxPayload,
                     boolean readOnly, Session session) {
        int allowed = Nbd.CMD_FLAG_FUA;
        switch (type) {
            case Nbd.CMD_READ -> allowed |= session.structuredReplies() ? Nbd.CMD_FLAG_DF : 0;
            case Nbd.CMD_WRITE_ZEROES -> allowed |= Nbd.CMD_FLAG_NO_HOLE | (session.fastZero() ? Nbd.CMD_FLAG_FAST_ZERO : 0);
            case Nbd.CMD_WRITE, Nbd.CMD_FLUSH, Nbd.CMD_TRIM -> { }
            case Nbd.CMD_BLOCK_STATUS -> {
                if (!session.blockStatus()) {
                    return Errno.EINVAL;
                }
                allowed |= Nbd.CMD_FLAG_REQ_ONE;
            }
            default -> {
                return Errno.EINVAL;
            }
        }
        if ((flags & ~allowed) != 0) {
            return Errno.EINVAL;
        }
        boolean writes = type == Nbd.CMD_WRITE || type == Nbd.CMD_TRIM || type == Nbd.CMD_WRITE_ZEROES;
        if (readOnly && writes) {
            return Errno.EPERM;
        }
        if (type == Nbd.CMD_FLUSH) {
            return offset != 0 || length != 0 ? Errno.EINVAL : 0;
        }
        if (length == 0 || (type == Nbd.CMD_READ || type == Nbd.CMD_WRITE) && length > maxPayload) {
            return Errno.EINVAL;
        }
        if (Long.compareUnsigned(offset, size) > 0 || length > size - offset) {
            return type == Nbd.CMD_WRITE || type == Nbd.CMD_WRITE_ZEROES ? Errno.ENOSPC : Errno.EINVAL;
        }
        return 0;
    }
}
