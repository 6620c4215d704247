package io.srdnic.netty;

import io.srdnic.pmd.Eal;
import io.srdnic.pmd.EalConfig;
import io.srdnic.pmd.EthPacketIo;
import io.srdnic.pmd.MbufPool;
import io.srdnic.pmd.PacketIo;
import io.srdnic.pmd.PortConfig;
import io.srdnic.pmd.RingLink;
import io.srdnic.pmd.fault.DisorderingPacketIo;
import io.srdnic.pmd.fault.FaultInjectingPacketIo;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.ContextConfig;
import io.srdnic.verbs.Device;
import io.srdnic.verbs.ThreadingMode;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

/**
 * Two srdnic contexts on the two ends of a real DPDK net_ring pair in this JVM, each driven by a
 * {@link SrdnicEventLoopGroup} of its own: the client's at 10.0.0.1, the server's at 10.0.0.2.
 * A decorator may stand between each context and its port (fault injection).
 */
final class RingPair implements AutoCloseable {
    static final int CLIENT_IP = 0x0A00_0001;
    static final int SERVER_IP = 0x0A00_0002;
    private static final AtomicInteger POOLS = new AtomicInteger();
    private static final AtomicInteger PORTS = new AtomicInteger(7000);

    final RingLink link;
    final MbufPool mbufs;
    final SrdnicEventLoopGroup clientGroup;
    final SrdnicEventLoopGroup serverGroup;
    private List<DisorderingPacketIo> faults = List.of();
    private List<FaultInjectingPacketIo> losses = List.of();

    private RingPair(UnaryOperator<PacketIo> clientPort, UnaryOperator<PacketIo> serverPort) {
        Eal.startOrGet(new EalConfig());
        link = RingLink.create(1024);
        mbufs = MbufPool.create("nettyring" + POOLS.getAndIncrement(), 16383, 4096 + 256);
        link.a().configure(PortConfig.DEFAULT, mbufs).start();
        link.b().configure(PortConfig.DEFAULT, mbufs).start();
        // each context is opened on its loop's thread: the port's queues and bursts are that thread's
        clientGroup = new SrdnicEventLoopGroup(() -> Context.open(
            Device.of("ring-a", clientPort.apply(new EthPacketIo(link.a(), 0, mbufs)), System::nanoTime),
            new ContextConfig().mode(ThreadingMode.INVOKER).ip(CLIENT_IP)));
        serverGroup = new SrdnicEventLoopGroup(() -> Context.open(
            Device.of("ring-b", serverPort.apply(new EthPacketIo(link.b(), 0, mbufs)), System::nanoTime),
            new ContextConfig().mode(ThreadingMode.INVOKER).ip(SERVER_IP)));
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
        return new InetSocketAddress(SrdnicSocketChannel.toAddress(SERVER_IP), port);
    }

    @Override
    public void close() {
        clientGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        serverGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        link.close();
        mbufs.close();
    }
}
