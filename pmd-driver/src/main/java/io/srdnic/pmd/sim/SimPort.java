package io.srdnic.pmd.sim;

import io.srdnic.pmd.MacAddress;
import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.PacketIo;

/**
 * One host's NIC queue pair on a {@link SimNetwork}: the transport drives it exactly as it drives a
 * DPDK port's queues.
 * <p>
 * {@link #transmit} is zero-copy: the buffer itself travels through the network and is what the
 * receiver gets. A two-segment frame whose second segment is an external buffer (the sender's
 * memory) is copied into its first segment at transmit, as net_memif copies it into its ring; the
 * external segment is then freed, releasing its memory — at once, or, after {@link
 * #holdTransmitted(int)}, only when more frames have left or {@link #reclaimTransmitted} is
 * called, as a NIC frees its transmitted mbufs lazily at a later burst. It refuses (frees, and
 * counts in {@link #txDropped()}) malformed frames and frames its uplink queue has no room for;
 * everything else is sent, and what the network then does to it shows in {@link #counters()}.
 * {@link #receive} first lets the network deliver every frame due by the clock's current time,
 * then drains this port's RX ring. Received mbufs carry this port's id in their {@code port} field
 * and no offload flags, as a real NIC's would.
 * <p>
 * Like every part of a simulation, driven by one thread only.
 */
public final class SimPort implements PacketIo {
    private final SimNetwork network;
    private final SimBufferPool pool;
    private final int id;
    private final long macAddress;
    final SimLink uplink;
    final SimLink downlink;
    final SimCounters counters = new SimCounters();
    private final int[] rxRing;
    private int rxHead;
    private int rxCount;
    private long txRefused;
    private final Mbuf head = new Mbuf();
    private final Mbuf tail = new Mbuf();
    /** External segments read but not yet freed, oldest first (a ring), and how many may wait. */
    private final long[] heldTails = new long[1024];
    private int heldFirst;
    private int heldCount;
    private int holdLimit;

    SimPort(SimNetwork network, SimBufferPool pool, int id, long macAddress, SimLink uplink, SimLink downlink, int rxRingCapacity) {
        this.network = network;
        this.pool = pool;
        this.id = id;
        this.macAddress = macAddress;
        this.uplink = uplink;
        this.downlink = downlink;
        this.rxRing = new int[rxRingCapacity];
    }

    @Override
    public int receive(MbufBatch batch) {
        batch.clear();
        network.deliverDue();
        int n = Math.min(batch.capacity(), rxCount);
        for (int i = 0; i < n; i++) {
            batch.add(pool.give(rxRing[rxHead]));
            if (++rxHead == rxRing.length) {
                rxHead = 0;
            }
        }
        rxCount -= n;
        return n;
    }

    @Override
    public int transmit(MbufBatch batch) {
        int n = batch.count();
        int sent = 0;
        for (int i = 0; i < n; i++) {
            long address = batch.address(i);
            if (head.wrap(address).next() != 0 && !linearise(address)) {
                continue;
            }
            if (network.send(this, address)) {
                sent++;
            }
        }
        while (heldCount > holdLimit) {
            freeOldestHeld();
        }
        txRefused += n - sent;
        batch.clear();
        return sent;
    }

    /**
     * Copies the second segment of the frame at {@code address} behind its first and frees (or holds)
     * it; false, both freed, when the first has no room for it or it is not an external buffer.
     */
    private boolean linearise(long address) {
        long next = head.next();
        tail.wrap(next);
        int h = head.dataLength();
        int t = tail.dataLength();
        if (!tail.isExternal() || tail.next() != 0 || h + t > head.capacity()) {
            pool.free(address);
            return false;
        }
        head.copyFrom(tail, 0, h, t);
        head.unchain().frameLength(h + t);
        if (heldCount == heldTails.length) {
            freeOldestHeld();
        }
        int at = heldFirst + heldCount;
        heldTails[at < heldTails.length ? at : at - heldTails.length] = next;
        heldCount++;
        return true;
    }

    private void freeOldestHeld() {
        long oldest = heldTails[heldFirst];
        heldFirst = heldFirst + 1 == heldTails.length ? 0 : heldFirst + 1;
        heldCount--;
        pool.free(oldest);
    }

    /**
     * Lets up to {@code frames} external segments wait after transmit before they are freed (0, the
     * default, frees each at once, as net_memif does), so a test can hold the sender's memory past the
     * frame's acknowledgement, as a NIC that cleans its TX ring lazily does.
     */
    public void holdTransmitted(int frames) {
        if (frames < 0 || frames > heldTails.length) {
            throw new IllegalArgumentException("hold 0.." + heldTails.length + " frames, was " + frames);
        }
        this.holdLimit = frames;
    }

    /** External segments transmitted and not yet freed. */
    public int heldTransmitted() {
        return heldCount;
    }

    @Override
    public boolean transmitsExternalBuffers() {
        return true;
    }

    @Override
    public void reclaimTransmitted() {
        while (heldCount > 0) {
            freeOldestHeld();
        }
    }

    @Override
    public int allocate(MbufBatch batch, int n) {
        int allocated = pool.allocate(batch, n, id);
        if (allocated < n) {
            network.poolExhausted(this);
        }
        return allocated;
    }

    @Override
    public void free(MbufBatch batch) {
        pool.free(batch);
    }

    @Override
    public int maxFrameLength() {
        return pool.dataRoom();
    }

    @Override
    public long macAddress() {
        return macAddress;
    }

    @Override
    public long txDropped() {
        return txRefused;
    }

    /** This host's id in its network, also the {@code port} field of its mbufs. */
    public int id() {
        return id;
    }

    public SimNetwork network() {
        return network;
    }

    /** Events for frames this port sent (and received): see {@link SimCounters}. */
    public SimCounters counters() {
        return counters;
    }

    /** Frames waiting in the RX ring for {@link #receive}. */
    public int rxPending() {
        return rxCount;
    }

    /** Puts a delivered frame on the RX ring; false when the ring is full. */
    boolean rxOffer(int frame) {
        if (rxCount == rxRing.length) {
            return false;
        }
        int tail = rxHead + rxCount;
        rxRing[tail < rxRing.length ? tail : tail - rxRing.length] = frame;
        rxCount++;
        return true;
    }

    @Override
    public String toString() {
        return "SimPort[" + id + ", " + MacAddress.format(macAddress) + "]";
    }
}
