package io.srdnic.bench;

import io.srdnic.ffm.Dpdk;
import io.srdnic.ffm.srdnic_shim_h;
import io.srdnic.pmd.EthPort;
import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.MbufPool;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Locale;

/**
 * testpmd's {@code io} forwarding mode in Java: two streams, RX port 0 &rarr; TX port 1 and RX port 1
 * &rarr; TX port 0, bursts of {@link #BURST}, frames untouched, what TX does not take freed and counted.
 * One pass of {@link #forwardOnce()} is what one iteration of testpmd's forwarding lcore does
 * ({@code pkt_burst_io_forward} on each stream); {@link #run()} repeats it until {@link #stop()}.
 * <p>
 * How a burst reaches the PMD is chosen once ({@link Path}); every path is one downcall per burst:
 * <ul>
 * <li>{@link Path#SHIM}: {@code srdnic_rx_burst} and {@code srdnic_tx_burst_or_free}, the C shim over
 *     the inline {@code rte_eth_rx_burst}/{@code rte_eth_tx_burst}, bound as ffm-bindings binds them;</li>
 * <li>{@link Path#FP_OPS}: the PMD burst functions read from {@code rte_eth_fp_ops} once, called
 *     straight from Java through one {@code static final} handle taking the function pointer as
 *     argument — no shim frame, no port/queue lookup, no RX/TX callback check;</li>
 * <li>{@link Path#SHIM_LONG}, {@link Path#FP_OPS_LONG}: the same with the queue and mbuf-array
 *     pointers passed as {@code long}s, which skips FFM's per-argument segment checks
 *     ({@link FpOpsQueue#BURST_LONG}). FP_OPS_LONG is the fastest (see ffm-bindings/README.md).</li>
 * </ul>
 * Hot path: no allocation, every handle a {@code static final}, critical downcalls. Owned by one thread.
 */
public final class IoForward {
    /** testpmd's {@code --burst=32}. */
    public static final int BURST = 32;
    private static final short BURST_SHORT = (short) BURST;

    /** How a burst reaches the PMD. */
    public enum Path {
        /** srdnic_shim_h as ffm-bindings binds it (mbuf array as a MemorySegment). */
        SHIM,
        /** srdnic_rx_burst / srdnic_tx_burst_or_free bound with the mbuf array as a long. */
        SHIM_LONG,
        /** rte_eth_fp_ops function pointers, pointers as MemorySegments (FpOpsQueue.BURST_BY_ADDRESS). */
        FP_OPS,
        /** rte_eth_fp_ops function pointers, queue and mbuf array as longs (FpOpsQueue.BURST_BY_ADDRESS_LONG). */
        FP_OPS_LONG;

        /** The name scripts use: shim, shim-long, fpops, fpops-long. */
        public String label() {
            return name().toLowerCase(Locale.ROOT).replace("_", "").replace("long", "-long");
        }

        public static Path parse(String name) {
            for (Path p : values()) {
                if (p.label().equals(name) || p.name().equalsIgnoreCase(name)) {
                    return p;
                }
            }
            throw new IllegalArgumentException("path must be one of shim, shim-long, fpops, fpops-long; was " + name);
        }
    }

    /** One direction: RX queue of one port to TX queue of the other, with its own burst array. */
    private static final class Stream {
        final short rxPort;
        final short txPort;
        final MemorySegment rxBurst;
        final MemorySegment rxq;
        final MemorySegment txBurst;
        final MemorySegment txq;
        /** The burst's rte_mbuf* array; this field also keeps its (automatic) arena alive for {@link #pktsAddress}. */
        final MemorySegment pkts;
        final long rxqAddress;
        final long txqAddress;
        final long pktsAddress;
        long rxPackets;
        long txPackets;
        long dropped;

        Stream(EthPort rx, EthPort tx, Arena arena) {
            this.rxPort = (short) rx.id();
            this.txPort = (short) tx.id();
            FpOpsQueue in = FpOpsQueue.of(rx.id(), 0);
            FpOpsQueue out = FpOpsQueue.of(tx.id(), 0);
            this.rxBurst = in.rxBurst();
            this.rxq = in.rxq();
            this.txBurst = out.txBurst();
            this.txq = out.txq();
            this.pkts = arena.allocate(ValueLayout.ADDRESS, BURST);
            this.rxqAddress = rxq.address();
            this.txqAddress = txq.address();
            this.pktsAddress = pkts.address();
        }
    }

    private final Path path;
    private final EthPort port0;
    private final EthPort port1;
    private final Stream s0;
    private final Stream s1;
    private volatile boolean running = true;

