package io.srdnic.verbs;

/** A receive work request (ibv_recv_wr), made once and reused. One SGE: SRD delivers a message whole. */
public final class RecvWr {
    final Sge sge = new Sge();
    long wrId;

    public Sge sge() {
        return sge;
    }

    public RecvWr wrId(long id) {
        this.wrId = id;
        return this;
    }
}
