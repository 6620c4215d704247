package io.srdnic.rnbd.protocol;

/** The Linux errno values RNBD answers with (positive; RTRS carries them in its IO_RSP immediate). */
public final class RnbdErrno {
    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int EIO = 5;
    public static final int ENXIO = 6;
    /** RTRS's "every send queue full for now" (the client side only: never on the wire). */
    public static final int EAGAIN = 11;
    public static final int EEXIST = 17;
    public static final int EINVAL = 22;
    public static final int EPROTONOSUPPORT = 93;
    public static final int EOPNOTSUPP = 95;
    public static final int ECONNABORTED = 103;

    private RnbdErrno() {
    }
}
