package io.srdnic.bench;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.srdnic.ffm.Dpdk;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.MbufPool;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Set-up shared by the burst-path benchmarks: the testpmd set-up of {@link RingPorts}, 32 mbufs in
 * {@link #pkts}, and every handle as a {@code static final} (in {@link Bound}, initialised here once
 * the ports have started, because the fp_ops function pointers exist only then).
 * <ul>
 * <li>port 0 ({@code net_ring0}, self-looping): {@code txRx32} sends the 32 mbufs and receives the
 *     same 32 back — two bursts that each move 32 pointers;</li>
 * <li>port 1 ({@code net_ring1}) is kept empty: {@code rxEmpty} is one RX burst returning 0, i.e. the
 *     pure cost of reaching the PMD.</li>
 * </ul>
 */
@State(Scope.Thread)
public class BurstState {
    static final short P0 = 0;
    static final short P1 = 1;
    static final short Q0 = 0;
    static final short N = 32;

    RingPorts ports;
    Arena arena;
    /** The burst array, from an auto arena: passing it to a downcall costs no session acquire/release. */
    MemorySegment pkts;
    /** {@code pkts.address()}, for the handles that take pointers as long. */
    long pktsAddress;
    /** An array of the same size from a shared arena, to show what its acquire/release per downcall costs. */
    MemorySegment pktsShared;

    /** Handles that exist only after the ports started: initialised by {@link #setUp()}. */
    static final class Bound {
        static final FpOpsQueue Q_P0 = FpOpsQueue.of(P0, Q0);
        static final FpOpsQueue Q_P1 = FpOpsQueue.of(P1, Q0);

        static final MemorySegment RXQ0 = Q_P0.rxq();
        static final MemorySegment TXQ0 = Q_P0.txq();
        static final MemorySegment RXQ1 = Q_P1.rxq();
        static final MemorySegment RX0_FN = Q_P0.rxBurst();
        static final MemorySegment TX0_FN = Q_P0.txBurst();
        static final MemorySegment RX1_FN = Q_P1.rxBurst();

        /** Linker.downcallHandle(functionPointer, descriptor, critical(false)), bound at set-up. */
        static final MethodHandle RX0 = FpOpsQueue.bind(RX0_FN, true);
        static final MethodHandle TX0 = FpOpsQueue.bind(TX0_FN, true);
        static final MethodHandle RX1 = FpOpsQueue.bind(RX1_FN, true);

        static final long RXQ0_ADDR = RXQ0.address();
        static final long TXQ0_ADDR = TXQ0.address();
        static final long RXQ1_ADDR = RXQ1.address();

        /** Bound and critical, pointers passed as long (FpOpsQueue.BURST_LONG). */
        static final MethodHandle RX0_LONG = FpOpsQueue.bindLong(RX0_FN);
        static final MethodHandle TX0_LONG = FpOpsQueue.bindLong(TX0_FN);
        static final MethodHandle RX1_LONG = FpOpsQueue.bindLong(RX1_FN);

        /** The same without critical(false): a full Java-to-native thread-state transition per call. */
        static final MethodHandle RX0_PLAIN = FpOpsQueue.bind(RX0_FN, false);
        static final MethodHandle TX0_PLAIN = FpOpsQueue.bind(TX0_FN, false);
        static final MethodHandle RX1_PLAIN = FpOpsQueue.bind(RX1_FN, false);

        private Bound() {
        }
    }

    /** srdnic_rx_burst / srdnic_tx_burst bound without critical(false), for the linkage comparison. */
    static final class ShimPlain {
        static final FunctionDescriptor BURST = FunctionDescriptor.of(JAVA_SHORT, JAVA_SHORT, JAVA_SHORT, ADDRESS, JAVA_SHORT);
        static final MethodHandle RX = Dpdk.downcall("srdnic_rx_burst", BURST);
        static final MethodHandle TX = Dpdk.downcall("srdnic_tx_burst", BURST);
        /** Critical, with the mbuf array passed as a long address. */
        static final FunctionDescriptor BURST_LONG = FunctionDescriptor.of(JAVA_SHORT, JAVA_SHORT, JAVA_SHORT, JAVA_LONG, JAVA_SHORT);
        static final MethodHandle RX_LONG = Dpdk.downcall("srdnic_rx_burst", BURST_LONG, Linker.Option.critical(false));
        static final MethodHandle TX_LONG = Dpdk.downcall("srdnic_tx_burst", BURST_LONG, Linker.Option.critical(false));

        private ShimPlain() {
        }
    }

    @Setup(Level.Trial)
    public void setUp() {
        ports = RingPorts.start();
        if (ports.port0().id() != P0 || ports.port1().id() != P1) {
            throw new IllegalStateException("expected net_ring0 and net_ring1 to be ports 0 and 1, got " + ports.port0() + ", "
                    + ports.port1());
        }
        ports.eal().registerThread();
        arena = Arena.ofShared();
        pktsShared = arena.allocate(ADDRESS, N);
        MbufBatch batch = new MbufBatch(Arena.ofAuto(), N);
        if (ports.pool().allocate(batch, N) != N) {
            throw new IllegalStateException("cannot allocate " + N + " mbufs");
        }
        for (int i = 0; i < N; i++) {
            batch.get(i).frameLength(64);
        }
        pkts = batch.pointers();
        pktsAddress = pkts.address();
        // Initialise the holders now that rte_eth_fp_ops is filled in.
        Bound.RX0.type();
        ShimPlain.RX.type();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        // Every txRx32 must have got its 32 mbufs back: none lost, none duplicated in the ring.
        long tx = ports.port0().stats().txPackets();
        long rx = ports.port0().stats().rxPackets();
        int inUse = ports.pool().inUse();
        MbufPool.free(batchOf(pkts));
        ports.close();
        arena.close();
        if (tx != rx || inUse != N) {
            throw new IllegalStateException("port 0 sent " + tx + " and received " + rx + "; " + inUse
                    + " mbufs in use (expected " + N + ")");
        }
    }

    private MbufBatch batchOf(MemorySegment pointers) {
        MbufBatch b = new MbufBatch(arena, N);
        for (int i = 0; i < N; i++) {
            b.add(pointers.getAtIndex(ADDRESS, i).address());
        }
        return b;
    }
}
