package io.srdnic.netty;

import io.srdnic.pmd.PacketIo;
import io.srdnic.pmd.fault.DisorderingPacketIo;
import io.srdnic.pmd.fault.FaultInjectingPacketIo;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

/**
 * The tests' {@link RingLoops}: two contexts on the two ends of a real DPDK net_ring pair in this
 * JVM, each driven by a {@link SrdnicEventLoopGroup} of its own, the client's at 10.0.0.1, the
 * server's at 10.0.0.2; optionally behind fault-injecting decorators.
 */
final class RingPair implements AutoCloseable {
    private static final AtomicInteger PORTS = new AtomicInteger(7000);

    private final RingLoops loops;
    final SrdnicEventLoopGroup clientGroup;
    final SrdnicEventLoopGroup serverGroup;
    private List<DisorderingPacketIo> faults = List.of();
    private List<FaultInjectingPacketIo> losses = List.of();

    private RingPair(UnaryOperator<PacketIo> clientPort, UnaryOperator<PacketIo> serverPort) {
        loops = RingLoops.open(clientPort, serverPort);
        clientGroup = loops.client;
        serverGroup = loops.server;
    }

    /** A clean link. */
    static RingPair open() {
        return new RingPair(UnaryOperator.identity(), UnaryOperator.identity());
    }

    /**
     * Each side's transmissions lose {@code loss} of their frames, send {@code duplicate} of them
     * twice and hold {@code delay} of them back behind the next burst (seeded): the transport below
     * the channels must repair all of it. The decorators are kept in {@link #faults} (made on the
     * loops' threads, which own them).
     */
    static RingPair faulty(double loss, double duplicate, double delay, long seed) {
        List<DisorderingPacketIo> faults = new CopyOnWriteArrayList<>();
        List<FaultInjectingPacketIo> losses = new CopyOnWriteArrayList<>();
        AtomicInteger side = new AtomicInteger();
        UnaryOperator<PacketIo> decorate = io -> {
            long s = seed + 2L * side.getAndIncrement();
            FaultInjectingPacketIo lossy = new FaultInjectingPacketIo(io, loss, s);
            DisorderingPacketIo disorder = new DisorderingPacketIo(lossy, duplicate, delay, s + 1);
            losses.add(lossy);
            faults.add(disorder);
            return disorder;
        };
        RingPair ring = new RingPair(decorate, decorate);
        ring.faults = faults;
        ring.losses = losses;
        return ring;
    }

    /** Frames dropped, duplicated and delayed on purpose so far, both sides together (read after the loops stopped, or roughly). */
    long[] faultCounts() {
        long[] n = new long[3];
        for (FaultInjectingPacketIo l : losses) {
            n[0] += l.injectedDrops();
        }
        for (DisorderingPacketIo d : faults) {
            n[1] += d.duplicated();
            n[2] += d.delayed();
        }
        return n;
    }

    /** A port not used before in this JVM (the CM keeps a closed listener's port in TIMEWAIT a little). */
    static int nextPort() {
        return PORTS.getAndIncrement();
    }

    static InetSocketAddress serverAddress(int port) {
        return RingLoops.serverAddress(port);
    }

    @Override
    public void close() {
        loops.close();
    }
}
