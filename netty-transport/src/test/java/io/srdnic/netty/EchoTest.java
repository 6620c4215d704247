package io.srdnic.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Echo round trips over srdnic channels on a real net_ring link, content checked byte for byte. */
class EchoTest extends RingTest {
    /** A server that writes back every buffer it reads. */
    static Channel echoServer(RingPair ring, int port) {
        return echoServer(ring.serverGroup, RingPair.serverAddress(port));
    }

    static Channel echoServer(EventLoopGroup group, InetSocketAddress at) {
        return echoServer(group, at, new CopyOnWriteArrayList<>());
    }

    /** As above; what reaches a server channel's pipeline as an exception is added to {@code errors} too. */
    static Channel echoServer(EventLoopGroup group, InetSocketAddress at, List<Throwable> errors) {
        return new ServerBootstrap().group(group).channel(SrdnicServerSocketChannel.class)
            .childHandler(new ChannelInitializer<Channel>() {
                @Override
                protected void initChannel(Channel ch) {
                    ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            ctx.write(msg);
                        }

                        @Override
                        public void channelReadComplete(ChannelHandlerContext ctx) {
                            ctx.flush();
                        }

                        @Override
                        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                            errors.add(cause);
                            ctx.fireExceptionCaught(cause);
                        }
                    });
                }
            }).bind(at).syncUninterruptibly().channel();
    }

    /** Collects what a client channel reads until {@code expected} bytes came. */
    static final class Collector extends ChannelInboundHandlerAdapter {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final CompletableFuture<byte[]> done = new CompletableFuture<>();
        final int expected;

        Collector(int expected) {
            this.expected = expected;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf b = (ByteBuf) msg;
            try {
                byte[] a = new byte[b.readableBytes()];
                b.readBytes(a);
                bytes.writeBytes(a);
            } finally {
                b.release();
            }
            if (bytes.size() >= expected) {
                done.complete(bytes.toByteArray());
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            done.completeExceptionally(cause);
        }
    }

    static Channel connect(RingPair ring, int port, ChannelInboundHandlerAdapter handler) {
        return connect(ring.clientGroup, RingPair.serverAddress(port), handler);
    }

    static Channel connect(EventLoopGroup group, InetSocketAddress to, ChannelInboundHandlerAdapter handler) {
        return new Bootstrap().group(group).channel(SrdnicSocketChannel.class).handler(handler)
            .connect(to).syncUninterruptibly().channel();
    }

    static byte[] pattern(int size, int seed) {
        byte[] b = new byte[size];
        for (int i = 0; i < size; i++) {
            b[i] = (byte) (i * 31 + seed + (i >>> 8));
        }
        return b;
    }

    @Test
    void shouldEchoEverySizeFromOneByteToOneMebibyteIntact() throws Exception {
        int port = RingPair.nextPort();
        echoEverySize(ring.clientGroup, ring.serverGroup, RingPair.serverAddress(port));
    }

    /** One channel per size from 1 B to 1 MiB (around the 16 KiB message size too), each echoed by a server at {@code at}. */
    static void echoEverySize(EventLoopGroup client, EventLoopGroup serverGroup, InetSocketAddress at) throws Exception {
        Channel server = echoServer(serverGroup, at);
        try {
            int[] sizes = {1, 100, 16383, 16384, 16385, 65536, 200_000, 1 << 20};
            for (int size : sizes) {
                Collector c = new Collector(size);
                Channel ch = connect(client, at, c);
                assertInstanceOf(InetSocketAddress.class, ch.remoteAddress());
                byte[] sent = pattern(size, size);
                ch.writeAndFlush(Unpooled.wrappedBuffer(sent)).syncUninterruptibly();
                byte[] back = c.done.get(20, TimeUnit.SECONDS);
                assertArrayEquals(sent, back, size + " bytes came back changed");
                ch.close().syncUninterruptibly();
            }
        } finally {
            server.close().syncUninterruptibly();
        }
    }

    @Test
    void shouldCarryManyChannelsAtOnceEachItsOwnBytes() throws Exception {
        int port = RingPair.nextPort();
        Channel server = echoServer(ring, port);
        try {
            int n = 16;
            int size = 100_000;
            Collector[] cs = new Collector[n];
            Channel[] chs = new Channel[n];
            for (int i = 0; i < n; i++) {
                cs[i] = new Collector(size);
                chs[i] = connect(ring, port, cs[i]);
            }
            for (int i = 0; i < n; i++) {
                chs[i].writeAndFlush(Unpooled.wrappedBuffer(pattern(size, i)));
            }
            for (int i = 0; i < n; i++) {
                assertArrayEquals(pattern(size, i), cs[i].done.get(30, TimeUnit.SECONDS),
                    "channel " + i + " got another's bytes or lost some");
                assertTrue(chs[i].isActive());
                chs[i].close().syncUninterruptibly();
            }
        } finally {
            server.close().syncUninterruptibly();
        }
    }
}
