package io.srdnic.srd.sim;

import io.srdnic.srd.api.SendOpcode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What one message of an RC run does ({@code srdnic sim --transport rc --ops}): the requester
 * cycles through the list, message i doing {@code ops[i % ops.size()]}. Every RC operation, so that
 * one run (and its pcap) holds every packet RC puts on the wire: multi-packet SENDs and WRITEs
 * (FIRST, MIDDLE, LAST), READs and their answers, both atomics and their answers, and an RNR NAK.
 */
public enum RcOp {
    /** SEND of the message into the responder's next receive. */
    SEND("send", SendOpcode.SEND),
    /** SEND_WITH_IMM: as send, the receive completes with the message's index as immediate data. */
    SEND_IMM("send-imm", SendOpcode.SEND_WITH_IMM),
    /** RDMA WRITE into the responder's region. */
    RDMA_WRITE("rdma-write", SendOpcode.RDMA_WRITE),
    /** RDMA WRITE with immediate: lands as rdma-write, then consumes a receive that completes with the immediate. */
    RDMA_WRITE_IMM("rdma-write-imm", SendOpcode.RDMA_WRITE_WITH_IMM),
    /** RDMA READ of the responder's patterned read area. */
    RDMA_READ("rdma-read", SendOpcode.RDMA_READ),
    /** ATOMIC_CMP_SWAP on the responder's word: every other one compares equal and swaps. */
    CMP_SWAP("cmp-swap", SendOpcode.ATOMIC_CMP_SWAP),
    /** ATOMIC_FETCH_ADD on the responder's word. */
    FETCH_ADD("fetch-add", SendOpcode.ATOMIC_FETCH_ADD),
    /** SEND whose receive the responder posts only once it has sent an RNR NAK: the requester waits the RNR timer and sends again. */
    RNR("rnr", SendOpcode.SEND);

    private final String label;
    private final int opcode;

    RcOp(String label, int opcode) {
        this.label = label;
        this.opcode = opcode;
    }

    public String label() {
        return label;
    }

    /** The verbs opcode ({@link SendOpcode}) it posts. */
    int opcode() {
        return opcode;
    }

    /** Whether it consumes a receive of the responder. */
    boolean consumesReceive() {
        return opcode == SendOpcode.SEND || opcode == SendOpcode.SEND_WITH_IMM || opcode == SendOpcode.RDMA_WRITE_WITH_IMM;
    }

    /** The operation named {@code label}; throws with the list of names otherwise. */
    public static RcOp of(String label) {
        String wanted = label.strip().toLowerCase(Locale.ROOT);
        for (RcOp op : values()) {
            if (op.label.equals(wanted)) {
                return op;
            }
        }
        StringBuilder names = new StringBuilder();
        for (RcOp op : values()) {
            names.append(names.isEmpty() ? "" : ",").append(op.label);
        }
        throw new IllegalArgumentException("unknown RC operation '" + label + "': use " + names);
    }

    /** Parses a comma-separated list of operation names. */
    public static List<RcOp> list(String labels) {
        List<RcOp> ops = new ArrayList<>();
        for (String label : labels.split(",")) {
            if (!label.isBlank()) {
                ops.add(of(label));
            }
        }
        if (ops.isEmpty()) {
            throw new IllegalArgumentException("no RC operation given");
        }
        return List.copyOf(ops);
    }
}
