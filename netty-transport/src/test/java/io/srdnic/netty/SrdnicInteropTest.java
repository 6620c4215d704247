package io.srdnic.netty;

import io.grpc.ManagedChannelBuilder;
import io.grpc.ServerBuilder;
import io.grpc.netty.InternalNettyChannelBuilder;
import io.grpc.netty.InternalNettyServerBuilder;
import io.grpc.netty.NegotiationType;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.testing.integration.AbstractInteropTest;
import java.net.InetSocketAddress;

/**
 * gRPC-java's own interop suite, unmodified, over srdnic: the server and the client are gRPC's
 * Netty transport with {@link SrdnicServerSocketChannel} / {@link SrdnicSocketChannel} and their
 * {@link SrdnicEventLoopGroup}s, on the two contexts of a {@link RingPair} (a real net_ring link in
 * this JVM) that the subclass opens, or on the loops its overrides give. Set up as gRPC's own
 * Netty interop tests are (plaintext, the suite's flow-control window and message limit, its census
 * tracers); a case that skips does so by the suite's own assumptions.
 */
public abstract class SrdnicInteropTest extends AbstractInteropTest {
    static RingPair ring;
    private int port;

    /** The server's loop (boss and worker), the client's, and the server's address: the ring's unless a subclass runs elsewhere. */
    protected SrdnicEventLoopGroup serverGroup() {
        return ring.serverGroup;
    }

    protected SrdnicEventLoopGroup clientGroup() {
        return ring.clientGroup;
    }

    protected InetSocketAddress serverAddress(int port) {
        return RingPair.serverAddress(port);
    }

    @Override
    protected ServerBuilder<?> getServerBuilder() {
        port = RingPair.nextPort();
        NettyServerBuilder builder = NettyServerBuilder.forAddress(serverAddress(port))
            .channelType(SrdnicServerSocketChannel.class)
            .bossEventLoopGroup(serverGroup())
            .workerEventLoopGroup(serverGroup())
            .flowControlWindow(AbstractInteropTest.TEST_FLOW_CONTROL_WINDOW)
            .maxInboundMessageSize(AbstractInteropTest.MAX_MESSAGE_SIZE);
        InternalNettyServerBuilder.setStatsEnabled(builder, false);
        return builder.addStreamTracerFactory(createCustomCensusTracerFactory());
    }

    @Override
    protected ManagedChannelBuilder<?> createChannelBuilder() {
        NettyChannelBuilder builder = NettyChannelBuilder.forAddress(serverAddress(port))
            .channelType(SrdnicSocketChannel.class)
            .eventLoopGroup(clientGroup())
            .negotiationType(NegotiationType.PLAINTEXT)
            .flowControlWindow(AbstractInteropTest.TEST_FLOW_CONTROL_WINDOW)
            .maxInboundMessageSize(AbstractInteropTest.MAX_MESSAGE_SIZE);
        InternalNettyChannelBuilder.setStatsEnabled(builder, false);
        return builder.intercept(createCensusStatsClientInterceptor());
    }
}
