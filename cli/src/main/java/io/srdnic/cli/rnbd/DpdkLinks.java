package io.srdnic.cli.rnbd;

import io.srdnic.pmd.Eal;
import io.srdnic.pmd.EalConfig;
import io.srdnic.pmd.EthPort;
import io.srdnic.pmd.MbufPool;
import io.srdnic.pmd.PortConfig;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.ContextConfig;
import io.srdnic.verbs.Device;
import java.util.ArrayList;
import java.util.List;

/**
 * One DPDK port and verbs context per path, opened on the thread that will poll them (INVOKER).
 * The ports are this class's own, not Device.dpdk(spec)'s, so that a path's link can be taken
 * down (port stopped) and brought up (started) for real, between polls on that thread.
 */
final class DpdkLinks implements AutoCloseable {
    private final List<EthPort> ports = new ArrayList<>();
    private final List<MbufPool> pools = new ArrayList<>();
    private final List<Context> contexts = new ArrayList<>();

    private Eal eal;

    /**
     * The transport's timers for a link between two processes of one host. Its round trip is a
     * few microseconds when both processes run, and as long as the scheduler keeps one of them off
     * a core when they do not: milliseconds on a loaded 2-core machine. With the defaults (RTO at
     * least 50 us, congestion control aiming at 15 us of queueing), every such wait fired a
     * retransmission and cut the congestion window: measured at qd32 through nbd-local, 4% of the
     * packets were retransmitted by RTO, a third of those arrived twice, and throughput fell to
     * 1/10 for whole runs (docs/performance.md, "The block path"). A real loss here is a full
     * receive ring, which RACK finds without the timer when later packets arrive.
     */
    static ContextConfig linkConfig(int ip) {
        ContextConfig c = new ContextConfig().ip(ip);
        c.srd().rtoInitialNanos(10_000_000).rtoMinNanos(5_000_000).ccTargetQueueingNanos(5_000_000);
        return c;
    }

    /**
     * Opens a link per EAL device spec, this side at {@code ip} on each. The caller polls them as a
     * dataplane loop until {@link #close}: EAL's shutdown (SIGTERM, SIGINT) asks it to quit and waits
     * for the close, so whatever the caller sends while closing (the CM's DREQs, RTRS's last
     * messages) goes out through ports and pools that are still there.
     */
    static DpdkLinks open(List<String> specs, int ip) {
        DpdkLinks links = new DpdkLinks();
        links.eal = Eal.startOrGet(new EalConfig().memoryMb(512));
        links.eal.enterLoop();
        try {
            for (String spec : specs) {
                EthPort port = EthPort.attach(spec);
                links.ports.add(port);
                // as Device.dpdk: AF_XDP's umem takes 4 KiB pages
                int frameRoom = "net_af_xdp".equals(port.info().driverName()) ? 2048 : 4096 + 256;
                MbufPool pool = MbufPool.create("rtrslink" + ProcessHandle.current().pid() % 100000 + "_" + links.pools.size(),
                        8191, frameRoom);
                links.pools.add(pool);
                port.configure(PortConfig.DEFAULT, pool).start();
                links.contexts.add(Context.open(Device.dpdk(port, pool), linkConfig(ip)));
            }
        } catch (RuntimeException e) {
            links.close();
            throw e;
        }
        return links;
    }

    List<Context> contexts() {
        return contexts;
    }

    String portName(int i) {
        return ports.get(i).name();
    }

    /** Stops or starts path {@code i}'s port; call on the polling thread. */
    void set(int i, boolean up) {
        if (up) {
            ports.get(i).start();
        } else {
            ports.get(i).stop();
        }
    }

    @Override
    public void close() {
        for (Context c : contexts) {
            c.close();
        }
        for (EthPort p : ports) {
            p.close();
        }
        for (MbufPool p : pools) {
            p.close();
        }
        if (eal != null) {
            eal.exitLoop();
            eal = null;
        }
    }

    /** Whether EAL's shutdown has begun: the polling loop should end and close. */
    boolean quitRequested() {
        return eal == null || eal.quitRequested();
    }
}
