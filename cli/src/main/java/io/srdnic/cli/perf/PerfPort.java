package io.srdnic.cli.perf;

import io.srdnic.pmd.EthPacketIo;
import io.srdnic.pmd.EthPort;
import io.srdnic.pmd.MbufPool;
import io.srdnic.pmd.PacketIo;
import io.srdnic.pmd.PortConfig;
import io.srdnic.srd.api.TransportConfig;

/**
 * A started DPDK port and the pool its RX queue fills, used first by the raw ping-pong and then
 * by the SRD context ({@code Device.dpdk(port, pool)}), so both measure the same port. Closes
 * them if this side opened them (not a RingLink end, which its link closes).
 */
final class PerfPort implements AutoCloseable {
    /** A pool sized for whole SRD frames, as {@code Device.dpdk(devargs)} makes. */
    static final int POOL_SIZE = 8191;
    static final int FRAME_ROOM = 4096 + 256;
    /**
     * net_af_xdp uses the pool's memory as its UMEM, whose frames must fit in a 4 KiB page: a
     * 4096 + 256 B room cannot (rx queue setup fails "Failed to create umem"); 2048 B, as pktgen uses, can.
     */
    static final int AF_XDP_FRAME_ROOM = 2048;
    /** The SRD MTU ({@link #srdMtu()}) of an af_xdp port: 2048 B of frame room less 256 B of headroom and 90 B of headers. */
    static final int AF_XDP_SRD_MTU = AF_XDP_FRAME_ROOM - 256 - TransportConfig.FRAME_OVERHEAD;

    final EthPort port;
    final MbufPool pool;
    private final boolean owned;

    PerfPort(EthPort port, MbufPool pool, boolean owned) {
        this.port = port;
        this.pool = pool;
        this.owned = owned;
    }

    /** Hot-plugs {@code devargs} into the running EAL, configures and starts it with a pool of its own. */
    static PerfPort attach(String devargs, String poolName) {
        EthPort port = EthPort.attach(devargs);
        MbufPool pool = null;
        try {
            pool = MbufPool.create(poolName, POOL_SIZE, devargs.startsWith("net_af_xdp") ? AF_XDP_FRAME_ROOM : FRAME_ROOM);
            port.configure(PortConfig.DEFAULT, pool).start();
            return new PerfPort(port, pool, true);
        } catch (RuntimeException e) {
            port.close();
            if (pool != null) {
                pool.close();
            }
            throw e;
        }
    }

    PacketIo io() {
        return new EthPacketIo(port, 0, pool);
    }

    /** The SRD MTU a context on this port will have: the largest frame less 90 bytes of headers, at most 4096. */
    int srdMtu() {
        return Math.min(TransportConfig.DEFAULT_MTU, io().maxFrameLength() - TransportConfig.FRAME_OVERHEAD);
    }

    @Override
    public void close() {
        if (owned) {
            port.close();
            pool.close();
        }
    }
}