    /**
     * A forwarder over two started ports (queue 0 of each), usable from any one thread.
     * <p>
     * The burst arrays come from an automatic arena on purpose: a downcall keeps every segment it is
     * passed alive for the call's duration, which for a shared arena is an atomic acquire and release
     * of the arena on each call (BurstPathBench.rxEmptyShimSharedArena: +18..32 ns per burst here);
     * for an automatic or the global arena it costs nothing, and unlike a confined one it does not tie
     * the forwarder to the thread that built it.
     */
    public IoForward(Path path, EthPort port0, EthPort port1) {
        this.path = path;
        this.port0 = port0;
        this.port1 = port1;
        Arena arena = Arena.ofAuto();
        this.s0 = new Stream(port0, port1, arena);
        this.s1 = new Stream(port1, port0, arena);
    }

    public Path path() {
        return path;
    }

    /**
     * testpmd's {@code --tx-first}: before forwarding, each stream sends one burst of
     * {@code frameLength}-byte frames (a UDP/IPv4 frame like txonly's) on its TX port: 2 x 32 = 64
     * mbufs in flight, which then circulate forever. Returns the number injected.
     */
    public int txFirst(MbufPool pool, int frameLength) {
        return inject(pool, port1, port0, frameLength) + inject(pool, port0, port1, frameLength);
    }

    private static int inject(MbufPool pool, EthPort tx, EthPort peer, int frameLength) {
        MbufBatch batch = new MbufBatch(Arena.ofAuto(), BURST);
        if (pool.allocate(batch, BURST) != BURST) {
            throw new IllegalStateException("pool " + pool.name() + " cannot give " + BURST + " mbufs for --tx-first");
        }
        for (int i = 0; i < BURST; i++) {
            writeUdpFrame(batch.get(i), tx.macAddress(), 0x02_00_00_00_00_00L | peer.id(), frameLength);
        }
        int sent = tx.txQueue(0).burst(batch);
        if (sent != BURST) {
            throw new IllegalStateException(tx + " took " + sent + " of " + BURST + " --tx-first frames");
        }
        return sent;
    }

    /** Ethernet / IPv4 198.18.0.1 &rarr; 198.18.0.2 / UDP 9 &rarr; 9 / zero payload, like testpmd's txonly defaults. */
    static void writeUdpFrame(Mbuf m, long srcMac, long dstMac, int length) {
        if (length < 42) {
            throw new IllegalArgumentException("a UDP/IPv4 frame needs at least 42 bytes, asked for " + length);
        }
        m.room().asSlice(0, length).fill((byte) 0);
        m.putIntBE(0, (int) (dstMac >>> 16)).putShortBE(4, (short) dstMac);
        m.putIntBE(6, (int) (srcMac >>> 16)).putShortBE(10, (short) srcMac);
        m.putShortBE(12, (short) 0x0800);
        int ipLength = length - 14;
        m.putByte(14, (byte) 0x45).putShortBE(16, (short) ipLength);
        m.putByte(22, (byte) 64).putByte(23, (byte) 17);
        m.putIntBE(26, 0xC612_0001).putIntBE(30, 0xC612_0002);
        m.putShortBE(24, ipv4Checksum(m));
        m.putShortBE(34, (short) 9).putShortBE(36, (short) 9).putShortBE(38, (short) (ipLength - 20));
        m.frameLength(length);
    }

