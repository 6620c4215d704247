package io.srdnic.pmd;

/**
 * Bursts of Ethernet frames in and out of one queue pair: what the transport is written against.
 * Implemented by a DPDK port's queues ({@code EthPacketIo}) and by the simulated network's ports
 * ({@code io.srdnic.pmd.sim.SimPort}), so the same transport code runs on both.
 * <p>
 * Ownership: {@link #receive} hands mbufs to the caller; {@link #transmit} and {@link #free} take
 * them back. Every mbuf is returned exactly once. All calls are made by the one thread that owns
 * this queue pair, return immediately, and allocate nothing.
 */
public interface PacketIo {

    /** Fills {@code batch} (replacing its contents) with up to its capacity of received frames; returns the count. */
    int receive(MbufBatch batch);

    /**
     * Sends every frame in {@code batch} and clears it. Frames the queue cannot take are freed and
     * counted in {@link #txDropped()}; returns the number sent.
     */
    int transmit(MbufBatch batch);

    /**
     * Appends {@code n} empty mbufs (data length 0, default headroom) to {@code batch}; returns
     * {@code n}, or 0 with nothing taken when the pool cannot give them all.
     */
    int allocate(MbufBatch batch, int n);

    /** Returns every mbuf in {@code batch} to its pool and clears the batch. */
    void free(MbufBatch batch);

    /** The largest frame, Ethernet header included, that one mbuf of this port carries in one go. */
    int maxFrameLength();

    /** This port's MAC address in the low 48 bits, first octet most significant. */
    long macAddress();

    /** Frames handed to {@link #transmit} that the queue did not take (freed, not sent). */
    long txDropped();

    /**
     * The whole port's totals into {@code into} in {@link PortStats#NAMES} order (packets, bytes,
     * misses and errors, as the driver counts them); false when this port keeps none (the default)
     * or the driver refused. Allocates nothing; may cost the driver a system call, so call it at
     * a low rate (the counters export), not per burst.
     */
    default boolean readPortStats(long[] into) {
        return false;
    }

    /**
     * Whether {@link #transmit} takes a two-segment frame whose second segment is an external buffer
     * ({@link Mbuf#attachExternal}, the application's memory), reads it, and frees it through its
     * shared info's callback once read. False by default: a port whose driver hands mbufs to its peer
     * by pointer (net_ring), a decorator that reads frames, or a NIC without DMA mapping of that memory
     * must get copies.
     */
    default boolean transmitsExternalBuffers() {
        return false;
    }

    /** The free callback to put in an external buffer's shared info ({@link ExternalBuffers}); 0 where none is called. */
    default long externalBufferFreeCallback() {
        return 0;
    }

    /**
     * Asks the driver to free now the transmitted mbufs it still holds (a NIC frees them lazily, at a
     * later burst), so that external buffers are released before their memory goes. Nothing by default:
     * a driver that copies at transmit (net_memif) holds none.
     */
    default void reclaimTransmitted() {
    }

    /**
     * Whether the NIC fills in the UDP checksum of the frames sent ({@link Mbuf#offloadUdpChecksum}; the
     * port advertised RTE_ETH_TX_OFFLOAD_UDP_CKSUM and was configured with it). Received frames' checks
     * show in their ol_flags (RTE_MBUF_F_RX_L4_CKSUM_*) wherever the driver sets them.
     */
    default boolean offloadsUdpChecksum() {
        return false;
    }
}
