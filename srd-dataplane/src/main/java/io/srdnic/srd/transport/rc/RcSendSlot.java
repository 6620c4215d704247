package io.srdnic.srd.transport.rc;

import io.srdnic.srd.transport.port.GatherList;
import java.lang.foreign.MemorySegment;

/**
 * One work request on an RC (or SRC) QP's send queue, as rxe's send WQE: what was posted (opcode,
 * buffer, remote memory, atomic operands) and how far it has got (segments sent and in flight,
 * its PSN range, READ bytes still due, done). The requester posts into a slot, segments and emits
 * from it; the {@link RcCompleter} retires it. The slots live in the {@link RcSendQueue}.
 */
final class RcSendSlot {
    int opcode;
    long wrId;
    MemorySegment buffer;
    long offset;
    int length;
    /**
     * A SEND or WRITE gathered from several SGEs: its entries, which segmentation walks as one
     * message of {@code length} bytes (empty: the message is {@code length} bytes at {@code offset}
     * of {@code buffer}). Made with the slot, refilled per request.
     */
    final GatherList sges = new GatherList();
    int immediate;
    long remoteAddress;
    int rkey;
    /** Atomics: CMP_SWAP's compare and swap, FETCH_ADD's add (in compareAdd), as ibv_send_wr.wr.atomic names them. */
    long compareAdd;
    long swap;
    boolean signaled;
    int segments;
    int nextSegment;
    int inFlight;
    int readLeft;
    /** SEND and WRITE_WITH_IMM: the message's receive sequence number (the responder's check that it takes the right receive). */
    int ordinal;
    /** SRC: the responder's SRQ the request is for, carried by every packet of it (0 on RC). */
    int remoteSrqn;
    /** The PSNs of a request's first and last packet: it is done only once the cumulative ACK passes its last. */
    int firstPsn;
    int lastPsn;
    int generation;
    boolean done;
    /**
     * A request a local check refused (a bad lkey or SGE, an opcode or max_rd_atomic that cannot
     * carry it): the status it completes with once it reaches the head, the QP then going to ERROR
     * (rxe's requester meeting a bad WQE); -1 for a request to send. Never sent.
     */
    int refused = -1;
    /**
     * Packets of it the driver still reads from {@code buffer} (sent without a copy): it does not
     * complete, and its slot is not reused, before they are all freed.
     */
    int nicHolds;
    /** Flushed (the QP failed) but still read by the driver: it completes with {@code endStatus} once freed, in order. */
    boolean ending;
    int endStatus;
    /** Whether its completion hands the buffer back to the layer above (false: that layer never counted it as posted). */
    boolean releases = true;
}
