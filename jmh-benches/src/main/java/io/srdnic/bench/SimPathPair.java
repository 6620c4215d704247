package io.srdnic.bench;

import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.pmd.sim.SimNetwork;
import io.srdnic.pmd.sim.SimPort;
import io.srdnic.srd.api.CompletionQueue;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.SendOpcode;
import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.transport.device.TransportDevice;
import io.srdnic.srd.transport.device.TransportQpAttributes;
import io.srdnic.srd.transport.port.WorkRequest;
import io.srdnic.srd.transport.rc.DeviceQp;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Two SRD transports on the simulated network, A sending to B, driven in virtual time from one
 * thread: what {@link SrdSimPathBench} and {@link SimPathCpuTime} time. Only the transport's public
 * API, and {@link WorkRequest}'s fields rather than its setters, so the same loop runs against an
 * older build's classes too (any since the device was named {@code TransportDevice}).
 * <p>
 * {@code burstsTogether}: links so fast that a burst's frames arrive in the same nanosecond, as at a
 * NIC ring at line rate, so the responder takes many in one RX burst (what ACK coalescing needs);
 * otherwise 100 Gbit/s links space them ~12 ns apart and it sees one per duty cycle.
 */
public final class SimPathPair implements AutoCloseable {
    public static final int BATCH = 64;
    static final int QKEY = 0x2222;
    private static final LinkConfig FAST = LinkConfig.builder().bitsPerSecond(1_000_000_000_000_000L).build();

    final SimNetwork network;
    final Arena arena = Arena.ofConfined();
    final TransportDevice a;
    final TransportDevice b;
    private final int size;
    private final DeviceQp qa;
    private final DeviceQp qb;
    private final CompletionQueue sendCq = new CompletionQueue(1024);
    private final CompletionQueue recvCq = new CompletionQueue(1024);
    private final MemorySegment payload;
    private final MemorySegment receives;
    /** The one request A posts, the same but for its id each time. */
    private final WorkRequest send = new WorkRequest();
    private int completed;
    private final CompletionQueue.CompletionSink onSend = (wr, st, op, len, hasImm, imm, qpn, src, ip) -> completed++;
    private final CompletionQueue.CompletionSink onRecv;

    public SimPathPair(int size, boolean burstsTogether) {
        this.size = size;
        LinkConfig link = burstsTogether ? FAST : LinkConfig.DEFAULT;
        network = new SimNetwork(1, SimNetwork.Config.builder().pathCount(16).poolSize(4096).accessLink(link).fabricPath(link).build());
        SimPort pa = network.addHost(0x0200_0000_0001L);
        SimPort pb = network.addHost(0x0200_0000_0002L);
        a = new TransportDevice(pa, new TransportConfig().localIp(0x0A000001), 11, 1);
        b = new TransportDevice(pb, new TransportConfig().localIp(0x0A000002), 22, 2);
        qa = ready(a.createQp(new TransportQpAttributes(QpType.SRD).sqDepth(BATCH).sendCq(sendCq).recvCq(new CompletionQueue(8))));
        qb = b.createQp(new TransportQpAttributes(QpType.SRD).rqDepth(BATCH).sendCq(new CompletionQueue(8)).recvCq(recvCq));
        qb.modify(QpState.INIT, QKEY);
        receives = arena.allocate((long) BATCH * size);
        for (int i = 0; i < BATCH; i++) {
            qb.postReceive(i, receives, (long) i * size, size);
        }
        qb.modify(QpState.RTR, 0);
        qb.modify(QpState.RTS, 0);
        onRecv = (wr, st, op, len, hasImm, imm, qpn, src, ip) -> qb.postReceive(wr, receives, wr * this.size, this.size);
        payload = arena.allocate(size);
        int ah = a.createAddressHandle(0x0200_0000_0002L, 0x0A000002, a.config().udpPort());
        send.opcode = SendOpcode.SEND;
        send.buffer = payload;
        send.length = size;
        send.signaled = true;
        send.ah = ah;
        send.destQpn = qb.qpn();
        send.qkey = QKEY;
    }

    private static DeviceQp ready(DeviceQp qp) {
        qp.modify(QpState.INIT, QKEY);
        qp.modify(QpState.RTR, 0);
        qp.modify(QpState.RTS, 0);
        return qp;
    }

    /** Posts {@link #BATCH} messages from A to B and runs both until every one has completed, its receive reposted. */
    public int postAndCompleteBatch() {
        for (int i = 0; i < BATCH; i++) {
            send.wrId = i;
            a.post(qa, send);
        }
        completed = 0;
        while (completed < BATCH) {
            long now = network.clock().now();
            int work = a.doWork(now) + b.doWork(now);
            sendCq.poll(onSend, BATCH);
            recvCq.poll(onRecv, BATCH);
            if (work == 0) {
                long next = Math.min(network.nextEventTime(), Math.min(a.nextDeadline(), b.nextDeadline()));
                network.clock().advanceTo(Math.max(now + 1, next == Long.MAX_VALUE ? now + 1 : next));
            }
        }
        return completed;
    }

    @Override
    public void close() {
        a.close();
        b.close();
        network.close();
        arena.close();
    }
}
