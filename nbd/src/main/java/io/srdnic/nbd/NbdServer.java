package io.srdnic.nbd;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.Channel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Listens on unix sockets and TCP addresses and runs one {@link NbdConnection} per client, each on
 * a thread of its own (blocking reads: the fewest hand-offs between the socket and the device),
 * with a second thread that writes the replies devices complete elsewhere. Up to
 * {@link ServerLimits#maxConnections} clients, on any of the exports; a watchdog hangs up on a
 * client that takes no reply, or sends no more of a write's payload, for {@link ServerLimits#replyTimeoutMillis}.
 */
public final class NbdServer implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(NbdServer.class.getName());
    /** How long close() lets clients finish what they sent before hanging up on them. */
    private static final long DRAIN_MILLIS = 5_000;

    private final Exports exports;
    private final ServerResources resources;
    private final Map<SocketChannel, NbdConnection> connections = new ConcurrentHashMap<>();
    private Thread watchdog;
    private final List<ServerSocketChannel> listeners = new ArrayList<>();
    private final List<Path> socketFiles = new ArrayList<>();
    private final List<Thread> acceptors = new ArrayList<>();
    private final Map<SocketChannel, Thread> clients = new ConcurrentHashMap<>();
    private final AtomicInteger connectionCount = new AtomicInteger();
    private volatile boolean closing;

    public NbdServer(Exports exports) {
        this(exports, ServerLimits.defaults());
    }

    public NbdServer(Exports exports, ServerLimits limits) {
        this.exports = exports;
        this.resources = new ServerResources(limits);
    }

    public ServerLimits limits() {
        return resources.limits;
    }

    /** Clients hung up on because they took no reply for the reply timeout. */
    public long stalledClientsDisconnected() {
        return resources.stalledClients.get();
    }

    /** Requests answered ENOMEM because no buffer could be had for them. */
    public long outOfMemoryReplies() {
        return resources.outOfMemoryReplies.get();
    }

    /** Connections refused because {@link ServerLimits#maxConnections} clients were connected. */
    public long refusedConnections() {
        return resources.refusedConnections.get();
    }

    /**
     * Starts accepting clients on a unix socket path (which must not exist yet) or a TCP address,
     * and returns the address bound (with the port chosen, for port 0). Clients can connect when
     * this returns.
     */
    public synchronized SocketAddress listen(SocketAddress address) throws IOException {
        ServerSocketChannel listener;
        if (address instanceof UnixDomainSocketAddress unix) {
            if (Files.exists(unix.getPath(), LinkOption.NOFOLLOW_LINKS)) {
                throw new IOException(unix.getPath() + " already exists (another server, or a stale socket: remove it)");
            }
            listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            bind(listener, unix);
            socketFiles.add(unix.getPath());
        } else if (address instanceof InetSocketAddress) {
            listener = ServerSocketChannel.open();
            listener.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            bind(listener, address);
        } else {
            throw new IllegalArgumentException("not a unix or TCP address: " + address);
        }
        listeners.add(listener);
        if (watchdog == null) {
            watchdog = Thread.ofPlatform().daemon().name("nbd-reply-watchdog").start(this::watch);
        }
        Thread acceptor = Thread.ofPlatform().daemon().name("nbd-accept-" + listeners.size()).start(() -> accept(listener));
        acceptors.add(acceptor);
        return listener.getLocalAddress();
    }

    private static void bind(ServerSocketChannel listener, SocketAddress address) throws IOException {
        try {
            listener.bind(address);
        } catch (IOException e) {
            closeQuietly(listener);
            throw e;
        }
    }

    private void accept(ServerSocketChannel listener) {
        while (!closing) {
            SocketChannel client;
            try {
                client = listener.accept();
            } catch (AsynchronousCloseException e) {
                return;
            } catch (IOException e) {
                LOG.log(Level.WARNING, "nbd: accept failed: {0}", e.toString());
                return;
            }
            try {
                if (client.getRemoteAddress() instanceof InetSocketAddress) {
                    client.setOption(StandardSocketOptions.TCP_NODELAY, true);
                }
            } catch (IOException e) {
                LOG.log(Level.DEBUG, "nbd: socket option: {0}", e.toString());
            }
            if (clients.size() >= resources.limits.maxConnections()) {
                refuse(client);
                continue;
            }
            String name = "nbd-conn-" + connectionCount.incrementAndGet();
            NbdConnection connection = new NbdConnection(client, exports, resources, name);
            Thread thread = Thread.ofPlatform().daemon().name(name).unstarted(() -> {
                try {
                    connection.run();
                } finally {
                    connections.remove(client);
                    clients.remove(client);
                }
            });
            clients.put(client, thread);
            connections.put(client, connection);
            if (closing) {
                closeQuietly(client);
            }
            thread.start();
        }
    }

    private void refuse(SocketChannel client) {
        long refused = resources.refusedConnections.incrementAndGet();
        if (Long.bitCount(refused) == 1) { // the 1st, 2nd, 4th, 8th...: a flood does not flood the log
            LOG.log(Level.WARNING, "nbd: {0} clients connected, the most allowed (--max-connections): refusing one ({1} so far)",
                resources.limits.maxConnections(), refused);
        }
        closeQuietly(client);
    }

    /** Hangs up on every client whose reply writes have been blocked for the reply timeout. */
    private void watch() {
        long timeout = TimeUnit.MILLISECONDS.toNanos(resources.limits.replyTimeoutMillis());
        long tick = Math.max(10, Math.min(1000, resources.limits.replyTimeoutMillis() / 4));
        while (true) { // through close()'s drain too; close() ends it
            try {
                Thread.sleep(tick);
            } catch (InterruptedException e) {
                return;
            }
            long now = System.nanoTime();
            for (NbdConnection c : connections.values()) {
                c.hangUpIfStalled(now, timeout);
            }
        }
    }

    /** Clients connected now. */
    public int clientCount() {
        return clients.size();
    }

    /**
     * Stops accepting, ends every client's input so that what it already sent is answered (for a
     * few seconds at most), hangs up, and removes the unix socket files. Does not close the exports.
     */
    @Override
    public synchronized void close() {
        closing = true;
        for (ServerSocketChannel listener : listeners) {
            closeQuietly(listener);
        }
        for (Path p : socketFiles) {
            try {
                Files.deleteIfExists(p);
            } catch (IOException e) {
                LOG.log(Level.WARNING, "nbd: could not remove {0}: {1}", p, e.toString());
            }
        }
        for (SocketChannel c : clients.keySet()) {
            try {
                c.shutdownInput();
            } catch (IOException e) {
                closeQuietly(c);
            }
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DRAIN_MILLIS);
        for (Thread t : List.copyOf(clients.values())) {
            try {
                t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        for (SocketChannel c : clients.keySet()) {
            closeQuietly(c);
        }
        if (watchdog != null) {
            watchdog.interrupt();
        }
        for (Thread t : acceptors) {
            try {
                t.join(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void closeQuietly(Channel c) {
        try {
            c.close();
        } catch (IOException e) {
            LOG.log(Level.DEBUG, "nbd: close: {0}", e.toString());
        }
    }
}
