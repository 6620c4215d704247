package io.srdnic.pmd;

import io.srdnic.ffm.srdnic_shim_h;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** {@link PacketIo} over one RX/TX queue pair of a DPDK port and the pool that feeds it. */
public final class EthPacketIo implements PacketIo {
    /** XDP_PACKET_HEADROOM of the kernel: reserved in front of every AF_XDP frame. */
    static final int XDP_PACKET_HEADROOM = 256;

    private final EthPort port;
    private final RxQueue rx;
    private final TxQueue tx;
    private final MbufPool pool;
    private final int maxFrameLength;
    private final long mac;
    /** net_memif copies every segment of a frame into its ring inside the burst, then frees the frame: external buffers are safe. */
    private final boolean externalBuffers;
    /** rte_eth_stats_get's output, made once (an automatic arena: any thread may read the stats, and it goes with this object). */
    private final MemorySegment statsScratch = EthPort.statsScratch(Arena.ofAuto());

    public EthPacketIo(EthPort port, int queue, MbufPool pool) {
        this.port = port;
        this.rx = port.rxQueue(queue);
        this.tx = port.txQueue(queue);
        this.pool = pool;
        DeviceInfo info = port.info();
        // AF_XDP copies each frame into a umem frame made from the mbuf, behind XDP's own headroom.
        int room = "net_af_xdp".equals(info.driverName()) ? pool.frameRoom() - XDP_PACKET_HEADROOM : pool.frameRoom();
        this.maxFrameLength = Math.min(room, info.maxFrameLength());
        this.mac = port.macAddress();
        this.externalBuffers = "net_memif".equals(info.driverName());
    }

    @Override
    public int receive(MbufBatch batch) {
        return rx.burst(batch);
    }

    @Override
    public int transmit(MbufBatch batch) {
        return tx.burst(batch);
    }

    @Override
    public int allocate(MbufBatch batch, int n) {
        return pool.allocate(batch, n);
    }

    @Override
    public void free(MbufBatch batch) {
        MbufPool.free(batch);
    }

    @Override
    public int maxFrameLength() {
        return maxFrameLength;
    }

    @Override
    public long macAddress() {
        return mac;
    }

    @Override
    public long txDropped() {
        return tx.dropped();
    }

    @Override
    public boolean readPortStats(long[] into) {
        return port.readStats(statsScratch, into);
    }

    @Override
    public boolean offloadsUdpChecksum() {
        return port.offloadsUdpChecksum();
    }

    @Override
    public boolean transmitsExternalBuffers() {
        return externalBuffers;
    }

    @Override
    public long externalBufferFreeCallback() {
        return srdnic_shim_h.srdnic_extbuf_done$address();
    }

    public EthPort port() {
        return port;
    }

    @Override
    public String toString() {
        return "EthPacketIo[" + port.name() + " q" + rx.queueId() + "]";
    }
}
