package io.srdnic.netty;

import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.concurrent.ThreadAwareExecutor;
import io.srdnic.verbs.Context;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * An event-loop group with one loop (one thread) per srdnic {@link Context}: that thread opens the
 * context (with the opener given, in INVOKER mode), drives it, runs every channel on it, and closes
 * it when the group shuts down. A server's accepted channels live on the context that accepted
 * them: give a server the same group as boss and worker group.
 */
public final class SrdnicEventLoopGroup extends MultiThreadIoEventLoopGroup {

    /** One loop driving the context {@code opener} opens on the loop's thread (INVOKER mode). */
    public SrdnicEventLoopGroup(Supplier<Context> opener) {
        this(new HandlerBox(opener), null);
    }

    public SrdnicEventLoopGroup(Supplier<Context> opener, ThreadFactory threads) {
        this(new HandlerBox(opener), threads);
    }

    private SrdnicEventLoopGroup(HandlerBox box, ThreadFactory threads) {
        super(1, threads, box);
        start(box);
    }

    /**
     * Starts the loop now rather than at its first channel: the context is open (a listener's CM
     * answers, a peer's requests are refused rather than unanswered) and an opener that fails
     * fails here, with its own exception.
     */
    private void start(HandlerBox box) {
        try {
            next().submit(() -> box.handler.checkOpen()).syncUninterruptibly();
        } catch (RuntimeException e) {
            shutdownGracefully(0, 0, TimeUnit.SECONDS);
            throw e;
        }
    }

    /** Makes the loop's handler and keeps it, so that the group can ask it whether its context opened. */
    private static final class HandlerBox implements IoHandlerFactory {
        private final IoHandlerFactory factory;
        private SrdnicIoHandler handler;

        HandlerBox(Supplier<Context> opener) {
            this.factory = SrdnicIoHandler.newFactory(opener);
        }

        @Override
        public IoHandler newHandler(ThreadAwareExecutor executor) {
            handler = (SrdnicIoHandler) factory.newHandler(executor);
            return handler;
        }
    }
}
