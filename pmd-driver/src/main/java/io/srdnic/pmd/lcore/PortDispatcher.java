package io.srdnic.pmd.lcore;

import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.PacketIo;
import java.lang.foreign.Arena;
import java.util.Arrays;

/**
 * Software flow steering for a port without RSS or rte_flow (memif, ring, af_packet, tap): one
 * lcore, the port's receiver, owns its only queue pair; every context on the port has a
 * {@link LanePacketIo} keyed by its IPv4 address ({@link Ipv4Destination}), run by the lcore that
 * owns the context. {@link #poll} (on the receiver) bursts the RX queue, passes each frame to the
 * ring of the lane its destination address names, frees and counts frames no lane owns or whose lane's ring is
 * full, and transmits what the other lanes queued for sending. Every mbuf is thus handed on,
 * transmitted or freed exactly once; nothing blocks and nothing is allocated per frame.
 */
public final class PortDispatcher {
    /** Default slots per hand-off ring: 16 bursts of 32, few enough not to hoard the pool. */
    public static final int DEFAULT_RING_CAPACITY = 512;
    /** TX bursts taken from one lane's ring per poll, so that one busy lane cannot hold up the port's RX. */
    private static final int MAX_TX_BURSTS_PER_LANE = 8;

    private final PacketIo port;
    private final long[] keys;
    private final LanePacketIo[] lanes;
    private final int receiverLane;
    private final HandoffCounts counts;
    private final MbufBatch rx;
    private final MbufBatch tx;
    private final MbufBatch dropped;
    private final Mbuf view = new Mbuf();

    /**
     * Steers {@code port}'s frames to one lane per IPv4 address of {@code addresses} (distinct), lane
     * {@code receiverLane} being the one whose lcore polls the port. {@code laneCounts[i]} are the
     * counts of the lcore that runs lane i (the receiver's lane's are the dispatcher's too).
     */
    public PortDispatcher(PacketIo port, int[] addresses, int receiverLane, HandoffCounts[] laneCounts, int ringCapacity, Arena arena) {
        if (addresses.length == 0 || laneCounts.length != addresses.length || receiverLane < 0 || receiverLane >= addresses.length) {
            throw new IllegalArgumentException("need one count set per address and a receiver among them");
        }
        if (Arrays.stream(addresses).distinct().count() != addresses.length) {
            throw new IllegalArgumentException("each lane needs an IPv4 address of its own");
        }
        this.port = port;
        this.keys = Arrays.stream(addresses).mapToLong(Integer::toUnsignedLong).toArray();
        this.receiverLane = receiverLane;
        this.counts = laneCounts[receiverLane];
        this.lanes = new LanePacketIo[keys.length];
        for (int i = 0; i < lanes.length; i++) {
            lanes[i] = new LanePacketIo(port, i == receiverLane, new HandoffRing(ringCapacity), laneCounts[i]);
        }
        this.rx = new MbufBatch(arena);
        this.tx = new MbufBatch(arena);
        this.dropped = new MbufBatch(arena);
    }

    /** The packet I/O of lane {@code i}, for the context with that lane's address: used by that lane's lcore only. */
    public PacketIo lane(int i) {
        return lanes[i];
    }

    public int lanes() {
        return lanes.length;
    }

    /** The receiver's duty: RX burst and steering, then the other lanes' queued frames out. Returns frames moved. */
    public int poll() {
        int work = steerReceived();
        for (int i = 0; i < lanes.length; i++) {
            if (i != receiverLane) {
                work += transmitQueued(lanes[i].outbound);
            }
        }
        return work;
    }

    private int steerReceived() {
        int n = port.receive(rx);
        for (int i = 0; i < n; i++) {
            long mbuf = rx.address(i);
            int lane = laneOf(Ipv4Destination.of(view.wrap(mbuf)));
            if (lane < 0) {
                counts.noOwnerDrops++;
                dropped.add(mbuf);
            } else if (!lanes[lane].inbound.offer(mbuf)) {
                counts.ringFullDrops++;
                dropped.add(mbuf);
            } else if (lane != receiverLane) {
                counts.framesOut++;
            }
        }
        rx.clear();
        if (!dropped.isEmpty()) {
            port.free(dropped);
        }
        return n;
    }

    private int transmitQueued(HandoffRing ring) {
        int moved = 0;
        for (int b = 0; b < MAX_TX_BURSTS_PER_LANE; b++) {
            int n = ring.drainTo(tx);
            if (b == 0) {
                counts.sawOccupancy(ring.lastFound());
            }
            if (n == 0) {
                break;
            }
            counts.framesIn += n;
            moved += n;
            port.transmit(tx);
        }
        return moved;
    }

    private int laneOf(long address) {
        for (int i = 0; i < keys.length; i++) {
            if (keys[i] == address) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Frees every frame still waiting in any hand-off ring; once every lane's lcore and the
     * receiver have stopped (the rings then have no producer or consumer left). Returns how many.
     */
    public int drain() {
        int freed = 0;
        for (LanePacketIo lane : lanes) {
            freed += freeAll(lane.inbound);
            if (lane.outbound != null) {
                freed += freeAll(lane.outbound);
            }
        }
        return freed;
    }

    private int freeAll(HandoffRing ring) {
        int freed = 0;
        int n;
        while ((n = ring.drainTo(dropped)) > 0) {
            freed += n;
            port.free(dropped);
        }
        return freed;
    }
}
