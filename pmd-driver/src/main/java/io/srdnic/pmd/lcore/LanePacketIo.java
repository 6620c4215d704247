package io.srdnic.pmd.lcore;

import io.srdnic.pmd.ForwardingPacketIo;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.PacketIo;

/**
 * One context's view of a port steered by a {@link PortDispatcher}: what the transport runs on,
 * unchanged. It receives what the dispatcher put on its inbound ring. The receiver's own lane
 * transmits straight on the port (same thread); any other lane puts its frames on its outbound
 * ring for the receiver to send, and a full ring frees and counts them ({@link #txDropped}) rather
 * than wait. Mbufs come from and go back to the port's pool, which DPDK lets any registered lcore
 * use; allocation, freeing and the port's MAC and frame size go to the port as they are. Each call is made by the one lcore that owns this
 * lane.
 */
final class LanePacketIo extends ForwardingPacketIo {
    private final boolean receiver;
    final HandoffRing inbound;
    /** Frames for the receiver to transmit; null on the receiver's own lane. */
    final HandoffRing outbound;
    private final HandoffCounts counts;
    private long txRefused;

    LanePacketIo(PacketIo port, boolean receiver, HandoffRing inbound, HandoffCounts counts) {
        super(port);
        this.receiver = receiver;
        this.inbound = inbound;
        this.outbound = receiver ? null : new HandoffRing(inbound.capacity());
        this.counts = counts;
    }

    @Override
    public int receive(MbufBatch batch) {
        batch.clear();
        int n = inbound.drainTo(batch);
        if (!receiver) {
            counts.sawOccupancy(inbound.lastFound());
            counts.framesIn += n;
        }
        return n;
    }

    @Override
    public int transmit(MbufBatch batch) {
        if (receiver) {
            return inner.transmit(batch);
        }
        int n = batch.count();
        int refused = 0;
        for (int i = 0; i < n; i++) {
            long mbuf = batch.address(i);
            if (!outbound.offer(mbuf)) {
                batch.set(refused++, mbuf); // the ring has the others now: keep only the refused, at the front
            }
        }
        counts.framesOut += n - refused;
        if (refused == 0) {
            batch.clear();
        } else {
            batch.count(refused);
            inner.free(batch);
            txRefused += refused;
            counts.ringFullDrops += refused;
        }
        return n - refused;
    }

    /** The port's refusals on the receiver's lane; a full outbound ring's drops on any other. */
    @Override
    public long txDropped() {
        return receiver ? inner.txDropped() : txRefused;
    }

    /** The port's totals once, on the receiver's lane (the other lanes' contexts would count the same frames again). */
    @Override
    public boolean readPortStats(long[] into) {
        return receiver && inner.readPortStats(into);
    }
}
