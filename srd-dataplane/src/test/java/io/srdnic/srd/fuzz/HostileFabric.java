package io.srdnic.srd.fuzz;

import static io.srdnic.srd.fuzz.FuzzWorld.HOSTS;
import static io.srdnic.srd.fuzz.FuzzWorld.VICTIM;
import static io.srdnic.srd.fuzz.FuzzWorld.ip;
import static io.srdnic.srd.fuzz.FuzzWorld.mac;
import static io.srdnic.srd.fuzz.Ledger.SLOT;

import io.srdnic.pmd.PacketIo;
import io.srdnic.pmd.sim.SimNetwork;
import io.srdnic.srd.api.CompletionQueue;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.SendOpcode;
import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.transport.device.TransportBounds;
import io.srdnic.srd.transport.device.TransportDevice;
import io.srdnic.srd.transport.device.TransportQpAttributes;
import io.srdnic.srd.transport.port.WorkRequest;
import io.srdnic.srd.transport.rc.DeviceQp;
import io.srdnic.srd.wire.SrdPort;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.function.BooleanSupplier;

/**
 * Three live SRD transports, built afresh for one fuzz input on the borrowed {@link FuzzWorld}: the
 * victim (host 0, behind the injector and the sniffer) and two honest peers A and B (hosts 1, 2),
 * each with an SRD QP whose receives are posted, the victim also with a UD QP; and the duty cycle
 * that drives them in virtual time, booking every completion in the {@link Ledger}.
 * <p>
 * After every cycle the state is checked against its bounds: contexts at most the configured
 * maximum, each context's windows and queues within theirs ({@link TransportBounds}), requests in
 * use at most the sends posted and not completed, completion queues never overrun, no livelock.
 * Once the attack is over and the network quiet, {@link #checkQuiet} adds the ledger's
 * truthful-completion check, no request left and no buffer leaked; closing checks that the
 * transports gave every buffer back.
 */
final class HostileFabric implements AutoCloseable {
    static final int QKEY = 0x1234;
    static final int MAX_CONTEXTS = 8;
    static final int RECEIVES = 48;
    static final int UD_RECEIVES = 8;
    static final int MAX_LEGIT = 48;
    static final int BURST = 32;
    /** The transports' window (packets in flight per context, and the responder's dedup window). */
    static final int WINDOW = 64;
    static final long US = 1_000;
    static final long MS = 1_000_000;
    /** Duty cycles with work at one instant before that counts as a livelock: far more than any burst needs. */
    private static final int MAX_BUSY_TICKS = 20_000;

    final FuzzWorld world;
    final SimNetwork network;
    final Ledger ledger = new Ledger(WINDOW);
    /** When this input's attack began (virtual time). */
    final long start;
    final TransportDevice[] hosts = new TransportDevice[HOSTS];
    final DeviceQp[] qps = new DeviceQp[HOSTS];
    private final int[] qpns = new int[HOSTS];
    private final CompletionQueue[] sendCqs = new CompletionQueue[HOSTS];
    private final CompletionQueue[] recvCqs = new CompletionQueue[HOSTS];
    private final int[][] ahs = new int[HOSTS][HOSTS];
    final DeviceQp victimUd;
    private final CompletionQueue victimUdCq;
    private final Arena arena = Arena.ofConfined();
    private final MemorySegment[] receiveBuffers = new MemorySegment[HOSTS];
    private final MemorySegment udReceiveBuffer;
    private final MemorySegment[] sendBuffers = new MemorySegment[HOSTS];
    private final int[] sendSlots = new int[HOSTS];
    /** The one work request the legitimate traffic is posted with, refilled per message. */
    private final WorkRequest request = new WorkRequest();
    private long lastTickAt = -1;
    private int busyTicks;

