package io.srdnic.netty;

import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoRegistration;

/** A srdnic channel's place in its event loop: registered with the loop's {@link SrdnicIoHandler}, cancelled at deregistration. */
final class LoopRegistration {
    private IoRegistration registration;

    /** Registers {@code handle} with {@code loop}'s handler; {@code promise} completes when it is done. */
    void register(EventLoop loop, SrdnicIoHandle handle, ChannelPromise promise) {
        ((IoEventLoop) loop).register(handle).addListener(f -> {
            if (f.isSuccess()) {
                registration = (IoRegistration) f.getNow();
                promise.setSuccess();
            } else {
                promise.setFailure(f.cause());
            }
        });
    }

    /** The handler of the loop this channel is registered with. */
    SrdnicIoHandler handler() {
        return registration.attachment();
    }

    void cancel() {
        IoRegistration r = registration;
        if (r != null) {
            registration = null;
            r.cancel();
        }
    }

    static boolean compatible(EventLoop loop, Class<? extends SrdnicIoHandle> handleType) {
        return loop instanceof IoEventLoop l && l.isCompatible(handleType);
    }
}
