package io.srdnic.pmd;

import io.srdnic.ffm.Libc;
import io.srdnic.ffm.rte_errno_h;
import io.srdnic.ffm.srdnic_shim_h;

/**
 * A DPDK control-path call failed. The message carries DPDK's own error text and what to change.
 * Data-path calls never throw: they return counts and bump counters.
 */
public final class DpdkException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int errno;

    public DpdkException(String what, int errno, String advice) {
        super(what + ": " + describe(errno) + (advice == null || advice.isEmpty() ? "" : " — " + advice));
        this.errno = errno;
    }

    /** The (positive) errno DPDK reported. */
    public int errno() {
        return errno;
    }

    /** Checks the usual DPDK return convention: negative is {@code -errno}. */
    static int check(int rc, String what, String advice) {
        if (rc < 0) {
            throw new DpdkException(what, -rc, advice);
        }
        return rc;
    }

    /** For calls that return -1/NULL and leave the reason in rte_errno (of this thread). */
    static DpdkException fromRteErrno(String what, String advice) {
        return new DpdkException(what, srdnic_shim_h.srdnic_errno(), advice);
    }

    /** A POSIX errno as every srdnic message says one ("ENODEV (No such device)"); DPDK's own (1000 and up) by rte_strerror. */
    static String describe(int errno) {
        if (errno > 0 && errno < 1000) {
            return Libc.describe(errno);
        }
        String text = rte_errno_h.rte_strerror(errno).reinterpret(512).getString(0);
        return "rte_errno " + errno + " (" + text + ")";
    }
}
