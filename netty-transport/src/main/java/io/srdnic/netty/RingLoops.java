package io.srdnic.netty;

import io.srdnic.pmd.Eal;
import io.srdnic.pmd.EalConfig;
import io.srdnic.pmd.EthPacketIo;
import io.srdnic.pmd.MbufPool;
import io.srdnic.pmd.PacketIo;
import io.srdnic.pmd.PortConfig;
import io.srdnic.pmd.RingLink;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.ContextConfig;
import io.srdnic.verbs.Device;
import io.srdnic.verbs.ThreadingMode;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

/**
 * Two srdnic event loops on the two ends of a DPDK net_ring link in this process — the client's
 * context at 10.0.0.1, the server's at 10.0.0.2 — for examples, benchmarks and tests on one machine
 * (between machines each side opens its own port in its own {@link SrdnicEventLoopGroup}). A
 * decorator may stand between each context and its port (fault injection); it is made on the
 * loop's thread, which owns it.
 */
public final class RingLoops implements AutoCloseable {
    public static final int CLIENT_IP = 0x0A00_0001;
    public static final int SERVER_IP = 0x0A00_0002;
    private static final AtomicInteger POOLS = new AtomicInteger();

    /** The client's loop (10.0.0.1) and the server's (10.0.0.2: boss and worker group of a server). */
    public final SrdnicEventLoopGroup client;
    public final SrdnicEventLoopGroup server;
    private final RingLink link;
    private final MbufPool mbufs;

    private RingLoops(UnaryOperator<PacketIo> clientPort, UnaryOperator<PacketIo> serverPort) {
        Eal.startOrGet(new EalConfig());
        link = RingLink.create(1024);
        mbufs = MbufPool.create("nettyring" + POOLS.getAndIncrement(), 16383, 4096 + 256);
        link.a().configure(PortConfig.DEFAULT, mbufs).start();
        link.b().configure(PortConfig.DEFAULT, mbufs).start();
        client = new SrdnicEventLoopGroup(() -> Context.open(
            Device.of("ring-a", clientPort.apply(new EthPacketIo(link.a(), 0, mbufs)), System::nanoTime),
            new ContextConfig().mode(ThreadingMode.INVOKER).ip(CLIENT_IP)));
        server = new SrdnicEventLoopGroup(() -> Context.open(
            Device.of("ring-b", serverPort.apply(new EthPacketIo(link.b(), 0, mbufs)), System::nanoTime),
            new ContextConfig().mode(ThreadingMode.INVOKER).ip(SERVER_IP)));
    }

    /** A clean link. */
    public static RingLoops open() {
        return new RingLoops(UnaryOperator.identity(), UnaryOperator.identity());
    }

    /** Each side's port behind the decorator given (applied on that side's loop thread). */
    public static RingLoops open(UnaryOperator<PacketIo> clientPort, UnaryOperator<PacketIo> serverPort) {
        return new RingLoops(clientPort, serverPort);
    }

    /** The server context's address with {@code port}. */
    public static InetSocketAddress serverAddress(int port) {
        return new InetSocketAddress(SrdnicSocketChannel.toAddress(SERVER_IP), port);
    }

    /** Stops both loops (which close their contexts), then the link and its pool. */
    @Override
    public void close() {
        client.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        server.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        link.close();
        mbufs.close();
    }
}
