package io.srdnic.verbs;

import io.srdnic.verbs.attach.control.DestroyRequest;
import io.srdnic.verbs.attach.control.SrqRequest;

/** An attached shared receive queue: its receive ring in the shared file, and calls on the dataplane's SRQ. */
final class AttachedSrq implements VerbsProvider.Srq {
    private final AttachedSession session;
    private final int srqn;
    private final int xrcNumber;
    private final AttachedQp ring;

    AttachedSrq(AttachedSession session, int srqn, int xrcNumber, AttachedQp ring) {
        this.session = session;
        this.srqn = srqn;
        this.xrcNumber = xrcNumber;
        this.ring = ring;
    }

    @Override
    public int srqNum() {
        return srqn;
    }

    @Override
    public int xrcNumber() {
        return xrcNumber;
    }

    @Override
    public int limit() {
        return ask(SrqRequest.LIMIT, 0);
    }

    /** The dataplane's count: the ring's records not yet taken are not in it. */
    @Override
    public int receivesPosted() {
        return ask(SrqRequest.POSTED, 0);
    }

    /** ENOMEM when the ring is full; the dataplane takes records as the SRQ has room. */
    @Override
    public int postRecv(RecvWr wr) {
        return ring.postRecv(wr);
    }

    @Override
    public void modify(int limit) {
        ask(SrqRequest.MODIFY, limit);
    }

    @Override
    public void destroy() {
        session.request(new DestroyRequest(DestroyRequest.SRQ, srqn));
    }

    /** One SRQ call on the dataplane; its answer. */
    private int ask(int op, int value) {
        return session.request(new SrqRequest(op, srqn, value)).state();
    }
}
