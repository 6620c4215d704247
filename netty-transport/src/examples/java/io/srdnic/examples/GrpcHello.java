package io.srdnic.examples;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.srdnic.netty.RingLoops;
import io.srdnic.netty.SrdnicEventLoopGroup;
import io.srdnic.netty.SrdnicServerSocketChannel;
import io.srdnic.netty.SrdnicSocketChannel;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * A gRPC greeter, server and client, talking over srdnic instead of TCP: gRPC-java's Netty
 * transport with srdnic's channel classes and event-loop groups. Both ends run in this JVM, on the
 * two ends of a DPDK net_ring link (10.0.0.2 serves, 10.0.0.1 calls); between machines each side
 * opens its own port ({@code Device.dpdk("net_memif0,...")}, a NIC) instead of the ring's end.
 * Against a gRPC over TCP program, three lines change (marked). The service is written without
 * generated code (a UTF-8 string marshaller) so that the example needs no protoc.
 * <p>
 * Run: {@code scripts/grpc-hello [name]}.
 */
public final class GrpcHello {
    private static final MethodDescriptor.Marshaller<String> UTF8 = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(String value) {
            return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public String parse(InputStream stream) {
            try {
                return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };

    static final MethodDescriptor<String, String> SAY_HELLO = MethodDescriptor.<String, String>newBuilder()
        .setType(MethodDescriptor.MethodType.UNARY)
        .setFullMethodName("hello.Greeter/SayHello")
        .setRequestMarshaller(UTF8)
        .setResponseMarshaller(UTF8)
        .build();

    private GrpcHello() {
    }

    /** Says hello to {@code name} over srdnic and returns the server's greeting. */
    public static String run(String name) throws Exception {
        // (1) event-loop groups that open and drive srdnic contexts (one thread each, no other) instead of NIO's or epoll's;
        // here two on the ends of a net_ring link (RingLoops), between machines one per side:
        // new SrdnicEventLoopGroup(() -> Context.open(Device.dpdk("net_memif0,..."), new ContextConfig().ip(0x0A000002)))
        try (RingLoops loops = RingLoops.open()) {
            SrdnicEventLoopGroup serverLoop = loops.server;
            SrdnicEventLoopGroup clientLoop = loops.client;
            InetSocketAddress address = new InetSocketAddress(InetAddress.getByName("10.0.0.2"), 50051);
            Server server = NettyServerBuilder.forAddress(address)
                // (2) the server's channel class and its groups (boss and worker: the same srdnic group)
                .channelType(SrdnicServerSocketChannel.class).bossEventLoopGroup(serverLoop).workerEventLoopGroup(serverLoop)
                .addService(ServerServiceDefinition.builder("hello.Greeter")
                    .addMethod(SAY_HELLO, ServerCalls.asyncUnaryCall((String who, StreamObserver<String> reply) -> {
                        reply.onNext("Hello, " + who + ", over srdnic");
                        reply.onCompleted();
                    }))
                    .build())
                .build()
                .start();
            ManagedChannel channel = NettyChannelBuilder.forAddress(address)
                // (3) the client's channel class and group
                .channelType(SrdnicSocketChannel.class).eventLoopGroup(clientLoop)
                .usePlaintext()
                .build();
            try {
                return ClientCalls.blockingUnaryCall(channel, SAY_HELLO, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), name);
            } finally {
                channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
                server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        }
    }

    public static void main(String[] args) throws Exception {
        System.out.println(run(args.length > 0 ? args[0] : "world"));
    }
}
