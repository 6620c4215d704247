package io.srdnic.dataplane.attach;

import io.srdnic.srd.api.WcOpcode;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.verbs.EmbeddedObjects;
import io.srdnic.verbs.RecvWr;
import io.srdnic.verbs.SharedReceiveQueue;
import io.srdnic.verbs.attach.ShmRing;

/**
 * The dataplane's side of an attached client's SRQ (basic or XRC): the embedded SRQ, and the
 * receive ring in the client's shared file whose records it posts to it. A receive refused here is
 * counted; an XRC SRQ completes it on its CQ (a basic SRQ has none: no QP owns the receive yet).
 */
final class ServedSrq implements ReceiveRing.Target {
    final SharedReceiveQueue srq;
    final ShmRing ring;
    private final ClientSession client;
    /** An XRC SRQ's CQ, else null. */
    private final ServedCq cq;
    private final RecvWr wr = new RecvWr();
    /** Records waiting in the ring when the dataplane last looked. */
    int fill;

    ServedSrq(ClientSession client, SharedReceiveQueue srq, ShmRing ring, ServedCq cq) {
        this.client = client;
        this.srq = srq;
        this.ring = ring;
        this.cq = cq;
    }

    boolean completesInto(ServedCq cq) {
        return this.cq == cq;
    }

    /** Posts what the client put in the ring, at most {@code budget}; returns the records taken, or {@link ShmRing#CORRUPT}. */
    int pump(int budget) {
        int n = ring.available();
        fill = Math.max(n, 0);
        return n <= 0 ? n : ReceiveRing.take(ring, Math.min(n, budget), client.pool(), wr, this);
    }

    @Override
    public int post(RecvWr receive) {
        return EmbeddedObjects.postSrqReceive(srq, receive); // after the verbs checks, straight to the transport's SRQ
    }

    @Override
    public void refuse(long wrId) {
        client.refused();
        if (cq != null) {
            cq.complete(wrId, WcStatus.LOCAL_PROTECTION_ERROR, WcOpcode.RECV, 0, 0);
        }
    }
}
