package io.srdnic.cli.grpc;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.srdnic.netty.RingLoops;
import io.srdnic.netty.SrdnicEventLoopGroup;
import io.srdnic.netty.SrdnicServerSocketChannel;
import io.srdnic.netty.SrdnicSocketChannel;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A gRPC server and a channel to it, in this process, one event-loop thread each side: over
 * srdnic (two contexts at the two ends of a DPDK net_ring link) or over Netty's epoll transport
 * on loopback TCP. Both use the same gRPC settings (direct executors: the calls run on the loops).
 */
final class BenchEndpoints implements AutoCloseable {
    final String name;
    final ManagedChannel channel;
    private final Server server;
    private final List<EventLoopGroup> groups = new ArrayList<>();
    private final List<AutoCloseable> resources = new ArrayList<>();

    private BenchEndpoints(String name, NettyServerBuilder serverBuilder, NettyChannelBuilder channelBuilder) throws IOException {
        this.name = name;
        this.server = serverBuilder.directExecutor().addService(BenchService.definition()).build().start();
        this.channel = channelBuilder.directExecutor().usePlaintext().build();
    }

    static BenchEndpoints srdnic(int port) throws IOException {
        RingLoops loops = RingLoops.open();
        SrdnicEventLoopGroup serverLoop = loops.server;
        SrdnicEventLoopGroup clientLoop = loops.client;
        InetSocketAddress address = RingLoops.serverAddress(port);
        BenchEndpoints e = new BenchEndpoints("srdnic",
            NettyServerBuilder.forAddress(address).channelType(SrdnicServerSocketChannel.class)
                .bossEventLoopGroup(serverLoop).workerEventLoopGroup(serverLoop),
            NettyChannelBuilder.forAddress(address).channelType(SrdnicSocketChannel.class).eventLoopGroup(clientLoop));
        e.resources.add(loops);
        return e;
    }

    static BenchEndpoints epoll(int port) throws IOException {
        EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        EventLoopGroup clientLoop = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        BenchEndpoints e = new BenchEndpoints("epoll",
            NettyServerBuilder.forAddress(address).channelType(EpollServerSocketChannel.class)
                .bossEventLoopGroup(boss).workerEventLoopGroup(boss),
            NettyChannelBuilder.forAddress(address).channelType(EpollSocketChannel.class).eventLoopGroup(clientLoop));
        e.groups.add(clientLoop);
        e.groups.add(boss);
        return e;
    }

    @Override
    public void close() throws Exception {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        for (EventLoopGroup g : groups) {
            g.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        }
        for (AutoCloseable r : resources) {
            r.close();
        }
    }
}
