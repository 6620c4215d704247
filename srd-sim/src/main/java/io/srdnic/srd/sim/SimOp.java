package io.srdnic.srd.sim;

import io.srdnic.srd.wire.DropReason;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What one simulated message does ({@code srdnic sim --ops}): a sender cycles through the
 * scenario's operations, message i doing {@code ops[i % ops.size()]}. Besides the SRD sends, a UD
 * datagram, the four ways a responder's QP checks refuse a message and the three RDMA operations
 * (WRITE, WRITE with immediate, READ, on the regions the hosts register and tell each other of), so
 * that one run (and its pcap) holds every packet type the wire carries today and every drop
 * indication but REMOTE_ACCESS (which only a request outside its region, or a forged one, meets).
 * <p>
 * Each operation is one of the {@code Ledger}'s message kinds, so the run's per-message checks
 * hold for it as they do for the hostile sends {@link Scenario.Events#hostileFraction} draws: the
 * refused ones are sent exactly as those are (to {@code SimHost.ABSENT_QPN}, with
 * {@code SimHost.WRONG_QKEY}, to the destination's receive-less sink QP, longer than its receives).
 */
public enum SimOp {
    /** SEND on the SRD QP (no immediate data): delivered exactly once, completes SUCCESS. */
    SEND("send", Ledger.SEND, 0),
    /** SEND_WITH_IMM on the SRD QP (what the simulator always did): delivered exactly once, completes SUCCESS. */
    SEND_IMM("send-imm", Ledger.NORMAL, 0),
    /** SEND_WITH_IMM on a UD QP to the destination's UD QP: completes SUCCESS as it leaves; delivered if it arrives (no ACK, no retry). */
    UD("ud", Ledger.UD, 0),
    /** SRD send to a QPN no QP of the destination has: a BAD_DEST_QP drop indication. */
    BAD_DEST_QP("bad-dest-qp", Ledger.BAD_QPN, DropReason.BAD_DEST_QP),
    /** SRD send with a Q_Key the destination QP does not have: a REMOTE_INVALID_REQUEST drop indication. */
    BAD_QKEY("bad-qkey", Ledger.BAD_QKEY, DropReason.REMOTE_INVALID_REQUEST),
    /** SRD send to a destination QP with no receive posted: an RNR drop indication (no RNR retry unless the events ask). */
    RNR("rnr", Ledger.RNR, DropReason.RNR),
    /** SRD send longer than the destination's posted receives: a REMOTE_OPERATION drop indication. */
    TOO_LONG("too-long", Ledger.TOO_LONG, DropReason.REMOTE_OPERATION),
    /** RDMA WRITE into the destination's registered region: completes SUCCESS with every byte there (see {@code RdmaChecks}). */
    RDMA_WRITE("rdma-write", Ledger.RDMA_WRITE, 0),
    /** RDMA WRITE with immediate: lands as rdma-write, then consumes a receive that completes with the immediate and the write's length. */
    RDMA_WRITE_IMM("rdma-write-imm", Ledger.RDMA_WRITE_IMM, 0),
    /** RDMA READ of the destination's patterned read area: completes SUCCESS with exactly those bytes in the reader's buffer. */
    RDMA_READ("rdma-read", Ledger.RDMA_READ, 0);

    /** What {@code srdnic sim} did before there was a choice. */
    public static final List<SimOp> DEFAULT = List.of(SEND_IMM);

    private final String label;
    private final byte kind;
    private final int dropReason;

    SimOp(String label, byte kind, int dropReason) {
        this.label = label;
        this.kind = kind;
        this.dropReason = dropReason;
    }

    /** The name on the command line. */
    public String label() {
        return label;
    }

    /** The send completion status this operation must end with when no fault of the scenario intervenes. */
    public int expectedStatus() {
        return Ledger.EXPECTED[kind];
    }

    /** The DropReason the responder reports for it, 0 when it is not refused. */
    public int dropReason() {
        return dropReason;
    }

    /** The ledger's kind of message this operation sends. */
    byte kind() {
        return kind;
    }

    /** Whether it reads or writes the destination's memory region (the hosts then register one). */
    public boolean isRdma() {
        return Ledger.isRdma(kind);
    }

    /** The operation named {@code label} on the command line; throws with the list of names otherwise. */
    public static SimOp of(String label) {
        String wanted = label.strip().toLowerCase(Locale.ROOT);
        for (SimOp op : values()) {
            if (op.label.equals(wanted)) {
                return op;
            }
        }
        throw new IllegalArgumentException("unknown operation '" + label + "': use " + labels());
    }

    /** Parses a comma-separated list of operation names. */
    public static List<SimOp> list(String labels) {
        List<SimOp> ops = new ArrayList<>();
        for (String label : labels.split(",")) {
            if (!label.isBlank()) {
                ops.add(of(label));
            }
        }
        return List.copyOf(ops);
    }

    /** Every operation name, comma-separated. */
    public static String labels() {
        StringBuilder s = new StringBuilder();
        for (SimOp op : values()) {
            s.append(s.isEmpty() ? "" : ",").append(op.label);
        }
        return s.toString();
    }
}