    HostileFabric() {
        world = FuzzWorld.acquire(ledger);
        network = world.network;
        TransportConfig config = new TransportConfig().paths(4).window(WINDOW).maxContexts(MAX_CONTEXTS).maxQps(4)
                .maxOutstandingRequests(256)
            .rtoInitialNanos(200 * US).rtoMinNanos(50 * US).rtoMaxNanos(2 * MS).transportTimeoutNanos(10 * MS).retryBudget(8)
            .pathAvoidNanos(500 * US).idleContextNanos(20 * MS).maxPacketLifetimeNanos(4 * MS); // frames live microseconds here
        int[] ips = FuzzWorld.ips();
        for (int h = 0; h < HOSTS; h++) {
            PacketIo io = world.port(h);
            if (h != VICTIM) {
                Sniffer peer = new Sniffer(io, SrdPort.DEFAULT, FuzzWorld.mtu(), ips, false);
                peer.reset(ledger);
                io = peer;
            }
            hosts[h] = new TransportDevice(io, config.copy().localIp(ip(h)), epoch(h), 11 + h);
            sendCqs[h] = new CompletionQueue(256);
            recvCqs[h] = new CompletionQueue(256);
            qps[h] = hosts[h].createQp(new TransportQpAttributes(QpType.SRD).sqDepth(MAX_LEGIT).rqDepth(RECEIVES).sendCq(sendCqs[h])
                .recvCq(recvCqs[h]));
            qpns[h] = qps[h].qpn();
            receiveBuffers[h] = arena.allocate((long) RECEIVES * SLOT);
            sendBuffers[h] = arena.allocate((long) MAX_LEGIT * SLOT);
            ready(qps[h], receiveBuffers[h], RECEIVES);
        }
        victimUdCq = new CompletionQueue(64);
        victimUd = hosts[VICTIM].createQp(new TransportQpAttributes(QpType.UD).sqDepth(4).rqDepth(UD_RECEIVES).sendCq(victimUdCq)
            .recvCq(victimUdCq));
        udReceiveBuffer = arena.allocate((long) UD_RECEIVES * SLOT);
        ready(victimUd, udReceiveBuffer, UD_RECEIVES);
        for (int h = 0; h < HOSTS; h++) {
            for (int to = 0; to < HOSTS; to++) {
                if (to != h) {
                    ahs[h][to] = hosts[h].createAddressHandle(mac(to), ip(to), SrdPort.DEFAULT);
                }
            }
        }
        start = now();
        for (TransportDevice t : hosts) {
            t.doWork(start);                        // the transports' clocks start now, not at 0
        }
    }

    /** Posts a receive into every slot of {@code buffer} and takes the QP to RTS. */
    private static void ready(DeviceQp qp, MemorySegment buffer, int receives) {
        qp.modify(QpState.INIT, QKEY);
        for (int r = 0; r < receives; r++) {
            qp.postReceive(r, buffer, (long) r * SLOT, SLOT);
        }
        qp.modify(QpState.RTR, 0);
        qp.modify(QpState.RTS, 0);
    }

    /** -Dsrdnic.fuzz.trace=true prints what every input does: for reading a reproducer, not for fuzzing. */
    static final boolean TRACE = Boolean.getBoolean("srdnic.fuzz.trace");

    void trace(String what) {
        if (TRACE) {
            System.out.println("[trace t=" + (now() - start) + " ns] " + what);
        }
    }

    static int epoch(int host) {
        return 0x100 + host;
    }

    long now() {
        return network.clock().now();
    }

    /** Hands a frame to the victim's port as if from the wire, and books what it claims to be. */
    void inject(byte[] frame, int length) {
        if (world.inject(frame, length)) {
            ledger.injected(frame, length);
        }
    }

    // ---- legitimate traffic ------------------------------------------------------------------------

    /** Posts one legitimate message; false when the transport refused it (nothing posted, nothing owed). */
    boolean send(int from, int to, int length, boolean withImmediate) {
        if (sendSlots[from] == MAX_LEGIT || from == to) {
            return false;
        }
        long offset = (long) sendSlots[from] * SLOT;
        Ledger.Message m = ledger.message(from, to, length, withImmediate, sendBuffers[from], offset);
        int opcode = withImmediate ? SendOpcode.SEND_WITH_IMM : SendOpcode.SEND;
        int rc = hosts[from].post(qps[from], request.clear().wrId(m.id()).opcode(opcode)
            .buffer(sendBuffers[from], offset, length).immediate((int) m.id()).to(ahs[from][to], qpns[to], QKEY).signaled(true));
        if (rc != TransportDevice.POST_OK) {
            return false;
        }
        sendSlots[from]++;
        ledger.posted(m);
        if (TRACE) {
            trace("posted " + Long.toHexString(m.id()) + ": host " + from + " -> host " + to + ", " + length + " bytes");
        }
        return true;
    }

    // ---- driving ---------------------------------------------------------------------------------------

    /** One duty cycle of every host at the current time, then the clock moves to the next thing due (at most {@code maxStep}). */
    void tick(long maxStep) {
        long now = now();
        int work = 0;
        for (int h = 0; h < HOSTS; h++) {
            work += hosts[h].doWork(now);
        }
        drainSends();
        checkBounds();
        if (now != lastTickAt) {
            lastTickAt = now;
            busyTicks = 0;
        } else if (work > 0 && ++busyTicks > MAX_BUSY_TICKS) {
            throw new Violation("livelock: the hosts keep working at virtual time " + now + " without letting time pass ("
                + busyTicks + " duty cycles)");
        }
        if (work == 0) {
            long next = network.nextEventTime();
            for (TransportDevice t : hosts) {
                next = Math.min(next, t.nextDeadline());
            }
            network.clock().advanceTo(Math.max(now + 1, Math.min(now + maxStep, next)));
        }
    }

