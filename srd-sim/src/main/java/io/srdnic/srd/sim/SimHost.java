package io.srdnic.srd.sim;

import io.srdnic.pmd.PacketIo;
import io.srdnic.srd.api.AsyncEventQueue;
import io.srdnic.srd.api.CompletionQueue;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.api.WcOpcode;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.transport.device.TransportDevice;
import io.srdnic.srd.transport.device.TransportQpAttributes;
import io.srdnic.srd.transport.port.WorkRequest;
import io.srdnic.srd.transport.rc.DeviceQp;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * One simulated host: an SRD transport on its port, one QP that sends its quota of messages to one
 * destination and keeps receives posted for whoever sends to it, (when the scenario sends
 * hostile messages or {@code --ops rnr}) a second QP that never posts a receive, for sends that
 * must meet RNR, (for {@code --ops ud}) a UD QP that sends the datagrams and receives them, and
 * (for the RDMA operations) a memory region ({@link SimRegion}) the senders to it write and read.
 * Each message carries its sequence number in its first bytes and, unless it is a plain SEND, an
 * RDMA WRITE or a READ, as immediate data, so the receiver can tell duplicates and damage apart
 * (see {@link Ledger}; the RDMA operations are checked by {@link RdmaChecks}).
 * <p>
 * Disruptions: {@link #destroyQp} destroys the QP and, after a delay, creates a new one (which the
 * senders to this host use from then on); {@link #destroyAddressHandle} destroys and re-creates the
 * address handle; {@link #crash} drops the whole transport and, after a delay, starts a new
 * incarnation with a later epoch on the same port (QP destroys and crashes orphan the requests the
 * application never saw complete; what it had polled stands); {@link #stall} stops the host's
 * thread for a while; a QP that goes to ERROR (QP_FATAL: its receive CQ overran) is replaced.
 */
final class SimHost {
    static final int SQ_DEPTH = 4096;
    static final int RQ_DEPTH = 8192;
    private static final int SLOT_BITS = 16;
    /** A QPN no QP can have: its low 16 bits, the QP table index (at most 16 bits), are 0, an index never given. */
    static final int ABSENT_QPN = 0x00AB_0000;
    /**
     * First epochs are drawn from [2^20, 2^21): far from 0 and from wrapping, whatever a run's restarts
     * (later epochs, as {@code TransportDevice.newEpoch} gives) and forged earlier ones add or take.
     */
    private static final int FIRST_EPOCH_RANGE = 1 << 20;
    /** A restart's epoch is later by 1 plus less than this (ticks of the time between the two starts). */
    static final int RESTART_EPOCH_STEP = 1000;
    static final int WRONG_QKEY = SrdSimulation.QKEY ^ 0x00FF_00FF;

    /** A QP of this host with its completion queues and receive buffers, named by a run-wide uid. */
    static final class SimQp {
        final DeviceQp qp;
        final int uid;
        final CompletionQueue sendCq;
        final CompletionQueue recvCq;
        final MemorySegment recvBuffers;
        final int qpn;

        SimQp(DeviceQp qp, int uid, CompletionQueue sendCq, CompletionQueue recvCq, MemorySegment recvBuffers) {
            this.qp = qp;
            this.uid = uid;
            this.sendCq = sendCq;
            this.recvCq = recvCq;
            this.recvBuffers = recvBuffers;
            this.qpn = qp.qpn();
        }
    }

    final int index;
    private final SimWorld world;
    private final Scenario scenario;
    private final PacketIo port;
    private final SplittableRandom random;
    private final int size;
    private final int sendSlotSize;
    private final int recvSlotSize;
    private final MemorySegment sendBuffers;
    private final int[] freeSlots = new int[SQ_DEPTH];
    private int freeSlotCount;
    private final long[] slotSeq = new long[SQ_DEPTH];
    private final long[] slotPostTime = new long[SQ_DEPTH];
    /** Where in the destination's region the RDMA request of each slot goes. */
    private final long[] slotRemoteOffset = new long[SQ_DEPTH];
    /** The one work request this host posts with, refilled per post: posting allocates nothing. */
    private final WorkRequest wr = new WorkRequest();
    /** This host's memory open to RDMA, when the run has RDMA operations; else null. */
    final SimRegion region;

    TransportDevice transport;
    private IncarnationPort incarnationPort;
    /** This incarnation's epoch (what a forger claims to be before or after, see {@link Forger}). */
    int epoch;
    /** Every incarnation gets the same seed, as a deployment with a fixed seed restarts: only the epoch differs. */
    private final long transportSeed;
    int incarnations;
    SimQp main;
    SimQp sink;
    SimQp ud;
    private final List<SimQp> retired = new ArrayList<>();
    private int ah = -1;
    /** While down (after a crash or a QP destroy): when the transport or QP comes back. */
    private long readyAt = Long.MAX_VALUE;
    /** What the senders to this host use: its QP's number and uid, and its receive-less QP's. */
    int publishedQpn;
    int publishedUid;
    int publishedSinkQpn = ABSENT_QPN;
    int publishedSinkUid = Ledger.NO_QP;
    int publishedUdQpn = ABSENT_QPN;
    int publishedUdUid = Ledger.NO_QP;

    SimHost destination;
    long quota;
    long nextSeq;
    long outstanding;
    /** This sender's own tallies, for the fairness among senders: first post, last successful completion, successes. */
    long firstPost = Long.MAX_VALUE;
    long lastSuccess;
    long succeeded;
    private int postedInBurst;
    private long gapUntil;
    private long nextRecvPoll;
    private long now;
    /** While stalled (see {@link #stall}): when the thread runs again. */
    private long stalledUntil;

    /** Counters of incarnations gone, so the report covers the whole run. */
    final Map<String, Long> pastCounters = new LinkedHashMap<>();
    long pastRetransmits;
    long recvCqOverruns;
    long sendCqOverruns;

    SimHost(int index, PacketIo port, SimWorld world, long seed) {
        this.index = index;
        this.world = world;
        this.scenario = world.scenario;
        this.port = port;
        this.random = new SplittableRandom(seed);
        this.size = scenario.size();
        this.recvSlotSize = Math.max(8, size);
        this.sendSlotSize = Math.max(recvSlotSize, world.tooLongLength);
        Arena arena = world.arena;
        this.sendBuffers = arena.allocate((long) sendSlotSize * SQ_DEPTH, 64);
        for (int i = 0; i < SQ_DEPTH; i++) {
            freeSlots[freeSlotCount++] = i;
            slotSeq[i] = -1;
        }
        this.transportSeed = random.nextLong();
        this.region = world.rdma == null ? null : new SimRegion(arena, index, size, scenario.sendersTo(index));
        startTransport(FIRST_EPOCH_RANGE + random.nextInt(FIRST_EPOCH_RANGE));
        if (size > transport.mtu()) {
            throw new IllegalArgumentException("--size " + size + " exceeds the SRD MTU " + transport.mtu());
        }
        createQps();
    }

    static long mac(int host) {
        return 0x02_00_00_00_00_00L | (host + 1);
    }

    static int ip(int host) {
        return 0x0A00_0001 + host;
    }

    private void startTransport(int newEpoch) {
        epoch = newEpoch;
        incarnationPort = new IncarnationPort(port);
        TransportConfig config = world.config.copy().localIp(ip(index));
        transport = new TransportDevice(incarnationPort, config, newEpoch, transportSeed);
        if (region != null) {
            region.register(transport); // each incarnation anew: the senders here use the key it publishes
        }
        incarnations++;
    }

    private void createQps() {
        if (main == null) {
            main = createQp(QpType.SRD, false);
            publishedQpn = main.qpn;
            publishedUid = main.uid;
        }
        if (world.sinks && sink == null) {
            sink = createQp(QpType.SRD, true);
            publishedSinkQpn = sink.qpn;
            publishedSinkUid = sink.uid;
        }
        if (world.datagrams && ud == null) {
            ud = createQp(QpType.UD, false);
            publishedUdQpn = ud.qpn;
            publishedUdUid = ud.uid;
        }
        if (destination != null && ah < 0) {
            ah = transport.createAddressHandle(mac(destination.index), ip(destination.index), transport.config().udpPort());
        }
        readyAt = Long.MAX_VALUE;
    }

    private SimQp createQp(QpType type, boolean withoutReceives) {
        Scenario.Events e = scenario.events();
        // CQ pressure is the SRD QP's to meet: a UD QP's receive CQ holds all its receives, so it never
        // overruns (a UD QP in ERROR would only stop the datagrams); a datagram with no receive is lost, as UD may.
        int cqDepth = withoutReceives ? 16 : e.recvCqCapacity() > 0 && type == QpType.SRD ? e.recvCqCapacity() : RQ_DEPTH;
        CompletionQueue sendCq = new CompletionQueue(withoutReceives ? 16 : SQ_DEPTH);
        CompletionQueue recvCq = new CompletionQueue(cqDepth);
        DeviceQp qp = transport.createQp(new TransportQpAttributes(type).sqDepth(withoutReceives ? 1 : SQ_DEPTH)
            .rqDepth(withoutReceives ? 1 : RQ_DEPTH).sendCq(sendCq).recvCq(recvCq));
        qp.modify(QpState.INIT, SrdSimulation.QKEY);
        MemorySegment buffers = null;
        if (!withoutReceives) {
            buffers = world.arena.allocate((long) recvSlotSize * RQ_DEPTH, 64);
            for (int i = 0; i < RQ_DEPTH; i++) {
                qp.postReceive(i, buffers, (long) i * recvSlotSize, recvSlotSize);
            }
        }
        qp.modify(QpState.RTR, 0);
        qp.modify(QpState.RTS, 0);
        if (e.rnrRetry() > 0 && type == QpType.SRD) {
            qp.rnrRetry(e.rnrRetry());
        }
        return new SimQp(qp, world.nextUid++, sendCq, recvCq, buffers);
    }

    void startSending(SimHost to, long messages) {
        this.destination = to;
        this.quota = messages;
        world.ledger.expect(index, messages);
        if (world.rdma != null) {
            world.rdma.expect(index, messages);
        }
        this.ah = transport.createAddressHandle(mac(to.index), ip(to.index), transport.config().udpPort());
    }

    /** Whether every message is posted and resolved (completed, or orphaned by a destroy or crash). */
    boolean finished() {
        return (destination == null || (nextSeq == quota && outstanding == 0)) && readyAt == Long.MAX_VALUE;
    }

    /** Whether this host can take a QP destroy, an address handle destroy, a crash or a stall now. */
    boolean up() {
        return transport != null && main != null && now - stalledUntil >= 0;
    }

    /** Posts what the send queue allows, runs the transport, reaps completions. */
    int step(long time) {
        this.now = time;
        if (world.network != null) {
            // The network's stalling-host fault: the thread is stopped, nothing runs until the stall ends.
            stalledUntil = Math.max(stalledUntil, world.network.stallEnd(index, time));
        }
        if (time - stalledUntil < 0) {
            return 0;
        }
        int work = 0;
        if (readyAt != Long.MAX_VALUE && time - readyAt >= 0) {
            if (transport == null) {
                startTransport(epoch + 1 + random.nextInt(RESTART_EPOCH_STEP));
            }
            createQps();
            work++;
        }
        if (transport == null) {
            return work;
        }
        work += postSends(time);
        work += transport.doWork(time);
        work += pollSends();
        if (scenario.events().recvPollIntervalNanos() == 0 || time - nextRecvPoll >= 0) {
            int polled = pollReceives(Integer.MAX_VALUE);
            if (scenario.events().recvPollIntervalNanos() > 0) {
                nextRecvPoll = time + scenario.events().recvPollIntervalNanos();
            }
            work += polled;
        }
        return work + onAsyncEvents(time);
    }

    /**
     * The transport's asynchronous events, read as an application does: on QP_FATAL (its receive CQ
     * overran; its work was flushed) the QP is replaced like a destroyed one, its successor's number
     * told to the senders here. The others (REMOTE_UNRESPONSIVE, CQ_ERROR) need nothing more.
     */
    private int onAsyncEvents(long time) {
        int n = 0;
        for (AsyncEventQueue.AsyncEvent e; (e = transport.events().poll()) != null; n++) {
            if (e.type() == AsyncEventQueue.QP_FATAL && main != null && e.qpn() == main.qpn) {
                destroyQp(time, 0);
            }
        }
        return n;
    }

    /** The earliest time this host has something to do without a packet arriving, or Long.MAX_VALUE. */
    long nextDeadline() {
        if (now - stalledUntil < 0) {
            return stalledUntil;
        }
        long next = readyAt;
        if (transport != null) {
            next = Math.min(next, transport.nextDeadline());
            if (scenario.events().recvPollIntervalNanos() > 0 && hasUnpolledReceives()) {
                next = Math.min(next, nextRecvPoll);
            }
        }
        if (destination != null && nextSeq < quota && gapUntil - now > 0) {
            next = Math.min(next, gapUntil);
        }
        return next;
    }

    private boolean hasUnpolledReceives() {
        if (main != null && main.recvCq.size() > 0 || sink != null && sink.recvCq.size() > 0 || ud != null && ud.recvCq.size() > 0) {
            return true;
        }
        for (SimQp q : retired) {
            if (q.recvCq.size() > 0) {
                return true;
            }
        }
        return false;
    }

    private int postSends(long time) {
        if (destination == null || main == null || ah < 0) {
            return 0;
        }
        Scenario.Events e = scenario.events();
        int work = 0;
        while (nextSeq < quota && freeSlotCount > 0) {
            if (e.burstMessages() > 0) {
                if (postedInBurst >= e.burstMessages()) {
                    if (outstanding > 0) {
                        break; // the burst is still in flight
                    }
                    postedInBurst = 0;
                    gapUntil = time + e.idleGapNanos();
                }
                if (gapUntil - time > 0) {
                    break;
                }
            }
            long seq = nextSeq;
            byte kind = world.kindOf(index, seq);
            SimQp from = main;
            int destQpn = destination.publishedQpn;
            int targetUid = destination.publishedUid;
            int qkey = SrdSimulation.QKEY;
            switch (kind) {
                case Ledger.UD -> {
                    from = ud;
                    destQpn = destination.publishedUdQpn;
                    targetUid = destination.publishedUdUid;
                }
                case Ledger.BAD_QPN -> {
                    destQpn = ABSENT_QPN;
                    targetUid = Ledger.NO_QP;
                }
                case Ledger.BAD_QKEY -> qkey = WRONG_QKEY;
                case Ledger.RNR -> {
                    destQpn = destination.publishedSinkQpn;
                    targetUid = destination.publishedSinkUid;
                }
                default -> {
                }
            }
            int length = world.ledger.length(kind);
            int slot = freeSlots[--freeSlotCount];
            long at = (long) slot * sendSlotSize;
            long remoteAddress = 0;
            int rkey = 0;
            if (Ledger.isRdma(kind)) {
                RdmaChecks.prepare(kind, sendBuffers, at, length, seq, index);
                slotRemoteOffset[slot] = world.rdma.remoteOffset(kind, destination.region, index, seq, slot);
                remoteAddress = destination.region.address(slotRemoteOffset[slot]);
                rkey = destination.region.publishedRkey;
            } else {
                if (length >= 8) {
                    sendBuffers.set(ValueLayout.JAVA_LONG_UNALIGNED, at, seq);
                }
                if (length > 8) {
                    sendBuffers.set(ValueLayout.JAVA_BYTE, at + length - 1, Ledger.checkByte(seq, index));
                }
            }
            int rc = transport.post(from.qp, wr.clear().wrId((seq << SLOT_BITS) | slot).opcode(Ledger.opcode(kind))
                .buffer(sendBuffers, at, length).immediate(Ledger.withImmediate(kind) ? (int) seq : 0).remote(remoteAddress, rkey)
                .to(ah, destQpn, qkey).signaled(true));
            if (rc != TransportDevice.POST_OK) {
                freeSlots[freeSlotCount++] = slot;
                break;
            }
            slotSeq[slot] = seq;
            slotPostTime[slot] = time;
            world.ledger.posted(index, seq, kind, targetUid);
            if (Ledger.isRdma(kind)) {
                world.rdma.posted(index, seq, slot);
            }
            world.outcome.onPost(time);
            firstPost = Math.min(firstPost, time);
            nextSeq++;
            outstanding++;
            postedInBurst++;
            work++;
        }
        return work;
    }

    private final CompletionQueue.CompletionSink onSend = this::onSendCompletion;

    private int pollSends() {
        int n = 0;
        if (main != null) {
            n += main.sendCq.poll(onSend, Integer.MAX_VALUE);
        }
        if (sink != null) {
            n += sink.sendCq.poll(onSend, Integer.MAX_VALUE);
        }
        if (ud != null) {
            n += ud.sendCq.poll(onSend, Integer.MAX_VALUE); // a datagram's completion comes as it is posted
        }
        for (SimQp q : retired) {
            n += q.sendCq.poll(onSend, Integer.MAX_VALUE);
        }
        return n;
    }

    private void onSendCompletion(long wrId, int st, int opcode, int byteLength, boolean hasImm, int imm, int qpn, int srcQpn,
                                  int srcIp) {
        long seq = wrId >>> SLOT_BITS;
        int slot = (int) (wrId & ((1 << SLOT_BITS) - 1));
        if (slot >= SQ_DEPTH || slotSeq[slot] != seq) {
            world.ledger.lateCompletion(index, seq, st);
            return;
        }
        slotSeq[slot] = -1;
        freeSlots[freeSlotCount++] = slot;
        outstanding--;
        world.resolved++;
        world.ledger.completed(index, seq, st);
        if (Ledger.isRdma(world.ledger.kind(index, seq))) {
            world.rdma.completed(index, seq, st, sendBuffers, (long) slot * sendSlotSize, destination.region, slotRemoteOffset[slot]);
        }
        world.outcome.onCompletion(st, slotPostTime[slot], now);
        if (st == WcStatus.SUCCESS) {
            succeeded++;
            lastSuccess = now;
        }
    }

    private SimQp polling;
    private final CompletionQueue.CompletionSink onRecv = this::onReceiveCompletion;

    private int pollReceives(int max) {
        int n = 0;
        if (main != null) {
            n += pollReceives(main, max);
        }
        if (sink != null) {
            n += pollReceives(sink, max);
        }
        if (ud != null) {
            n += pollReceives(ud, max);
        }
        for (SimQp q : retired) {
            n += pollReceives(q, max);
        }
        return n;
    }

    private int pollReceives(SimQp q, int max) {
        polling = q;
        return q.recvCq.poll(onRecv, max);
    }

    private void onReceiveCompletion(long wrId, int st, int opcode, int byteLength, boolean hasImm, int imm, int qpn, int srcQpn,
                                     int srcIp) {
        SimQp q = polling;
        int slot = (int) wrId;
        if (st == WcStatus.SUCCESS && opcode == WcOpcode.RECV_RDMA_WITH_IMM) {
            if (world.rdma != null) {
                world.rdma.writeWithImmediateReceived(index, q.uid, region, srcIp, hasImm, imm, byteLength);
            } else {
                world.ledger.deliveredByWrite(index, q.uid, srcIp, hasImm, imm, byteLength, false); // no region: nobody wrote
            }
        } else if (st == WcStatus.SUCCESS) {
            boolean ours = q.recvBuffers != null && slot >= 0 && slot < RQ_DEPTH;
            world.ledger.delivered(index, q.uid, srcIp, hasImm, imm, byteLength, ours ? q.recvBuffers : null,
                (long) slot * recvSlotSize);
        }
        if ((q == main || q == ud) && q.qp.state() == QpState.RTS && slot >= 0 && slot < RQ_DEPTH) {
            q.qp.postReceive(slot, q.recvBuffers, (long) slot * recvSlotSize, recvSlotSize);
        }
    }

    /** The application reads everything its CQs hold (before a destroy or crash, and at the end of the run). */
    void drain() {
        if (transport != null) {
            pollSends();
        }
        pollReceives(Integer.MAX_VALUE);
    }

    /** Destroys this host's QP; a new one, which senders here are then told of, comes after {@code delay}. */
    void destroyQp(long time, long delay) {
        this.now = time;
        drain();
        SimQp old = main;
        old.qp.destroy();
        main = null;
        retired.add(old);
        pollSends(); // the destroy's own completions, if the transport flushes
        orphanOutstanding();
        readyAt = time + delay;
    }

    /** Destroys the address handle: what was outstanding on it must complete WR_FLUSH_ERROR at once. */
    void destroyAddressHandle(long time) {
        this.now = time;
        pollSends();
        for (int slot = 0; slot < SQ_DEPTH; slot++) {
            if (slotSeq[slot] >= 0) {
                world.ledger.expectFlush(index, slotSeq[slot]);
            }
        }
        transport.destroyAddressHandle(ah);
        pollSends();
        for (int slot = 0; slot < SQ_DEPTH; slot++) {
            if (slotSeq[slot] >= 0) {
                world.ledger.flushViolations++;
                world.ledger.note("host %d message %d was outstanding when its address handle was destroyed and is still",
                    index, slotSeq[slot]);
            }
        }
        ah = transport.createAddressHandle(mac(destination.index), ip(destination.index), transport.config().udpPort());
    }

    /** The host's thread stops for {@code duration}: nothing is sent, read or polled; frames wait in its RX ring. */
    void stall(long time, long duration) {
        this.now = time;
        stalledUntil = time + duration;
    }

    /** The transport dies (its port cut off at once); a new incarnation starts after {@code delay}. */
    void crash(long time, long delay) {
        this.now = time;
        drain();
        recvCqOverruns += overruns(true);
        sendCqOverruns += overruns(false);
        orphanOutstanding();
        incarnationPort.kill();
        pastRetransmits += transport.counters().txRetransmits;
        transport.counters().snapshot().forEach((k, v) -> pastCounters.merge(k, v, Long::sum));
        transport.close();
        transport = null;
        main = null;
        sink = null;
        ud = null;
        retired.clear();
        ah = -1;
        readyAt = time + delay;
    }

    private void orphanOutstanding() {
        for (int slot = 0; slot < SQ_DEPTH; slot++) {
            if (slotSeq[slot] >= 0) {
                world.ledger.orphan(index, slotSeq[slot]);
                if (world.rdma != null) {
                    world.rdma.orphaned(index, slotSeq[slot]);
                }
                slotSeq[slot] = -1;
                freeSlots[freeSlotCount++] = slot;
                outstanding--;
                world.resolved++;
            }
        }
    }

    /** CQ overruns (completions the transport could not push) of the live incarnation's QPs. */
    long overruns(boolean receive) {
        long n = 0;
        List<SimQp> all = new ArrayList<>(retired);
        if (main != null) {
            all.add(main);
        }
        if (sink != null) {
            all.add(sink);
        }
        if (ud != null) {
            all.add(ud);
        }
        for (SimQp q : all) {
            n += receive ? q.recvCq.overruns() : q.sendCq.overruns();
        }
        return n;
    }
}
