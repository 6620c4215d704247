package io.srdnic.srd.transport.device;

import io.srdnic.pmd.PacketIo;
import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.pmd.sim.SimNetwork;
import io.srdnic.pmd.sim.SimPort;
import io.srdnic.pmd.sim.UdpSourcePortSelector;
import io.srdnic.srd.api.CompletionQueue;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.transport.rc.DeviceQp;
import io.srdnic.srd.transport.srd.FlowKey;
import io.srdnic.srd.wire.SrdPort;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;

/**
 * Test harness: SRD transports on a simulated network, driven in virtual time. Hosts are 10.0.0.1..,
 * MACs 02:00:00:00:00:01..; entropy i rides fabric path i.
 */
final class SimFabric implements AutoCloseable {
    static final int QKEY = 0x1234;
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    final SimNetwork network;
    final Arena arena = Arena.ofConfined();
    final List<TransportDevice> hosts = new ArrayList<>();
    final List<SimPort> ports = new ArrayList<>();
    /** Each host's IPv4 address: its own 10.0.0.n, or another host's when it shares that one. */
    final List<Integer> ips = new ArrayList<>();

    SimFabric(int paths, LinkConfig fabric, long seed) {
        this(paths, LinkConfig.DEFAULT, fabric, seed);
    }

    /** Hosts attached by {@code access} links (each host's own, both ways), the fabric's paths by {@code fabric}. */
    SimFabric(int paths, LinkConfig access, LinkConfig fabric, long seed) {
        network = new SimNetwork(seed, SimNetwork.Config.builder().pathCount(paths).accessLink(access).fabricPath(fabric)
            .poolSize(8192).pathSelector((frame, k) -> {
                int port = UdpSourcePortSelector.udpSourcePort(frame);
                return port < SrdPort.ENTROPY_BASE ? 0 : (port - SrdPort.ENTROPY_BASE) % k;
            }).build());
    }

    SimFabric(int paths) {
        this(paths, LinkConfig.DEFAULT, 1);
    }

    static long mac(int host) {
        return 0x02_00_00_00_00_00L | (host + 1);
    }

    static int ip(int host) {
        return 0x0A00_0001 + host;
    }

    TransportDevice addHost(TransportConfig config) {
        return addHostAt(ports.size(), config);
    }

    /**
     * A host with its own MAC but the IPv4 address of host {@code ipOf} (itself, or one added
     * before): two devices behind one address, told apart by their UDP ports.
     */
    TransportDevice addHostAt(int ipOf, TransportConfig config) {
        return addHostAt(ipOf, config, io -> io);
    }

    /** A host whose transport sees its port through {@code wrap} (a recorder of the frames it sends, say). */
    TransportDevice addHost(TransportConfig config, UnaryOperator<PacketIo> wrap) {
        return addHostAt(ports.size(), config, wrap);
    }

    private TransportDevice addHostAt(int ipOf, TransportConfig config, UnaryOperator<PacketIo> wrap) {
        int index = ports.size();
        SimPort port = network.addHost(mac(index));
        ports.add(port);
        ips.add(ip(ipOf));
        TransportDevice t = new TransportDevice(wrap.apply(port), config.copy().localIp(ip(ipOf)), 0x100 + index, index);
        hosts.add(t);
        return t;
    }

    /** Replaces host {@code index}'s transport by a new incarnation (a restart: new epoch, empty state). */
    TransportDevice restart(int index, TransportConfig config, int epoch) {
        TransportDevice t = new TransportDevice(ports.get(index), config.copy().localIp(ips.get(index)), epoch, 99);
        hosts.set(index, t);
        return t;
    }

    TransportDevice host(int i) {
        return hosts.get(i);
    }

    /** A QP in RTS with {@code receives} posted receives of {@code size} bytes each. */
    TestQp qp(TransportDevice t, int receives, int size) {
        CompletionQueue scq = new CompletionQueue(1 << 14);
        CompletionQueue rcq = new CompletionQueue(1 << 14);
        DeviceQp qp = t.createQp(new TransportQpAttributes(QpType.SRD).sqDepth(1024).rqDepth(Math.max(1, receives)).sendCq(scq)
            .recvCq(rcq));
        qp.modify(QpState.INIT, QKEY);
        MemorySegment buffer = arena.allocate(Math.max(1, (long) receives * size));
        for (int i = 0; i < receives; i++) {
            qp.postReceive(i, buffer, (long) i * size, size);
        }
        qp.modify(QpState.RTR, 0);
        qp.modify(QpState.RTS, 0);
        return new TestQp(qp, scq, rcq, buffer);
    }

    /** An address handle on {@code from} for host {@code toHost}: its MAC, IPv4 address and UDP port. */
    int ah(TransportDevice from, int toHost) {
        return from.createAddressHandle(mac(toHost), ips.get(toHost), hosts.get(toHost).config().udpPort());
    }

    /** The flow key other hosts give host {@code host} (its address and UDP port). */
    long flowOf(int host) {
        return FlowKey.pack(ips.get(host), hosts.get(host).config().udpPort());
    }

    /** The flow key of host {@code host} added by {@link #addHost} on the default UDP port. */
    static long flow(int host) {
        return FlowKey.pack(ip(host), SrdPort.DEFAULT);
    }

    /** Runs every host until {@code done} or {@code maxNanos} of virtual time pass; returns whether done. */
    boolean runUntil(BooleanSupplier done, long maxNanos) {
        return runUntil(hosts, done, maxNanos);
    }

    /**
     * Runs only {@code running} (the other hosts stall, as an application in INVOKER mode that stops
     * polling: frames wait in their RX rings) until {@code done} or {@code maxNanos} pass.
     */
    boolean runOnlyUntil(TransportDevice running, BooleanSupplier done, long maxNanos) {
        return runUntil(List.of(running), done, maxNanos);
    }

    void runOnly(TransportDevice running, long nanos) {
        runOnlyUntil(running, () -> false, nanos);
    }

    private boolean runUntil(List<TransportDevice> running, BooleanSupplier done, long maxNanos) {
        long deadline = network.clock().now() + maxNanos;
        while (!done.getAsBoolean()) {
            long now = network.clock().now();
            if (now >= deadline) {
                return false;
            }
            int work = 0;
            for (TransportDevice t : running) {
                work += t.doWork(now);
            }
            if (work == 0) {
                long next = network.nextEventTime();
                for (TransportDevice t : running) {
                    next = Math.min(next, t.nextDeadline());
                }
                network.clock().advanceTo(Math.min(deadline, Math.max(now + 1, next == Long.MAX_VALUE ? deadline : next)));
            }
        }
        return true;
    }

    void runFor(long nanos) {
        runUntil(() -> false, nanos);
    }

    @Override
    public void close() {
        for (TransportDevice t : hosts) {
            t.close();
        }
        network.close();
        arena.close();
    }
}