    private static short ipv4Checksum(Mbuf m) {
        int sum = 0;
        for (int off = 14; off < 34; off += 2) {
            sum += Short.toUnsignedInt(m.getShortBE(off));
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return (short) ~sum;
    }

    /** One pass over both streams (testpmd: one iteration of the lcore loop); returns frames forwarded. */
    public int forwardOnce() {
        return switch (path) {
            case SHIM -> shim(s0) + shim(s1);
            case SHIM_LONG -> shimLong(s0) + shimLong(s1);
            case FP_OPS -> fpOps(s0) + fpOps(s1);
            case FP_OPS_LONG -> fpOpsLong(s0) + fpOpsLong(s1);
        };
    }

    /** Forwards until {@link #stop()}; call on the (pinned, registered) forwarding thread. */
    public void run() {
        // One loop per path, so the JIT compiles each without a branch on the path inside.
        switch (path) {
            case SHIM -> {
                while (running) {
                    shim(s0);
                    shim(s1);
                }
            }
            case SHIM_LONG -> {
                while (running) {
                    shimLong(s0);
                    shimLong(s1);
                }
            }
            case FP_OPS -> {
                while (running) {
                    fpOps(s0);
                    fpOps(s1);
                }
            }
            case FP_OPS_LONG -> {
                while (running) {
                    fpOpsLong(s0);
                    fpOpsLong(s1);
                }
            }
        }
    }

    /** Asks {@link #run()} to return after its current pass. */
    public void stop() {
        running = false;
    }

    private static int shim(Stream s) {
        int n = Short.toUnsignedInt(srdnic_shim_h.srdnic_rx_burst(s.rxPort, (short) 0, s.pkts, BURST_SHORT));
        if (n == 0) {
            return 0;
        }
        s.rxPackets += n;
        // rte_eth_tx_burst + rte_pktmbuf_free_bulk of the rest, in one downcall.
        int sent = Short.toUnsignedInt(srdnic_shim_h.srdnic_tx_burst_or_free(s.txPort, (short) 0, s.pkts, (short) n));
        s.txPackets += sent;
        s.dropped += n - sent;
        return sent;
    }

    private static int fpOps(Stream s) {
        int n;
        int sent;
        try {
            n = Short.toUnsignedInt((short) FpOpsQueue.BURST_BY_ADDRESS.invokeExact(s.rxBurst, s.rxq, s.pkts, BURST_SHORT));
            if (n == 0) {
                return 0;
            }
            sent = Short.toUnsignedInt((short) FpOpsQueue.BURST_BY_ADDRESS.invokeExact(s.txBurst, s.txq, s.pkts, (short) n));
        } catch (Throwable t) {
            throw new AssertionError("PMD burst downcall failed", t);
        }
        s.rxPackets += n;
        s.txPackets += sent;
        if (sent < n) {
            s.dropped += n - sent;
            srdnic_shim_h.srdnic_pktmbuf_free_bulk(s.pkts.asSlice((long) sent * ValueLayout.ADDRESS.byteSize()), n - sent);
        }
        return sent;
    }

    /** srdnic_rx_burst / srdnic_tx_burst_or_free with the mbuf array passed as a long (see FpOpsQueue.BURST_LONG). */
    private static final class ShimLong {
        static final FunctionDescriptor BURST = FunctionDescriptor.of(ValueLayout.JAVA_SHORT, ValueLayout.JAVA_SHORT,
                ValueLayout.JAVA_SHORT,
            ValueLayout.JAVA_LONG, ValueLayout.JAVA_SHORT);
        static final MethodHandle RX = Dpdk.downcall("srdnic_rx_burst", BURST, Linker.Option.critical(false));
        static final MethodHandle TX_OR_FREE = Dpdk.downcall("srdnic_tx_burst_or_free", BURST, Linker.Option.critical(false));
    }

    private static int shimLong(Stream s) {
        int n;
        int sent;
        try {
            n = Short.toUnsignedInt((short) ShimLong.RX.invokeExact(s.rxPort, (short) 0, s.pktsAddress, BURST_SHORT));
            if (n == 0) {
                return 0;
            }
            sent = Short.toUnsignedInt((short) ShimLong.TX_OR_FREE.invokeExact(s.txPort, (short) 0, s.pktsAddress, (short) n));
        } catch (Throwable t) {
            throw new AssertionError("shim burst downcall failed", t);
        }
        s.rxPackets += n;
        s.txPackets += sent;
        s.dropped += n - sent;
        return sent;
    }

    private static int fpOpsLong(Stream s) {
        int n;
        int sent;
        try {
            n = Short.toUnsignedInt((short) FpOpsQueue.BURST_BY_ADDRESS_LONG.invokeExact(s.rxBurst, s.rxqAddress,
                    s.pktsAddress, BURST_SHORT));
            if (n == 0) {
                return 0;
            }
            sent = Short.toUnsignedInt((short) FpOpsQueue.BURST_BY_ADDRESS_LONG.invokeExact(s.txBurst, s.txqAddress,
                    s.pktsAddress, (short) n));
        } catch (Throwable t) {
            throw new AssertionError("PMD burst downcall failed", t);
        }
        s.rxPackets += n;
        s.txPackets += sent;
        if (sent < n) {
            s.dropped += n - sent;
            srdnic_shim_h.srdnic_pktmbuf_free_bulk(s.pkts.asSlice((long) sent * ValueLayout.ADDRESS.byteSize()), n - sent);
        }
        return sent;
    }

    /** Frames received by the forwarder on both streams (read after {@link #run()} returned). */
    public long rxPackets() {
        return s0.rxPackets + s1.rxPackets;
    }

    /** Frames the TX queues took. */
    public long txPackets() {
        return s0.txPackets + s1.txPackets;
    }

    /** Frames TX did not take, freed. */
    public long dropped() {
        return s0.dropped + s1.dropped;
    }
}
