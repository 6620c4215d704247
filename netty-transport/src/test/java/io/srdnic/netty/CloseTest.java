package io.srdnic.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Close and half-close: from either side, mid-stream; what was written before a close still arrives. */
class CloseTest extends RingTest {
    /** A server whose accepted channels get {@code handler} (shared) and are handed to {@code accepted}. */
    private static Channel server(int port, ChannelInboundHandlerAdapter handler, CompletableFuture<Channel> accepted, boolean halfClose) {
        return new ServerBootstrap().group(ring.serverGroup).channel(SrdnicServerSocketChannel.class)
            .childOption(ChannelOption.ALLOW_HALF_CLOSURE, halfClose)
            .childHandler(new ChannelInitializer<Channel>() {
                @Override
                protected void initChannel(Channel ch) {
                    if (handler != null) {
                        ch.pipeline().addLast(handler);
                    }
                    accepted.complete(ch);
                }
            }).bind(RingPair.serverAddress(port)).syncUninterruptibly().channel();
    }

    @Test
    void shouldDeliverWhatWasWrittenBeforeTheWriterClosed() throws Exception {
        int port = RingPair.nextPort();
        int size = 512 * 1024;
        EchoTest.Collector reader = new EchoTest.Collector(size);
        CompletableFuture<Channel> accepted = new CompletableFuture<>();
        Channel server = server(port, reader, accepted, false);
        try {
            Channel client = EchoTest.connect(ring, port, new ChannelInboundHandlerAdapter());
            byte[] sent = EchoTest.pattern(size, 3);
            client.writeAndFlush(Unpooled.wrappedBuffer(sent)).addListener(ChannelFutureListener.CLOSE);
            assertArrayEquals(sent, reader.done.get(10, TimeUnit.SECONDS), "the close waits for what was posted before it");
            Channel child = accepted.get(1, TimeUnit.SECONDS);
            assertTrue(child.closeFuture().await(5, TimeUnit.SECONDS), "the writer's close reaches the reader");
        } finally {
            server.close().syncUninterruptibly();
        }
    }

    @Test
    void shouldCloseTheWriterWhenTheReaderClosesMidStream() throws Exception {
        int port = RingPair.nextPort();
        ClosingReader reader = new ClosingReader(100_000);
        CompletableFuture<Channel> accepted = new CompletableFuture<>();
        Channel server = server(port, reader, accepted, false);
        try {
            ErrorRecorder errors = new ErrorRecorder();
            Channel client = EchoTest.connect(ring, port, errors);
            writeForever(client);
            assertTrue(client.closeFuture().await(5, TimeUnit.SECONDS), "the reader's close ends the writer's channel");
            assertFalse(client.isActive());
            assertEquals(List.of(), errors.errors, "a close is an end, not an error: the CM's DISCONNECTED closes the channel");
            assertTrue(reader.seen.get() > 100_000);
        } finally {
            server.close().syncUninterruptibly();
        }
    }

    @Test
    void shouldCloseTheServersChannelWhenTheClientClosesWhileTheServerWrites() throws Exception {
        int port = RingPair.nextPort();
        CompletableFuture<Channel> accepted = new CompletableFuture<>();
        ErrorRecorder errors = new ErrorRecorder() {
            @Override
            public void channelActive(ChannelHandlerContext ctx) {
                writeForever(ctx.channel());
            }
        };
        Channel server = server(port, errors, accepted, false);
        try {
            Channel client = EchoTest.connect(ring, port, new ClosingReader(100_000));
            Channel child = accepted.get(5, TimeUnit.SECONDS);
            assertTrue(client.closeFuture().await(5, TimeUnit.SECONDS));
            assertTrue(child.closeFuture().await(5, TimeUnit.SECONDS), "the client's close ends the server's writing channel");
            assertEquals(List.of(), errors.errors, "a close is an end, not an error");
        } finally {
            server.close().syncUninterruptibly();
        }
    }

    @Test
    void shouldHalfCloseSoThePeerSeesTheEndAndStillAnswers() throws Exception {
        int port = RingPair.nextPort();
        int size = 10_000;
        CompletableFuture<Channel> accepted = new CompletableFuture<>();
        AtomicLong counted = new AtomicLong();
        Channel server = server(port, new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                counted.addAndGet(((ByteBuf) msg).readableBytes());
                ((ByteBuf) msg).release();
            }

            @Override
            public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
                if (evt instanceof ChannelInputShutdownEvent) {
                    ctx.writeAndFlush(Unpooled.copyLong(counted.get())).addListener(ChannelFutureListener.CLOSE);
                }
            }
        }, accepted, true);
        try {
            EchoTest.Collector answer = new EchoTest.Collector(8);
            Channel client = EchoTest.connect(ring, port, answer);
            client.writeAndFlush(Unpooled.wrappedBuffer(EchoTest.pattern(size, 1))).syncUninterruptibly();
            ((SrdnicSocketChannel) client).shutdownOutput().syncUninterruptibly();
            assertTrue(((SrdnicSocketChannel) client).isOutputShutdown());
            assertEquals(size, Unpooled.wrappedBuffer(answer.done.get(5, TimeUnit.SECONDS)).readLong(),
                "the server saw every byte, then the end of its input, and its answer came back over the half-closed stream");
            assertTrue(client.closeFuture().await(5, TimeUnit.SECONDS), "the server's close then ends the client's channel");
        } finally {
            server.close().syncUninterruptibly();
        }
    }

    /** Keeps what reaches exceptionCaught. */
    static class ErrorRecorder extends ChannelInboundHandlerAdapter {
        final List<Throwable> errors = new CopyOnWriteArrayList<>();

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            errors.add(cause);
        }
    }

    /** Counts what it reads and closes its channel once more than {@code limit} bytes came. */
    static final class ClosingReader extends ChannelInboundHandlerAdapter {
        final AtomicLong seen = new AtomicLong();
        private final long limit;

        ClosingReader(long limit) {
            this.limit = limit;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            seen.addAndGet(((ByteBuf) msg).readableBytes());
            ((ByteBuf) msg).release();
            if (seen.get() > limit) {
                ctx.close();
            }
        }
    }

    /** Writes 16 KiB whenever the channel is writable, until it closes. */
    static void writeForever(Channel ch) {
        ch.eventLoop().execute(new Runnable() {
            @Override
            public void run() {
                while (ch.isActive() && ch.isWritable()) {
                    ch.writeAndFlush(Unpooled.wrappedBuffer(new byte[16 * 1024]));
                }
                if (ch.isOpen()) {
                    ch.eventLoop().schedule(this, 1, TimeUnit.MILLISECONDS);
                }
            }
        });
    }
}