    boolean runUntil(BooleanSupplier done, long maxNanos) {
        long deadline = now() + maxNanos;
        while (!done.getAsBoolean()) {
            if (now() >= deadline) {
                return false;
            }
            tick(deadline - now());
        }
        return true;
    }

    void runFor(long nanos) {
        runUntil(() -> false, nanos);
    }

    // ---- the invariants ----------------------------------------------------------------------------------

    private void drainSends() {
        for (int h = 0; h < HOSTS; h++) {
            int host = h;
            sendCqs[h].poll((wrId, status, opcode, length, imm, immediate, qpn, srcQpn, srcIp) -> {
                ledger.sendCompleted(host, wrId, status);
                if (TRACE) {
                    trace("send " + Long.toHexString(wrId) + " completed " + WcStatus.name(status));
                }
            }, Integer.MAX_VALUE);
        }
    }

    /** Bounded state, checked after every cycle. */
    private void checkBounds() {
        for (int h = 0; h < HOSTS; h++) {
            TransportDevice t = hosts[h];
            if (t.contextCount() > MAX_CONTEXTS) {
                throw new Violation("host " + h + " holds " + t.contextCount() + " contexts, more than the configured " + MAX_CONTEXTS);
            }
            String broken = TransportBounds.violation(t);
            if (broken != null) {
                throw new Violation("host " + h + ": " + broken);
            }
            int outstanding = ledger.postedBy[h] - ledger.completed[h];
            if (t.requestsInUse() > outstanding) {
                throw new Violation("host " + h + " has " + t.requestsInUse() + " requests in use but only " + outstanding
                    + " sends posted and not completed");
            }
            if (sendCqs[h].overruns() > 0 || recvCqs[h].overruns() > 0) {
                throw new Violation("host " + h + "'s completion queue overran: more completions than work requests");
            }
        }
    }

    /** Reads every receive completion of every QP and books each delivery. */
    void drainDeliveries() {
        for (int h = 0; h < HOSTS; h++) {
            drainDeliveries(h, recvCqs[h], qps[h].qpn(), true, receiveBuffers[h], RECEIVES);
        }
        drainDeliveries(VICTIM, victimUdCq, victimUd.qpn(), false, udReceiveBuffer, UD_RECEIVES);
    }

    private void drainDeliveries(int host, CompletionQueue cq, int qpn, boolean reliable, MemorySegment buffer, int receives) {
        cq.poll((wrId, status, opcode, length, imm, immediate, cqQpn, srcQpn, srcIp) -> {
            if (status != WcStatus.SUCCESS || cqQpn != qpn) {
                return;                                     // a flush, or the UD QP's send completions
            }
            if (wrId < 0 || wrId >= receives || length > SLOT) {
                throw new Violation("host " + host + " completed a receive it was never given: wr " + wrId + ", " + length + " bytes");
            }
            Ledger.Message m = ledger.delivered(host, qpn, reliable, buffer, wrId * SLOT, length, imm, immediate, srcQpn, srcIp,
                qpns);
            if (TRACE && m != null) {
                trace("delivered " + Long.toHexString(m.id()) + " at host " + host);
            }
        }, Integer.MAX_VALUE);
    }

    /** Once every send has completed and the network is quiet: the truthful-completion check, nothing held. */
    void checkQuiet() {
        ledger.checkNoFalseSuccess();
        for (int h = 0; h < HOSTS; h++) {
            if (hosts[h].requestsInUse() != 0) {
                throw new Violation("host " + h + " still holds " + hosts[h].requestsInUse() + " requests after every send completed");
            }
        }
        int held = network.pool().inUse();
        int bound = HOSTS * 2 * BURST + world.injectionsQueued();
        if (held > bound) {
            throw new Violation(held + " buffers held once the network is quiet (at most " + bound + " expected): a leak");
        }
    }

    /** Closes the transports and hands the world back, drained; a transport that kept a buffer is a leak. */
    @Override
    public void close() {
        try {
            for (TransportDevice t : hosts) {
                if (t != null) {
                    t.close();
                }
            }
            world.drain();
        } finally {
            arena.close();
        }
        if (network.pool().inUse() != 0) {
            throw new Violation(network.pool().inUse() + " buffers still held once every transport closed and the network drained");
        }
    }
}
