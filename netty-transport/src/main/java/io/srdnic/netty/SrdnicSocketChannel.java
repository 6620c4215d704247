package io.srdnic.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.AbstractChannel;
import io.netty.channel.ChannelException;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelMetadata;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.EventLoop;
import io.netty.channel.IoEvent;
import io.netty.channel.IoRegistration;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.ChannelInputShutdownReadComplete;
import io.netty.channel.socket.ChannelOutputShutdownException;
import io.netty.channel.socket.DuplexChannel;
import io.netty.util.concurrent.Future;
import io.srdnic.verbs.cm.CmEvent;
import io.srdnic.verbs.cm.CmId;
import io.srdnic.verbs.cm.ConnParam;
import io.srdnic.verbs.cm.RejectReason;
import java.io.IOException;
import java.net.ConnectException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ConnectionPendingException;
import java.util.concurrent.TimeUnit;

/**
 * A Netty channel carrying a byte stream over one srdnic RC queue pair, connected through the CM
 * to an IPv4 address and port ({@link InetSocketAddress}, as a TCP socket's). Writes are copied
 * into send slots registered once (several small buffers into one message); what arrives is copied
 * out of the posted receive into a buffer of the channel's allocator and the receive posted again.
 * While the peer grants no receive, written data waits in Netty's outbound buffer, so the channel
 * turns unwritable at the high-water mark exactly as a TCP channel whose window closed.
 */
public final class SrdnicSocketChannel extends AbstractChannel implements DuplexChannel {
    private static final ChannelMetadata METADATA = new ChannelMetadata(false, 16);

    private final SrdnicChannelConfig config = new SrdnicChannelConfig(this);
    private SrdnicIoHandler handler;
    private final LoopRegistration registration = new LoopRegistration();
    private CmId id;
    private RcStream stream;
    private boolean open = true;
    private boolean established;
    private boolean inputShutdown;
    private boolean outputShutdown;
    private boolean peerGone;
    private boolean readPending;
    private ChannelPromise connectPromise;
    private Future<?> connectTimeout;
    private InetSocketAddress local;
    private InetSocketAddress remote;

    /** A channel that connects ({@link io.netty.bootstrap.Bootstrap#channel(Class)}). */
    public SrdnicSocketChannel() {
        super(null);
    }

    /** An accepted channel: its stream is made and the request accepted; it becomes active when the CM says ESTABLISHED. */
    SrdnicSocketChannel(SrdnicServerSocketChannel parent, SrdnicIoHandler handler, CmId id, StreamHello hello, InetSocketAddress local) {
        super(parent);
        this.handler = handler;
        this.id = id;
        this.local = local;
        this.remote = new InetSocketAddress(toAddress(id.remoteIp()), hello.port);
        this.stream = new RcStream(id, handler.context(), handler.pd(), handler.streamBuffers());
        stream.start(hello.receives, hello.receiveSize);
        handler.own(id, (Unsafe) unsafe());
        id.accept(new ConnParam().privateData(StreamHello.encode(RcStream.RECEIVES, RcStream.RECEIVE_SIZE, local.getPort())));
    }

    @Override
    public SrdnicServerSocketChannel parent() {
        return (SrdnicServerSocketChannel) super.parent();
    }

    @Override
    public SrdnicChannelConfig config() {
        return config;
    }

