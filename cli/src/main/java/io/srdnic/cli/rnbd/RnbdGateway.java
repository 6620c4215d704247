package io.srdnic.cli.rnbd;

import io.srdnic.rnbd.client.DeviceState;
import io.srdnic.rnbd.client.RnbdClient;
import io.srdnic.rnbd.client.RnbdDevice;
import io.srdnic.rtrs.client.ClientConfig;
import io.srdnic.rtrs.client.PathAddress;
import io.srdnic.rtrs.client.RtrsClient;
import io.srdnic.verbs.Context;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The gateway's RNBD client: one thread that opens a DPDK link per path (INVOKER contexts are
 * polled by the thread that opened them), runs the RTRS session and RNBD over it, and runs
 * control work (a path's port down or up, a stats snapshot) between polls, where no burst is in
 * progress on the port.
 */
public final class RnbdGateway implements AutoCloseable {
    /**
     * Every 2 s, dead after 4 missed: an idle path that went silent is given up after ~10 s, a path
     * with IO in flight after RC's retry limit (RcRetry.DEFAULT, ~8.6 s). Both are seconds, as
     * Linux's (5 s x 5; retry 7 of ~1 s), so that a GC pause or a SIGSTOP of either process for a
     * few seconds costs latency, not IO; Linux's own 30 s would hold IO that long on a pulled cable.
     */
    static final long HEARTBEAT_NANOS = 2_000_000_000L;
    static final int HEARTBEAT_MISSED = 4;
    /** IO connections per path at most. */
    static final int MAX_IO_CONNECTIONS = 64;

    private final List<String> vdevs;
    private final int localIp;
    private final int serverIp;
    private final int port;
    private final int ioConnections;
    private final ConcurrentLinkedQueue<Runnable> control = new ConcurrentLinkedQueue<>();
    /** The loop's idle pause; devices' callers and control requests wake it. */
    private final WakeableIdle backoff = ServeLoop.idleStrategy();
    private final CompletableFuture<RnbdClient> started = new CompletableFuture<>();
    private volatile DpdkLinks links;
    private final Thread thread;
    private volatile boolean stop;

    private RnbdGateway(List<String> vdevs, int localIp, int serverIp, int port, int ioConnections) {
        this.vdevs = vdevs;
        this.localIp = localIp;
        this.serverIp = serverIp;
        this.port = port;
        this.ioConnections = ioConnections;
        this.thread = new Thread(this::run, "srdnic-rnbd-gateway");
        this.thread.setDaemon(true);
    }

    /** Starts the gateway's thread: a path per vdev spec, to {@code serverIp} on each link, RTRS port {@code port}. */
    public static RnbdGateway start(List<String> vdevs, int localIp, int serverIp, int port) {
        return start(vdevs, localIp, serverIp, port, 1);
    }

    /**
     * As {@link #start(List, int, int, int)} with {@code ioConnections} IO connections per path
     * (the seed's one per CPU; docs/performance.md says what it measured: one, the default, since
     * a single poll thread drives them all).
     */
    public static RnbdGateway start(List<String> vdevs, int localIp, int serverIp, int port, int ioConnections) {
        if (ioConnections < 1 || ioConnections > MAX_IO_CONNECTIONS) {
            throw new IllegalArgumentException("io connections per path: 1.." + MAX_IO_CONNECTIONS + ", not " + ioConnections);
        }
        if (vdevs.isEmpty()) {
            throw new IllegalArgumentException("an RNBD session needs at least one link (--rnbd-vdev)");
        }
        RnbdGateway g = new RnbdGateway(vdevs, localIp, serverIp, port, ioConnections);
        g.thread.start();
        try {
            g.started.get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            g.close();
            throw new IllegalStateException("the RNBD session did not start: " + (e.getCause() != null ? e.getCause().getMessage() : e), e);
        }
        return g;
    }

    private void run() {
        RnbdClient client = null;
        try {
            links = DpdkLinks.open(vdevs, localIp);
            List<PathAddress> addresses = new ArrayList<>();
            for (Context c : links.contexts()) {
                addresses.add(new PathAddress(c, serverIp));
            }
            ClientConfig config = new ClientConfig().sessionName("srdnic-gw-" + ProcessHandle.current().pid()).port(port)
                .ioConnections(ioConnections)
                .heartbeat(HEARTBEAT_NANOS, HEARTBEAT_MISSED).reconnect(500_000_000L, -1).connectTimeout(3_000_000_000L);
            client = RnbdClient.over(RtrsClient.open(config, addresses), 256);
            client.onEnqueue(backoff::wake);
            started.complete(client);
            while (!stop && !links.quitRequested()) {
                int work = client.poll();
                Runnable r;
                while ((r = control.poll()) != null) {
                    r.run();
                    work++;
                }
                backoff.idle(work);
            }
        } catch (Throwable t) {
            started.completeExceptionally(t);
            System.err.println("srdnic rnbd gateway: " + t);
        } finally {
            if (client != null) {
                client.close();
            }
            if (links != null) {
                links.close();
            }
        }
    }

    private RnbdClient client() {
        return started.join();
    }

    /** Opens {@code name} and waits until the server answered; IllegalStateException with its errno if refused. */
    public RnbdDevice open(String name, int accessMode, long timeoutMillis) {
        RnbdDevice d = client().open(name, accessMode);
        long end = System.currentTimeMillis() + timeoutMillis;
        while (d.state() == DeviceState.PENDING || d.state() == DeviceState.OPENING) {
            if (System.currentTimeMillis() > end) {
                throw new IllegalStateException("rnbd device " + name + ": no answer within " + timeoutMillis + " ms (session up: "
                    + client().up() + ")");
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted opening " + name);
            }
        }
        if (d.state() != DeviceState.OPEN) {
            throw new IllegalStateException("rnbd device " + name + " refused: errno " + d.errno());
        }
        return d;
    }

    /** Runs {@code work} on the gateway's thread and returns its result. */
    public <T> T onGatewayThread(Supplier<T> work) {
        CompletableFuture<T> f = new CompletableFuture<>();
        control.add(() -> {
            try {
                f.complete(work.get());
            } catch (Throwable t) {
                f.completeExceptionally(t);
            }
        });
        backoff.wake();
        try {
            return f.get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("gateway: " + (e.getCause() != null ? e.getCause().getMessage() : e.toString()), e);
        }
    }

    public int paths() {
        return vdevs.size();
    }

    /** Takes path {@code i}'s link down (its DPDK port stopped) or up (started again), for real. */
    public String setPath(int i, boolean up) {
        if (i < 0 || i >= vdevs.size()) {
            throw new IllegalArgumentException("no path " + i + " (paths 0.." + (vdevs.size() - 1) + ")");
        }
        return onGatewayThread(() -> {
            links.set(i, up);
            return "path " + i + " (" + links.portName(i) + ") " + (up ? "up" : "down");
        });
    }

    /** Every path's stats as Linux's sysfs names them, and its state. */
    public List<Map<String, Object>> stats() {
        return onGatewayThread(() -> {
            RtrsClient r = client().rtrs();
            List<Map<String, Object>> all = new ArrayList<>();
            for (int i = 0; i < r.pathCount(); i++) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("path", i);
                m.put("port", links.portName(i));
                m.put("state", r.state(i).name());
                m.putAll(r.statsSnapshot(i));
                // The link's transport below RTRS: losses and retransmissions say when RC, not the gateway, sets the pace.
                for (Map.Entry<String, Long> c : links.contexts().get(i).counters().entrySet()) {
                    if (c.getValue() != 0) {
                        m.put("link_" + c.getKey(), c.getValue());
                    }
                }
                all.add(m);
            }
            return all;
        });
    }

    /** Where the gateway's IO spends its time (IoStages), taken on the gateway's thread. */
    public Map<String, Long> stages() {
        return onGatewayThread(() -> client().stages().snapshot());
    }

    @Override
    public void close() {
        stop = true;
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
