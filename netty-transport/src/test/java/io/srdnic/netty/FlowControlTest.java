package io.srdnic.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Back-pressure: a reader that does not read stops its writer through the receive credits; nothing is lost, no RNR. */
class FlowControlTest extends RingTest {
    @Test
    void shouldMakeTheWriterUnwritableWhileTheReaderDoesNotReadAndLoseNothing() throws Exception {
        int port = RingPair.nextPort();
        int total = 4 << 20;
        int chunk = 64 * 1024;
        CompletableFuture<Channel> accepted = new CompletableFuture<>();
        EchoTest.Collector reader = new EchoTest.Collector(total);
        Channel server = new ServerBootstrap().group(ring.serverGroup).channel(SrdnicServerSocketChannel.class)
            .childOption(ChannelOption.AUTO_READ, false)
            .childHandler(new ChannelInitializer<Channel>() {
                @Override
                protected void initChannel(Channel ch) {
                    ch.pipeline().addLast(reader);
                    accepted.complete(ch);
                }
            }).bind(RingPair.serverAddress(port)).syncUninterruptibly().channel();
        List<Boolean> writability = new CopyOnWriteArrayList<>();
        Channel client = EchoTest.connect(ring, port, new ChannelInboundHandlerAdapter() {
            @Override
            public void channelWritabilityChanged(ChannelHandlerContext ctx) {
                writability.add(ctx.channel().isWritable());
            }
        });
        try {
            Channel child = accepted.get(5, TimeUnit.SECONDS);
            byte[] sent = EchoTest.pattern(total, 7);
            for (int off = 0; off < total; off += chunk) {
                client.write(Unpooled.wrappedBuffer(sent, off, chunk));
            }
            client.flush();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (client.isWritable() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertFalse(client.isWritable(), "4 MiB against a 1 MiB window: the writer must turn unwritable");
            Thread.sleep(300);
            assertEquals(0, reader.bytes.size(), "the reader has not read: nothing may be handed up");
            assertFalse(client.isWritable(), "the reader's receives stay taken: no credit may come back");
            long queued = client.unsafe().outboundBuffer().totalPendingWriteBytes();
            assertTrue(queued >= total - (2 << 20), "the unsent rest waits in the writer's outbound buffer, was " + queued);
            child.config().setAutoRead(true);
            child.read();
            assertArrayEquals(sent, reader.done.get(20, TimeUnit.SECONDS), "every byte, in order, once the reader reads");
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (!client.isWritable() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertTrue(client.isWritable());
            assertEquals(List.of(false, true), writability, "writability turned off once and back on once");
            assertEquals(0, rnr(client) + rnr(child), "credits keep every message to a posted receive: no RNR NAK, no RNR wait");
        } finally {
            client.close().syncUninterruptibly();
            server.close().syncUninterruptibly();
        }
    }

    /** The RNR counts of the channel's context (read on its loop, the context's only thread). */
    static long rnr(Channel ch) throws Exception {
        SrdnicIoHandler h = ((SrdnicSocketChannel.Unsafe) ch.unsafe()).handler();
        Map<String, Long> counters = ch.eventLoop().submit(() -> h.context().counters()).get(5, TimeUnit.SECONDS);
        long n = 0;
        for (Map.Entry<String, Long> e : counters.entrySet()) {
            if (e.getKey().toLowerCase().contains("rnr")) {
                n += e.getValue();
            }
        }
        System.out.println("rnr counters " + counters.entrySet().stream().filter(k -> k.getKey().toLowerCase().contains("rnr")).toList());
        return n;
    }
}
