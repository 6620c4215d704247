package io.srdnic.verbs;

import java.util.concurrent.atomic.AtomicLong;

/**
 * An embedded shared receive queue: the transport's. This side counts the receives posted, the
 * dataplane those taken (published as each is taken), so the count for ENOMEM is exact in either
 * threading mode and stays so when a QP that took receives is destroyed before its completions are polled.
 */
final class EmbeddedSrq implements VerbsProvider.Srq {
    final io.srdnic.srd.transport.qp.SharedReceiveQueue srq; // fully qualified: the facade has one too
    private final ContextDriver dataplane;
    private final int maxWr;
    private final AtomicLong posted = new AtomicLong();

    EmbeddedSrq(ContextDriver dataplane, int maxWr,
            io.srdnic.srd.transport.qp.SharedReceiveQueue srq) { // fully qualified: the facade has one too
        this.dataplane = dataplane;
        this.maxWr = maxWr;
        this.srq = srq;
    }

    @Override
    public int srqNum() {
        return srq.srqn();
    }

    @Override
    public int xrcNumber() {
        return srq.srcSrqNumber();
    }

    @Override
    public int limit() {
        return dataplane.call(srq::limit);
    }

    @Override
    public int receivesPosted() {
        return (int) (posted.get() - srq.receivesTaken());
    }

    @Override
    public int postRecv(RecvWr wr) {
        return postRecv(wr, false);
    }

    /**
     * {@code straight}: the caller is the transport's thread (the dataplane process's lcore), and the
     * receive goes to the transport's SRQ at once; else through the context's driver. Counted alike.
     */
    int postRecv(RecvWr wr, boolean straight) {
        if (receivesPosted() >= maxWr) {
            return QueuePair.ENOMEM;
        }
        Sge s = wr.sge;
        posted.incrementAndGet();
        boolean taken;
        try {
            taken = straight ? srq.postReceive(wr.wrId, s.segment, s.offset, s.length, s.lkey)
                : dataplane.postSrqRecv(srq, wr.wrId, s.segment, s.offset, s.length, s.lkey);
        } catch (IllegalStateException | IndexOutOfBoundsException e) { // destroyed, or outside its segment: refused, not counted
            posted.decrementAndGet();
            throw new VerbsException(e.getMessage());
        }
        if (!taken) {
            posted.decrementAndGet();
            return QueuePair.ENOMEM;
        }
        return 0;
    }

    @Override
    public void modify(int limit) {
        dataplane.call(() -> {
            srq.modify(limit);
            return null;
        });
    }

    @Override
    public void destroy() {
        try {
            dataplane.call(() -> {
                srq.destroy();
                return null;
            });
        } catch (IllegalStateException e) {
            throw new VerbsException(e.getMessage());
        }
    }
}
