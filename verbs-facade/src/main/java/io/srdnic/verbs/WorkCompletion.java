package io.srdnic.verbs;

import io.srdnic.srd.api.WcOpcode;
import io.srdnic.srd.api.WcStatus;

/**
 * One work completion (ibv_wc), filled in place by {@link CompletionQueue#poll}: make an array of
 * them once and poll into it for ever.
 */
public final class WorkCompletion {
    long wrId;
    int status;
    int opcode;
    int byteLength;
    boolean hasImmediate;
    int immediate;
    int qpNum;
    int sourceQpn;
    int sourceIp;

    public long wrId() {
        return wrId;
    }

    /** A {@link WcStatus} value. */
    public int status() {
        return status;
    }

    public boolean ok() {
        return status == WcStatus.SUCCESS;
    }

    public String statusName() {
        return WcStatus.name(status);
    }

    /** A {@link WcOpcode} value: SEND, RECV or RECV_WITH_IMM. */
    public int opcode() {
        return opcode;
    }

    public int byteLength() {
        return byteLength;
    }

    public boolean hasImmediate() {
        return hasImmediate;
    }

    public int immediate() {
        return immediate;
    }

    public int qpNum() {
        return qpNum;
    }

    /** For receives: the sending QP. */
    public int sourceQpn() {
        return sourceQpn;
    }

    /** For receives: the sender's IPv4 address. */
    public int sourceIp() {
        return sourceIp;
    }

    @Override
    public String toString() {
        return "WorkCompletion[wrId=" + wrId + ", " + WcStatus.name(status) + ", " + WcOpcode.name(opcode) + ", len=" + byteLength + "]";
    }
}
