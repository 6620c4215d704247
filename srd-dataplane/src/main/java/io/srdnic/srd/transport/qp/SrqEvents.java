package io.srdnic.srd.transport.qp;

/**
 * What a {@link SharedReceiveQueue} tells the device it belongs to, handed in at creation; the
 * same object names the device when a QP asks to use the SRQ.
 */
public interface SrqEvents {
    /** The SRQ's armed limit was crossed: raise SRQ_LIMIT_REACHED for {@code srqn}. */
    void limitReached(int srqn);

    /** An SRC SRQ was destroyed: its SRC SRQ number names nothing any more. */
    void srcSrqDestroyed(SharedReceiveQueue srq);
}
