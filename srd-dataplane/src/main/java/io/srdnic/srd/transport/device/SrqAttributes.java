package io.srdnic.srd.transport.device;

import io.srdnic.srd.api.CompletionQueue;
import io.srdnic.srd.transport.rc.SrcDomain;
import java.util.StringJoiner;

/**
 * What a shared receive queue is created with (ibv_srq_init_attr, with seed 001's SRC additions):
 * its size and limit, its protection domain, and — all three or none — an SRC domain, an SRC SRQ
 * number and an SRC CQ. With them, SRC QPs of that domain deliver into it the messages whose
 * packets carry its number, completing them on its CQ and checking RDMA against its protection
 * domain.
 * <pre>{@code
 * SharedReceiveQueue srq = transport.createSrq(new SrqAttributes().maxWr(256).pd(jobPd)
 *     .srcDomain(domain).srcSrqNumber(transport.freeSrcSrqNumber()).srcCq(jobCq));
 * }</pre>
 */
public final class SrqAttributes {
    private int maxWr = 1;
    private int limit;
    private int pd;
    private SrcDomain srcDomain;
    private int srcSrqNumber;
    private boolean srcSrqNumberSet;
    private CompletionQueue srcCq;

    public SrqAttributes maxWr(int value) {
        maxWr = value;
        return this;
    }

    /** Arms the SRQ's limit event at creation (0: disarmed). */
    public SrqAttributes limit(int value) {
        limit = value;
        return this;
    }

    /** The protection domain: an SRC message's RDMA and atomics are checked against it. */
    public SrqAttributes pd(int value) {
        pd = value;
        return this;
    }

    public SrqAttributes srcDomain(SrcDomain value) {
        srcDomain = value;
        return this;
    }

    /** The number SRC packets name this SRQ by, 1..0xFFFFFF, unique on its device. */
    public SrqAttributes srcSrqNumber(int value) {
        srcSrqNumber = value;
        srcSrqNumberSet = true;
        return this;
    }

    /** The CQ where the receives of SRC messages delivered into this SRQ complete. */
    public SrqAttributes srcCq(CompletionQueue value) {
        srcCq = value;
        return this;
    }

    public int maxWr() {
        return maxWr;
    }

    public int limit() {
        return limit;
    }

    public int pd() {
        return pd;
    }

    public SrcDomain srcDomain() {
        return srcDomain;
    }

    public int srcSrqNumber() {
        return srcSrqNumber;
    }

    public CompletionQueue srcCq() {
        return srcCq;
    }

    /** Whether the SRC attributes are all set (false when none is); throws when only some are, naming them. */
    boolean checkSrc() {
        StringJoiner given = new StringJoiner(", ");
        StringJoiner missing = new StringJoiner(", ");
        (srcDomain != null ? given : missing).add("srcDomain");
        (srcSrqNumberSet ? given : missing).add("srcSrqNumber");
        (srcCq != null ? given : missing).add("srcCq");
        if (given.length() == 0) {
            return false;
        }
        if (missing.length() > 0) {
            throw new IllegalArgumentException("an SRQ takes its SRC attributes all three (srcDomain, srcSrqNumber, srcCq) or none: given "
                + given + ", missing " + missing);
        }
        if (srcSrqNumber < 1 || srcSrqNumber > 0xFF_FFFF) {
            throw new IllegalArgumentException("srcSrqNumber is 1..0xFFFFFF (24 bits on the wire), was " + srcSrqNumber);
        }
        return true;
    }
}
