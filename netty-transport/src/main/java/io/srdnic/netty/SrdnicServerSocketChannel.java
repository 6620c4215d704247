package io.srdnic.netty;

import io.netty.channel.AbstractServerChannel;
import io.netty.channel.ChannelException;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPromise;
import io.netty.channel.DefaultChannelConfig;
import io.netty.channel.EventLoop;
import io.netty.channel.IoEvent;
import io.netty.channel.IoRegistration;
import io.srdnic.verbs.cm.CmEvent;
import io.srdnic.verbs.cm.CmEventType;
import io.srdnic.verbs.cm.CmId;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Map;

/**
 * A listening srdnic channel: a CM id bound to a port of its loop's context. Each request gets its
 * stream made and is accepted at once; the accepted {@link SrdnicSocketChannel} is handed to the
 * pipeline (the server bootstrap's acceptor) when the CM says ESTABLISHED. A request that is not a
 * srdnic stream (no hello in its private data) is rejected.
 */
public final class SrdnicServerSocketChannel extends AbstractServerChannel {
    private final ServerConfig config = new ServerConfig(this);
    private SrdnicIoHandler handler;
    private final LoopRegistration registration = new LoopRegistration();
    private CmId listener;
    private InetSocketAddress local;
    private boolean open = true;

    public SrdnicServerSocketChannel() {
    }

    @Override
    public DefaultChannelConfig config() {
        return config;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public boolean isActive() {
        return open && listener != null;
    }

    @Override
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) super.localAddress();
    }

    @Override
    protected SocketAddress localAddress0() {
        return local;
    }

    @Override
    protected boolean isCompatible(EventLoop loop) {
        return LoopRegistration.compatible(loop, ListenerUnsafe.class);
    }

    @Override
    protected AbstractUnsafe newUnsafe() {
        return new ListenerUnsafe();
    }

    @Override
    protected void doRegister(ChannelPromise promise) {
        registration.register(eventLoop(), (ListenerUnsafe) unsafe(), promise);
    }

    @Override
    protected void doDeregister() {
        registration.cancel();
    }

    @Override
    protected void doBind(SocketAddress localAddress) {
        if (!(localAddress instanceof InetSocketAddress isa)) {
            throw new IllegalArgumentException("a srdnic server binds an InetSocketAddress (its context's IPv4, or any, and a port), not "
                + localAddress);
        }
        handler = registration.handler();
        int ip = handler.context().ip();
        if (!isa.isUnresolved() && !isa.getAddress().isAnyLocalAddress() && SrdnicSocketChannel.toIp(isa) != ip) {
            throw new IllegalArgumentException("this event loop's context has address " + SrdnicSocketChannel.toAddress(ip).getHostAddress()
                + ": it cannot listen on " + isa);
        }
        CmId id = CmId.create(handler.events(), handler.context());
        try {
            id.bind(isa.getPort());
            id.listen(config.backlog);
        } catch (RuntimeException e) {
            id.destroy();
            throw e;
        }
        listener = id;
        handler.own(id, (ListenerUnsafe) unsafe());
        local = new InetSocketAddress(SrdnicSocketChannel.toAddress(ip), id.localPort());
    }

    @Override
    protected void doClose() {
        open = false;
        if (listener != null) {
            handler.disown(listener);
            listener.destroy();
            listener = null;
        }
    }

    @Override
    protected void doBeginRead() {
        // requests are accepted as they come; each channel goes up the pipeline once established
    }

    private void onCmEvent(CmEvent e) {
        if (e.type() != CmEventType.CONNECT_REQUEST) {
            return;
        }
        CmId id = e.id();
        StreamHello hello;
        try {
            hello = StreamHello.decode(e.privateData(), e.privateDataLength());
        } catch (IllegalArgumentException notOurs) {
            id.reject();
            id.destroy();
            return;
        }
        try {
            new SrdnicSocketChannel(this, handler, id, hello, local);
        } catch (RuntimeException e2) {
            // no stream (e.g. the attached pool has no room): the peer is refused at once rather than left to time out
            try {
                id.reject();
                id.destroy();
            } catch (RuntimeException alreadyGone) {
                // the request is dropped either way
            }
            String from = SrdnicSocketChannel.toAddress(id.remoteIp()).getHostAddress();
            pipeline().fireExceptionCaught(new ChannelException("cannot accept a connection from " + from + ": " + e2.getMessage(), e2));
        }
    }

    /** An accepted channel is up: to the pipeline (the acceptor registers it on the worker loop, which must be this one). */
    void accepted(SrdnicSocketChannel child) {
        if (!open) {
            child.unsafe().close(child.voidPromise());
            return;
        }
        pipeline().fireChannelRead(child);
        pipeline().fireChannelReadComplete();
    }

    /** The listener's place in its loop. */
    final class ListenerUnsafe extends AbstractUnsafe implements SrdnicIoHandle {
        @Override
        public void connect(SocketAddress remote, SocketAddress localAddress, ChannelPromise promise) {
            safeSetFailure(promise, new UnsupportedOperationException("a server channel does not connect"));
        }

        @Override
        public int poll() {
            return 0;
        }

        @Override
        public void onCmEvent(CmEvent event) {
            SrdnicServerSocketChannel.this.onCmEvent(event);
        }

        @Override
        public void handle(IoRegistration r, IoEvent ioEvent) {
            // nothing is submitted
        }

        @Override
        public void close() {
            close(voidPromise());
        }
    }

    /** Netty's defaults plus SO_BACKLOG: how many requests the CM holds unanswered (more are rejected). */
    static final class ServerConfig extends DefaultChannelConfig {
        int backlog = 128;

        ServerConfig(SrdnicServerSocketChannel channel) {
            super(channel);
        }

        @Override
        public Map<ChannelOption<?>, Object> getOptions() {
            return getOptions(super.getOptions(), ChannelOption.SO_BACKLOG);
        }

        @Override
        @SuppressWarnings("unchecked")
        public <T> T getOption(ChannelOption<T> option) {
            if (option == ChannelOption.SO_BACKLOG) {
                return (T) Integer.valueOf(backlog);
            }
            return super.getOption(option);
        }

        @Override
        public <T> boolean setOption(ChannelOption<T> option, T value) {
            validate(option, value);
            if (option == ChannelOption.SO_BACKLOG) {
                backlog = (Integer) value;
                return true;
            }
            return super.setOption(option, value);
        }
    }
}
