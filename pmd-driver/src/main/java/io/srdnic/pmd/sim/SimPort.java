package io.srdnic.pmd.sim;

import io.srdnic.pmd.MacAddress;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.PacketIo;

/**
 * One host's NIC queue pair on a {@link SimNetwork}: the transport drives it exactly as it drives a
 * DPDK port's queues.
 * <p>
 * {@link #transmit} is zero-copy: the buffer itself travels through the network and is what the
 * receiver gets. It refuses (frees, and counts in {@link #txDropped()}) malformed frames and frames
 * its uplink queue has no room for; everything else is sent, and what the network then does to it
 * shows in {@link #counters()}. {@link #receive} first lets the network deliver every frame due by
 * the clock's current time, then drains this port's RX ring. Received mbufs carry this port's id
 * in their {@code port} field and no offload flags, as a real NIC's would.
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
            if (network.send(this, batch.address(i))) {
                sent++;
            }
        }
        txRefused += n - sent;
        batch.clear();
        return sent;
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
