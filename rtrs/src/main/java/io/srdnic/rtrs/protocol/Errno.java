package io.srdnic.rtrs.protocol;

/** The Linux errno values RTRS puts on the wire and reports (positive here; the wire carries them negated where Linux does). */
public final class Errno {
    public static final int EPERM = 1;
    public static final int EIO = 5;
    /** A submit every connected path's send queue refused for now (full): nothing was sent, try again after a poll. */
    public static final int EAGAIN = 11;
    public static final int ENXIO = 6;
    public static final int ENOMEM = 12;
    public static final int EBUSY = 16;
    public static final int EEXIST = 17;
    public static final int EINVAL = 22;
    public static final int EMSGSIZE = 90;
    public static final int ECONNABORTED = 103;
    public static final int ECONNRESET = 104;
    public static final int ENOTCONN = 107;

    private Errno() {
    }
}
