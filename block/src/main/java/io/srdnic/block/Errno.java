package io.srdnic.block;


/** The error values NBD allows on the wire (proto.md, "Error values"): Linux's errno numbers. */
public final class Errno {
    public static final int EPERM = 1;
    public static final int EIO = 5;
    public static final int ENOMEM = 12;
    public static final int EINVAL = 22;
    public static final int ENOSPC = 28;
    public static final int EOVERFLOW = 75;
    public static final int ENOTSUP = 95;
    public static final int ESHUTDOWN = 108;

    private Errno() {
    }
}
