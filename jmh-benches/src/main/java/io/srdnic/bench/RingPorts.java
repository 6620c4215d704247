package io.srdnic.bench;

import io.srdnic.pmd.Eal;
import io.srdnic.pmd.EalConfig;
import io.srdnic.pmd.EthPort;
import io.srdnic.pmd.MbufPool;
import io.srdnic.pmd.PortConfig;

/**
 * The set-up testpmd gets from {@code --no-huge -m 512 --no-pci --vdev net_ring0 --vdev net_ring1
 * -- --rxd=512 --txd=512 --total-num-mbufs=8192}: EAL with two self-looping {@code net_ring} ports
 * (each one's RX and TX are the same ring, so what a port sends it receives), one RX and one TX
 * queue each, and one pool of 2048-byte mbufs feeding both. Closing it closes EAL, which removes
 * its runtime directory under /var/run/dpdk.
 */
public final class RingPorts implements AutoCloseable {
    /** testpmd's fallback when the PMD names no default (RTE_ETH_DEV_FALLBACK_RX/TX_RINGSIZE); net_ring ignores it. */
    public static final int DESCRIPTORS = 512;
    public static final int MBUFS = 8192;
    /** testpmd's default mbuf data size less headroom (2176 - 128). */
    public static final int FRAME_ROOM = 2048;

    private final Eal eal;
    private final MbufPool pool;
    private final EthPort port0;
    private final EthPort port1;

    private RingPorts(Eal eal, MbufPool pool, EthPort port0, EthPort port1) {
        this.eal = eal;
        this.pool = pool;
        this.port0 = port0;
        this.port1 = port1;
    }

    /** Starts EAL (once per JVM) with {@code net_ring0} and {@code net_ring1}, and starts both ports. */
    public static RingPorts start(String filePrefix, int descriptors, int mbufs) {
        EalConfig config = new EalConfig().vdev("net_ring0").vdev("net_ring1").memoryMb(512);
        if (filePrefix != null) {
            config.filePrefix(filePrefix);
        }
        Eal eal = Eal.start(config);
        try {
            MbufPool pool = MbufPool.create("iofwd_pool", mbufs, FRAME_ROOM);
            PortConfig portConfig = new PortConfig(1, 1, descriptors, descriptors, 0, true);
            EthPort p0 = EthPort.byName("net_ring0").configure(portConfig, pool).start();
            EthPort p1 = EthPort.byName("net_ring1").configure(portConfig, pool).start();
            return new RingPorts(eal, pool, p0, p1);
        } catch (RuntimeException e) {
            eal.close();
            throw e;
        }
    }

    public static RingPorts start() {
        return start(null, DESCRIPTORS, MBUFS);
    }

    public Eal eal() {
        return eal;
    }

    public MbufPool pool() {
        return pool;
    }

    public EthPort port0() {
        return port0;
    }

    public EthPort port1() {
        return port1;
    }

    /** Frames received on both ports, from the PMD's own counters (what testpmd's Rx-pps is computed from). */
    public long rxPackets() {
        return port0.stats().rxPackets() + port1.stats().rxPackets();
    }

    @Override
    public void close() {
        eal.close();
    }
}