    @Override
    public ChannelMetadata metadata() {
        return METADATA;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public boolean isActive() {
        return open && established;
    }

    @Override
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) super.localAddress();
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return (InetSocketAddress) super.remoteAddress();
    }

    @Override
    protected SocketAddress localAddress0() {
        return local;
    }

    @Override
    protected SocketAddress remoteAddress0() {
        return remote;
    }

    @Override
    protected boolean isCompatible(EventLoop loop) {
        return LoopRegistration.compatible(loop, Unsafe.class);
    }

    @Override
    protected AbstractUnsafe newUnsafe() {
        return new Unsafe();
    }

    @Override
    protected void doRegister(ChannelPromise promise) {
        registration.register(eventLoop(), (Unsafe) unsafe(), promise);
    }

    @Override
    protected void doDeregister() {
        registration.cancel();
    }

    @Override
    protected void doBind(SocketAddress localAddress) {
        throw new UnsupportedOperationException("a srdnic channel takes the context's address and a port the CM picks: connect without"
            + " binding");
    }

    @Override
    protected void doDisconnect() {
        doClose();
    }

    @Override
    protected void doClose() {
        if (!open) {
            return;
        }
        open = false;
        established = false;
        failConnect(new ClosedChannelException());
        if (id != null && handler != null) {
            handler.disown(id);
        }
        if (stream != null) {
            stream.linger();
            handler.linger(stream);
            stream = null;
        } else if (id != null) {
            id.destroy();
        }
        id = null;
    }

    @Override
    protected void doBeginRead() {
        readPending = true;
        if (stream != null && stream.readyBytes() > 0 && eventLoop().inEventLoop()) {
            eventLoop().execute(this::readReady);
        }
    }

    @Override
    protected Object filterOutboundMessage(Object msg) {
        if (msg instanceof ByteBuf) {
            return msg;
        }
        throw new UnsupportedOperationException("a srdnic channel writes ByteBufs only, not " + msg.getClass().getName());
    }

    @Override
    protected void doWrite(ChannelOutboundBuffer in) throws Exception {
        RcStream s = stream;
        if (s == null) {
            throw new ClosedChannelException();
        }
        while (!in.isEmpty() && s.canSend()) {
            ByteBuffer slot = s.slotBuffer();
            Object msg;
            while (slot.hasRemaining() && (msg = in.current()) != null) {
                ByteBuf b = (ByteBuf) msg;
                int take = Math.min(b.readableBytes(), slot.remaining());
                if (take > 0) {
                    int limit = slot.limit();
                    slot.limit(slot.position() + take);
                    b.getBytes(b.readerIndex(), slot);
                    slot.limit(limit);
                }
                in.removeBytes(take);
            }
            if (slot.position() > 0) {
                s.send(slot.position());
            }
        }
        if (in.isEmpty() && outputShutdown) {
            s.sendFin();
        }
    }

    /** Hands up what arrived while reading is wanted: one buffer per message, at most what the read allocator allows per pass. */
    private void readReady() {
        RcStream s = stream;
        if (s == null || !readPending) {
            return;
        }
        ChannelPipeline p = pipeline();
        RecvByteBufAllocator.Handle h = unsafe().recvBufAllocHandle();
        h.reset(config);
        boolean read = false;
        int len;
        while (stream == s && (len = s.readyBytes()) > 0) {
            ByteBuf buf = config.getAllocator().directBuffer(len);
            s.takeReady(buf);
            h.lastBytesRead(len);
            h.incMessagesRead(1);
            readPending = false;
            read = true;
            p.fireChannelRead(buf);
            if (!h.continueReading() || (!readPending && !config.isAutoRead())) {
                break;
            }
        }
        if (read) {
            h.readComplete();
            p.fireChannelReadComplete();
        }
    }

    /**
     * One pass of the loop: completions, reads, sends the credits now allow, grants, and the end of
     * the stream — each pass, not only after completions: a read the application asked for from
     * a task (setAutoRead, read()) posts receives again, and their grant must still go out.
     */
    private int poll() {
        RcStream s = stream;
        if (s == null) {
            return 0;
        }
        int n = s.poll();
        if (s.failure() != null) {
            pipeline().fireExceptionCaught(new IOException(s.failure() + ": " + remote));
            unsafe().close(voidPromise());
            return n;
        }
        if (!established) {
            return n;
        }
        if (s.flushed()) {
            peerGone = true; // as DISCONNECTED: what arrived goes up, then the channel closes
        }
        if (readPending && s.readyBytes() > 0) {
            readReady();
        }
        if (stream != s) {
            return n;
        }
        ChannelOutboundBuffer out = unsafe().outboundBuffer();
        if (s.canSend() && out != null && !out.isEmpty()) {
            ((Unsafe) unsafe()).flushNow();
        }
        if (stream == s) {
            s.grantIfLow();
            endOfInput(s);
        }
        return n;
    }

    private void endOfInput(RcStream s) {
        if (s.readyBytes() > 0) {
            return;
        }
        if (peerGone) {
            unsafe().close(voidPromise());
        } else if (s.finReceived() && !inputShutdown) {
            inputShutdown = true;
            if (config.isAllowHalfClosure()) {
                pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
                pipeline().fireUserEventTriggered(ChannelInputShutdownReadComplete.INSTANCE);
            } else {
                unsafe().close(voidPromise());
            }
        }
    }

    private void onCmEvent(CmEvent e) {
        switch (e.type()) {
            case ADDR_RESOLVED -> id.resolveRoute();
            case ROUTE_RESOLVED -> {
                try {
                    stream = new RcStream(id, handler.context(), handler.pd(), handler.streamBuffers());
                } catch (RuntimeException refused) {
                    failConnect(new ChannelException("cannot connect to " + remote + ": " + refused.getMessage(), refused));
                    return;
                }
                id.connect(new ConnParam().privateData(StreamHello.encode(RcStream.RECEIVES, RcStream.RECEIVE_SIZE, id.localPort())));
            }
            case ESTABLISHED -> established(e);
            case REJECTED -> failConnect(
                new ConnectException("connection refused: " + remote + " (" + RejectReason.name(e.status()) + ")"));
            case UNREACHABLE -> failConnect(new ConnectException(remote + " is unreachable: its connection manager never answered"));
            case DISCONNECTED, DEVICE_REMOVAL -> {
                if (connectPromise != null) {
                    failConnect(new ConnectException("the connection to " + remote + " went down while connecting (" + e.type() + ")"));
                } else if (!established && parent() != null) {
                    unsafe().close(voidPromise()); // accepted, never handed to the application
                } else {
                    peerGone = true;
                    if (stream != null && isRegistered()) {
                        endOfInput(stream);
                    }
                }
            }
            default -> {
                // TIMEWAIT_EXIT and the rest: nothing for the channel
            }
        }
    }

    private void established(CmEvent e) {
        if (parent() != null) {
            established = true;
            parent().accepted(this);
            return;
        }
        StreamHello hello;
        try {
            hello = StreamHello.decode(e.privateData(), e.privateDataLength());
        } catch (IllegalArgumentException bad) {
            failConnect(new ConnectException(bad.getMessage()));
            return;
        }
        stream.start(hello.receives, hello.receiveSize);
        local = new InetSocketAddress(toAddress(handler.context().ip()), id.localPort());
        established = true;
        ChannelPromise p = connectPromise;
        connectPromise = null;
        cancelTimeout();
        boolean promiseSet = p.trySuccess();
        pipeline().fireChannelActive();
        if (!promiseSet) {
            unsafe().close(voidPromise());
        }
    }

    private void failConnect(Throwable cause) {
        ChannelPromise p = connectPromise;
        if (p == null) {
            return;
        }
        connectPromise = null;
        cancelTimeout();
        p.tryFailure(cause);
        unsafe().close(voidPromise());
    }

    private void cancelTimeout() {
        if (connectTimeout != null) {
            connectTimeout.cancel(false);
            connectTimeout = null;
        }
    }

    static InetAddress toAddress(int ip) {
        try {
            return InetAddress.getByAddress(new byte[] {(byte) (ip >>> 24), (byte) (ip >>> 16), (byte) (ip >>> 8), (byte) ip});
        } catch (UnknownHostException impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    static int toIp(InetSocketAddress address) {
        if (address.isUnresolved() || !(address.getAddress() instanceof Inet4Address)) {
            throw new IllegalArgumentException("srdnic addresses are IPv4 with a port, not " + address);
        }
        byte[] b = address.getAddress().getAddress();
        return (b[0] & 0xFF) << 24 | (b[1] & 0xFF) << 16 | (b[2] & 0xFF) << 8 | b[3] & 0xFF;
    }

    @Override
    public boolean isInputShutdown() {
        return inputShutdown || !open;
    }

    @Override
    public ChannelFuture shutdownInput() {
        return shutdownInput(newPromise());
    }

    @Override
    public ChannelFuture shutdownInput(ChannelPromise promise) {
        return promise.setFailure(new UnsupportedOperationException("a srdnic stream cannot refuse its peer's data: close it instead"));
    }

    @Override
    public boolean isOutputShutdown() {
        return outputShutdown || !open;
    }

    @Override
    public ChannelFuture shutdownOutput() {
        return shutdownOutput(newPromise());
    }

    @Override
    public ChannelFuture shutdownOutput(ChannelPromise promise) {
        if (eventLoop().inEventLoop()) {
            ((AbstractUnsafe) unsafe()).shutdownOutput(promise);
        } else {
            eventLoop().execute(() -> ((AbstractUnsafe) unsafe()).shutdownOutput(promise));
        }
        return promise;
    }

    @Override
    protected void doShutdownOutput() throws Exception {
        if (!isActive()) {
            throw new ChannelOutputShutdownException("not connected");
        }
        outputShutdown = true;
        stream.sendFin();
    }

    @Override
    public boolean isShutdown() {
        return isInputShutdown() && isOutputShutdown();
    }

    @Override
    public ChannelFuture shutdown() {
        return shutdown(newPromise());
    }

    @Override
    public ChannelFuture shutdown(ChannelPromise promise) {
        return shutdownOutput(promise);
    }

    /** Netty's per-channel machinery and this channel's place in its loop. */
    final class Unsafe extends AbstractUnsafe implements SrdnicIoHandle {

        SrdnicIoHandler handler() {
            return handler;
        }

        @Override
        public void connect(SocketAddress remoteAddress, SocketAddress localAddress, ChannelPromise promise) {
            if (!promise.setUncancellable() || !ensureOpen(promise)) {
                return;
            }
            if (connectPromise != null) {
                promise.setFailure(new ConnectionPendingException());
                return;
            }
            if (established || id != null) {
                promise.setFailure(new AlreadyConnectedException());
                return;
            }
            int ip;
            try {
                if (!(remoteAddress instanceof InetSocketAddress isa)) {
                    throw new IllegalArgumentException("srdnic connects to an InetSocketAddress (IPv4 and port), not " + remoteAddress);
                }
                ip = toIp(isa);
                remote = isa;
                if (localAddress != null) {
                    throw new IllegalArgumentException("a srdnic channel connects from its context's address: no local address");
                }
            } catch (IllegalArgumentException bad) {
                promise.setFailure(bad);
                return;
            }
            connectPromise = promise;
            handler = registration.handler();
            id = CmId.create(handler.events(), handler.context());
            handler.own(id, this);
            id.resolveAddr(ip, remote.getPort());
            int timeout = config.getConnectTimeoutMillis();
            if (timeout > 0) {
                connectTimeout = eventLoop().schedule(
                    () -> failConnect(new ConnectTimeoutException("connection timed out after " + timeout + " ms: " + remote)), timeout,
                    TimeUnit.MILLISECONDS);
            }
        }

        void flushNow() {
            flush0();
        }

        @Override
        public int poll() {
            return SrdnicSocketChannel.this.poll();
        }

        @Override
        public void onCmEvent(CmEvent event) {
            SrdnicSocketChannel.this.onCmEvent(event);
        }

        @Override
        public void handle(IoRegistration registration, IoEvent ioEvent) {
            // nothing is submitted: the loop polls every channel each pass
        }

        @Override
        public void close() {
            close(voidPromise());
        }
    }
}
