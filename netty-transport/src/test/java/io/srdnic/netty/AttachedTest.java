package io.srdnic.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelException;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Channels between two applications attached to one dataplane ({@link AttachedLoops}): their
 * streams' buffers come from each application's shared pool, which never takes memory back.
 */
class AttachedTest {
    /** A pool that holds about 20 streams' buffers ({@link StreamBuffers#BYTES} each). */
    private static final long POOL = 32 << 20;
    private static final AtomicInteger PORTS = new AtomicInteger(9000);
    private static AttachedLoops attached;

    @BeforeAll
    static void attach() {
        LeakRecorder.install();
        attached = new AttachedLoops(POOL, POOL);
    }

    @AfterAll
    static void detach() {
        attached.close();
        LeakRecorder.assertNoLeaks();
    }

    private static Channel connect(int port, ChannelInboundHandlerAdapter handler) {
        return EchoTest.connect(attached.client, AttachedLoops.serverAddress(port), handler);
    }

    @Test
    void shouldEchoEverySizeFromOneByteToOneMebibyteIntactAttached() throws Exception {
        EchoTest.echoEverySize(attached.client, attached.server, AttachedLoops.serverAddress(PORTS.getAndIncrement()));
    }

    /**
     * 200 channels, each with 2 streams' buffers, would take ten times the pool were closed streams'
     * buffers not reused; each close is clean on the server's side too (no exception in its pipeline).
     */
    @Test
    void shouldOpenAndCloseTwoHundredChannelsWithoutExhaustingThePool() throws Exception {
        int port = PORTS.getAndIncrement();
        List<Throwable> serverErrors = new CopyOnWriteArrayList<>();
        Channel server = EchoTest.echoServer(attached.server, AttachedLoops.serverAddress(port), serverErrors);
        try {
            for (int i = 0; i < 200; i++) {
                EchoTest.Collector c = new EchoTest.Collector(1000);
                Channel ch = connect(port, c);
                byte[] sent = EchoTest.pattern(1000, i);
                ch.writeAndFlush(Unpooled.wrappedBuffer(sent)).syncUninterruptibly();
                assertArrayEquals(sent, c.done.get(10, TimeUnit.SECONDS), "channel " + i);
                ch.close().syncUninterruptibly();
            }
            Thread.sleep(200); // the last closes reach the server
            assertEquals(List.of(), serverErrors, "a client's close broke the server's channel instead of ending it");
        } finally {
            server.close().syncUninterruptibly();
        }
    }

    /**
     * A client whose pool (8 MiB) holds fewer streams than the server's: once it is full the next
     * connect fails with the reason, and closing channels gives their buffers back for new ones.
     */
    @Test
    void shouldRefuseAConnectClearlyWhenThePoolIsFullAndRecoverAfterCloses() {
        int port = PORTS.getAndIncrement();
        List<Channel> open = new ArrayList<>();
        try (AttachedLoops small = new AttachedLoops(8 << 20, POOL)) {
            Channel server = EchoTest.echoServer(small.server, AttachedLoops.serverAddress(port));
            ChannelException refused = null;
            for (int i = 0; i < 20 && refused == null; i++) {
                try {
                    open.add(EchoTest.connect(small.client, AttachedLoops.serverAddress(port), new ChannelInboundHandlerAdapter()));
                } catch (ChannelException e) {
                    refused = e;
                }
            }
            assertTrue(refused != null, "20 streams of " + StreamBuffers.BYTES + " bytes cannot fit a pool of 8 MiB");
            assertTrue(refused.getMessage().contains("shared pool"), refused.getMessage());
            assertTrue(open.size() >= 3, "only " + open.size() + " channels fitted a pool of 8 MiB");
            for (Channel ch : open) {
                ch.close().syncUninterruptibly();
            }
            open.clear();
            connectOnceBuffersAreBack(small, port).close().syncUninterruptibly();
            server.close().syncUninterruptibly();
        }
    }

    /** A connect made once the closed streams' buffers are back (they linger until their sends finish). */
    private static Channel connectOnceBuffersAreBack(AttachedLoops loops, int port) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (true) {
            try {
                return EchoTest.connect(loops.client, AttachedLoops.serverAddress(port), new ChannelInboundHandlerAdapter());
            } catch (ChannelException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.onSpinWait();
            }
        }
    }
}
