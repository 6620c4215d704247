package io.srdnic.netty;

import io.srdnic.pmd.Eal;
import io.srdnic.pmd.EalConfig;
import io.srdnic.pmd.EthPacketIo;
import io.srdnic.pmd.MbufPool;
import io.srdnic.pmd.PacketIo;
import io.srdnic.pmd.PortConfig;
import io.srdnic.pmd.RingLink;
import io.srdnic.pmd.fault.FaultInjectingPacketIo;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.ContextConfig;
import io.srdnic.verbs.Device;
import io.srdnic.verbs.ThreadingMode;
import java.net.InetSocketAddress;
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

    /** Each side's transmissions lose {@code loss} of their frames (seeded): the transport below the channels must repair it. */
    static RingPair lossy(double loss, long seed) {
        return new RingPair(io -> new FaultInjectingPacketIo(io, loss, seed), io -> new FaultInjectingPacketIo(io, loss, seed + 1));
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
