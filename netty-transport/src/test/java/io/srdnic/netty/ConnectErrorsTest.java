package io.srdnic.netty;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.ConnectTimeoutException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A connect that cannot succeed fails fast, as the exception a TCP channel would give, with a message that says why. */
class ConnectErrorsTest extends RingTest {
    private static Bootstrap client() {
        return new Bootstrap().group(ring.clientGroup).channel(SrdnicSocketChannel.class).handler(new ChannelInboundHandlerAdapter());
    }

    @Test
    void shouldRefuseAConnectToAPortNobodyListensOnAtOnce() {
        long start = System.nanoTime();
        ChannelFuture f = client()
            .connect(RingPair.serverAddress(RingPair.nextPort())).awaitUninterruptibly();
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertFalse(f.isSuccess());
        assertInstanceOf(ConnectException.class, f.cause());
        assertFalse(f.cause() instanceof ConnectTimeoutException, "refused, not timed out: " + f.cause());
        assertTrue(f.cause().getMessage().contains("refused") && f.cause().getMessage().contains("10.0.0.2"), f.cause().getMessage());
        assertTrue(millis < 2_000, "the peer's CM answered: no wait for a timeout, took " + millis + " ms");
        assertTrue(f.channel().closeFuture().awaitUninterruptibly(1, TimeUnit.SECONDS), "a failed connect closes its channel");
    }

    @Test
    void shouldTimeOutAConnectToAnAddressNobodyHasAfterConnectTimeoutMillis() {
        long start = System.nanoTime();
        ChannelFuture f = client()
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 100)
            .connect(new InetSocketAddress(SrdnicSocketChannel.toAddress(0x0A00_0063), 7000)).awaitUninterruptibly();
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertInstanceOf(ConnectTimeoutException.class, f.cause());
        assertTrue(f.cause().getMessage().contains("100 ms") && f.cause().getMessage().contains("10.0.0.99"), f.cause().getMessage());
        assertTrue(millis >= 100 && millis < 280, "CONNECT_TIMEOUT_MILLIS decides, before the CM's own 300 ms give-up: took " + millis);
        assertTrue(f.channel().closeFuture().awaitUninterruptibly(1, TimeUnit.SECONDS));
    }

    @Test
    void shouldReportAnAddressNobodyHasAsUnreachableWhenTheCmGivesUp() {
        ChannelFuture f = client()
            .connect(new InetSocketAddress(SrdnicSocketChannel.toAddress(0x0A00_0063), 7001)).awaitUninterruptibly();
        assertInstanceOf(ConnectException.class, f.cause());
        assertTrue(f.cause().getMessage().contains("unreachable"), f.cause().getMessage());
    }
}
