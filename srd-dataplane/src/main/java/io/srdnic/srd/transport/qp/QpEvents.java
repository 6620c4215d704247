package io.srdnic.srd.transport.qp;

import io.srdnic.srd.api.CompletionQueue;
import io.srdnic.srd.api.QpState;

/**
 * What a {@link TransportQp} tells the device it belongs to, handed in at creation instead of a
 * reference to the transport: its CQ overruns, a move to ERROR or RESET (flush), its events, its
 * destruction, and a modify that the connected QP types' message layer must follow.
 */
public interface QpEvents {
    /** {@code qp} was modified from {@code from} to its current state (RC and SRC: the connection follows). */
    void modified(TransportQp qp, QpState from);

    /** A completion queue would overrun: the CQ goes to error and its QPs to ERROR. */
    void onCqOverrun(CompletionQueue cq);

    /** Raises the asynchronous event {@code type} for {@code qp}. */
    void raise(int type, TransportQp qp);

    /** Ends {@code qp}'s outstanding work: with WR_FLUSH_ERROR completions, or silently. */
    void flush(TransportQp qp, boolean withCompletions);

    /** Takes {@code qp} out of its device: pending sends aborted without completions. */
    void destroy(TransportQp qp);
}
