package io.srdnic.srd.fuzz;

import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.PacketIo;
import io.srdnic.pmd.fault.InjectingPacketIo;
import io.srdnic.pmd.sim.SimNetwork;
import io.srdnic.pmd.sim.UdpSourcePortSelector;
import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.wire.SrdPort;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * What outlives the inputs of {@link ReceivePathFuzzTest}: the simulated network (a shared arena
 * with every buffer of the pool — building one costs more than an attack) and, over the victim's
 * port, the {@link Sniffer} and the {@link InjectingPacketIo} the forged frames enter by. The
 * transports are built afresh for every input; the world is only borrowed.
 * <p>
 * Why an input cannot see what the last one did: {@link #drain} takes back everything an input
 * left — frames in flight, in receive rings, in the injection queue — and {@link #isEmpty} proves
 * it: no event pending, no buffer owned by anyone, no frame queued for injection. The network's
 * links are fault-free, so they draw no randomness that would carry over; the sniffer is reset; and
 * every input starts at a whole second at least two seconds after the last one ended, so nothing a
 * transport measures from its start (all far shorter than a second) can tell one input from
 * another. A world that cannot be proven empty is thrown away and built afresh, so a finding
 * replays the same in a fresh JVM.
 */
final class FuzzWorld {
    static final int HOSTS = 3;
    static final int VICTIM = 0;
    static final int INJECT_QUEUE = 64;
    /** Bytes a frame may have: what the pool's buffers hold. */
    static final int DATA_ROOM = 2048;
    private static final long SECOND = 1_000_000_000L;

    private static FuzzWorld current;

    final SimNetwork network;
    final Sniffer victimSniffer;
    final InjectingPacketIo injector;
    /** Frames the injector took (it refuses some when its queue is full); with its {@code injected()}, what still waits. */
    private long injectionsAccepted;
    private final MbufBatch drainBatch = new MbufBatch(Arena.global(), 64);

    private FuzzWorld() {
        FuzzFrames.forbidNativeDpdk();
        network = new SimNetwork(7, SimNetwork.Config.builder().pathCount(4).poolSize(640).dataRoom(DATA_ROOM).rxRingCapacity(512)
            .pathSelector((frame, k) -> {
                int port = UdpSourcePortSelector.udpSourcePort(frame);
                return port < SrdPort.ENTROPY_BASE ? 0 : (port - SrdPort.ENTROPY_BASE) % k;
            }).build());
        for (int h = 0; h < HOSTS; h++) {
            network.addHost(mac(h));
        }
        victimSniffer = new Sniffer(network.port(VICTIM), SrdPort.DEFAULT, mtu(), ips(), true);
        injector = new InjectingPacketIo(victimSniffer, INJECT_QUEUE);
    }

    /** The world for the next input, empty and at a fresh whole second; its sniffer reports to {@code ledger}. */
    static FuzzWorld acquire(Ledger ledger) {
        if (current != null && !current.isEmpty()) {
            current.network.close();                // an input left it dirty (it failed): start over
            current = null;
        }
        if (current == null) {
            current = new FuzzWorld();
        }
        FuzzWorld w = current;
        for (int p = 0; p < w.network.pathCount(); p++) {
            w.network.blackhole(p, false);
        }
        w.network.clock().advanceTo((w.network.clock().now() / SECOND + 2) * SECOND);
        w.victimSniffer.reset(ledger);
        return w;
    }

    static long mac(int host) {
        return 0x02_00_00_00_00_00L | (host + 1);
    }

    static int ip(int host) {
        return 0x0A00_0001 + host;
    }

    /** Every host's address, by host number. */
    static int[] ips() {
        int[] ips = new int[HOSTS];
        for (int h = 0; h < HOSTS; h++) {
            ips[h] = ip(h);
        }
        return ips;
    }

    /** The largest SRD payload of the network's frames. */
    static int mtu() {
        return Math.min(TransportConfig.DEFAULT_MTU, DATA_ROOM - TransportConfig.FRAME_OVERHEAD);
    }

    /** The port host {@code h}'s transport uses: the victim's goes through the injector and its sniffer. */
    PacketIo port(int h) {
        return h == VICTIM ? injector : network.port(h);
    }

    /** Queues a frame for the victim's next receive, as if from the wire; false when the queue was full. */
    boolean inject(byte[] frame, int length) {
        boolean taken = injector.inject(MemorySegment.ofArray(frame), length);
        if (taken) {
            injectionsAccepted++;
        }
        return taken;
    }

    /** Frames queued for injection and not yet received. */
    int injectionsQueued() {
        return (int) (injectionsAccepted - injector.injected());
    }

    /**
     * Takes back everything in the network once the transports are closed: every path dead (nothing
     * more reaches a host), every frame in flight run out, every receive ring and the injection
     * queue emptied into the pool.
     */
    void drain() {
        for (int p = 0; p < network.pathCount(); p++) {
            network.blackhole(p, true);
        }
        while (network.inFlight() > 0) {
            network.clock().advanceTo(Math.max(network.clock().now() + 1, network.nextEventTime()));
            network.deliverDue();
        }
        for (int h = 0; h < HOSTS; h++) {
            PacketIo port = port(h);
            while (port.receive(drainBatch) > 0) {
                port.free(drainBatch);
            }
        }
    }

    /** Nothing in flight, no buffer out of the pool, no frame waiting to be injected: what a new world looks like. */
    boolean isEmpty() {
        return network.inFlight() == 0 && network.pool().inUse() == 0 && injectionsQueued() == 0;
    }
}
