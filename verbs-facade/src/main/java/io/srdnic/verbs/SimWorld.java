package io.srdnic.verbs;

import io.srdnic.pmd.PacketIo;
import io.srdnic.pmd.pcap.CapturingPacketIo;
import io.srdnic.pmd.pcap.PcapWriter;
import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.pmd.sim.SimNetwork;
import io.srdnic.pmd.sim.SimPort;
import io.srdnic.pmd.sim.UdpSourcePortSelector;
import io.srdnic.srd.wire.SrdPort;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * A simulated network for verbs contexts, in virtual time. All its contexts run in one thread:
 * polling any of them runs every context's duty cycle, and when none has work the clock jumps to
 * the next frame arrival or transport deadline. Same seed, same run. Hosts get MAC 02:00:00:00:00:0n
 * and IPv4 10.0.0.n in creation order (n from 1).
 */
public final class SimWorld implements AutoCloseable {
    private final SimNetwork network;
    private final List<ContextDriver> dataplanes = new ArrayList<>();
    private int hosts;
    private PcapWriter capture;

    public SimWorld(long seed, int paths, LinkConfig fabric) {
        this.network = new SimNetwork(seed, SimNetwork.Config.builder().pathCount(paths).fabricPath(fabric).poolSize(16384)
            .pathSelector((frame, k) -> {
                int port = UdpSourcePortSelector.udpSourcePort(frame);
                return port < SrdPort.ENTROPY_BASE ? 0 : (port - SrdPort.ENTROPY_BASE) % k;
            }).build());
    }

    public SimWorld(long seed) {
        this(seed, 16, LinkConfig.DEFAULT);
    }

    public SimNetwork network() {
        return network;
    }

    /**
     * Cuts ({@code true}) or restores the link of the n-th host created (from 1): every frame from or
     * to it is dropped meanwhile. For faults on one of several links, each link a host of its own.
     */
    public void blackholeHost(int host, boolean dead) {
        network.blackholeHost(host - 1, dead);
    }

    LongSupplier clock() {
        return network.clock()::now;
    }

    /**
     * Every frame the hosts created from now on send goes to {@code writer} too, stamped with
     * virtual time (what {@code srdnic sim --pcap} writes); the caller closes the writer after the world.
     */
    public void captureTo(PcapWriter writer) {
        this.capture = writer;
    }

    Device newDevice() {
        hosts++;
        SimPort port = network.addHost(0x02_00_00_00_00_00L | hosts);
        PacketIo io = capture == null ? port : new CapturingPacketIo(port, capture, network.clock()::now);
        return Device.simHost("sim" + hosts, io, this, ipOf(hosts));
    }

    /** IPv4 address of the n-th host created (from 1). */
    public static int ipOf(int host) {
        return 0x0A00_0000 + host;
    }

    /** MAC address of the n-th host created (from 1). */
    public static long macOf(int host) {
        return 0x02_00_00_00_00_00L | host;
    }

    void join(ContextDriver d) {
        dataplanes.add(d);
    }

    void leave(ContextDriver d) {
        dataplanes.remove(d);
    }

    /** One step of the whole world; jumps virtual time when nobody had work. Returns the work done. */
    int step() {
        long now = network.clock().now();
        int work = 0;
        for (int i = 0; i < dataplanes.size(); i++) {
            work += dataplanes.get(i).runCycle(now);
        }
        if (work == 0) {
            long next = network.nextEventTime();
            for (int i = 0; i < dataplanes.size(); i++) {
                next = Math.min(next, dataplanes.get(i).transport.nextDeadline());
            }
            network.clock().advanceTo(next == Long.MAX_VALUE ? now + 1_000 : Math.max(now + 1, next));
        }
        return work;
    }

    @Override
    public void close() {
        network.close();
    }
}
