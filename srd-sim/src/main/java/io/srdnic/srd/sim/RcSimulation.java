package io.srdnic.srd.sim;

import io.srdnic.pmd.PacketIo;
import io.srdnic.pmd.sim.SimNetwork;
import io.srdnic.pmd.sim.SimPort;
import io.srdnic.srd.api.CompletionQueue;
import io.srdnic.srd.api.QpAttributes;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.SendOpcode;
import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.counters.SrdCounters;
import io.srdnic.srd.transport.device.TransportDevice;
import io.srdnic.srd.transport.device.TransportQpAttributes;
import io.srdnic.srd.transport.port.MemoryRegions;
import io.srdnic.srd.transport.port.WorkRequest;
import io.srdnic.srd.transport.rc.DeviceQp;
import io.srdnic.srd.wire.DropReason;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Function;

/**
 * {@code srdnic sim --transport rc}: the real RC transport on two simulated hosts in virtual time,
 * with the scenario's link faults. Host 0's RC QP is connected to host 1's and posts the scenario's
 * messages, cycling through the {@link RcOp}s, up to {@link #DEPTH} outstanding; host 1 answers.
 * Every message is checked: a SEND's bytes and immediate in the receive it consumed, a WRITE's bytes
 * in host 1's region, a READ's bytes in host 0's buffer, an atomic's original value against a model
 * of the word that runs the atomics in post order (RC executes them once each, in order), and the
 * word's final value; completions must come in post order, all SUCCESS.
 * <p>
 * Host 0 keeps {@link #RD_ATOMIC} READs and atomics outstanding, as many as host 1 has answer slots;
 * an answer's slot frees only once host 0 has acknowledged it, so when an ACK is lost or late a
 * new READ or atomic finds none free, waits at the responder, and host 1's ACKs say so (FLAG_HELD).
 * An {@link RcOp#RNR} message finds no receive until host 1 has sent its RNR NAK, which carries
 * {@link #MIN_RNR_TIMER}.
 */
public final class RcSimulation {
    /** Messages outstanding at once: the send queue's and the receive queue's depth. */
    public static final int DEPTH = 32;
    /** RC's path MTU here: a message longer than this is several packets (FIRST, MIDDLE..., LAST). */
    public static final int PATH_MTU = 1024;
    /** Host 1's min_rnr_timer (IBTA code 4: 0.04 ms), carried in the detail byte of its RNR NAKs. */
    public static final int MIN_RNR_TIMER = 4;
    /** READs and atomics each side keeps outstanding and takes: the device's limit, as many as its answer ring holds. */
    public static final int RD_ATOMIC = QpAttributes.RD_ATOMIC_LIMIT;
    /** Local ACK timeout code (4.096 µs × 2^4 ≈ 65 µs) and retries: enough for the fabric's loss. */
    static final int TIMEOUT = 4;
    static final int RETRY_CNT = 7;
    /** After the last completion the run goes on until the network is quiet, at most this long: the last ACKs land. */
    static final long QUIESCE_NANOS = 2_000_000;
    /** Largest message: RC carries more than the MTU, but a run's buffers stay small. */
    public static final int MAX_SIZE = 1 << 20;

    private RcSimulation() {
    }

    /** What an RC run did; it passed if every message completed SUCCESS and checked out. */
    public record Report(long messages, long ok, Map<String, Long> errorsByStatus, List<String> failures, long rnrNaks,
                         long answersDeferred, long retransmits, long virtualTimeUs, Map<String, Long> counters) {
        public boolean passed() {
            return ok == messages && failures.isEmpty();
        }
    }

    /**
     * @param wrap   decorates each host's port (a pcap capture, say); identity for none
     * @param config transport configuration of both hosts
     */
    public static Report run(Scenario s, List<RcOp> ops, Function<SimPort, PacketIo> wrap, TransportConfig config) {
        if (s.size() > MAX_SIZE) {
            throw new IllegalArgumentException("--size is at most " + MAX_SIZE + " with --transport rc");
        }
        SplittableRandom seeds = new SplittableRandom(s.seed());
        int frameRoom = Math.max(256, config.mtu() + TransportConfig.FRAME_OVERHEAD);
        try (Arena arena = Arena.ofConfined();
             SimNetwork network = SrdSimulation.network(s, SrdSimulation.accessLink(s), SrdSimulation.fabricPath(s), frameRoom)) {
            TransportConfig hostConfig = config.copy().paths(s.paths());
            TransportDevice[] hosts = new TransportDevice[2];
            for (int h = 0; h < 2; h++) {
                SimPort port = network.addHost(SimHost.mac(h));
                hosts[h] = new TransportDevice(wrap.apply(port), hostConfig.copy().localIp(SimHost.ip(h)), seeds.nextInt() | 1,
                    seeds.nextLong());
            }
            try {
                Run run = new Run(s, ops, hosts, arena, seeds);
                return run.drive(network);
            } finally {
                for (TransportDevice t : hosts) {
                    t.close();
                }
            }
        }
    }

    /** One run's state: the two QPs, their memory, and what each outstanding message must find. */
    private static final class Run {
        final Scenario s;
        final List<RcOp> ops;
        final TransportDevice a;
        final TransportDevice b;
        final DeviceQp qa;
        final DeviceQp qb;
        final CompletionQueue sendCq = new CompletionQueue(DEPTH * 2);
        final CompletionQueue recvCq = new CompletionQueue(DEPTH * 2);
        final CompletionQueue unusedCq = new CompletionQueue(DEPTH * 2);
        /** The one work request host 0 posts with, refilled per post. */
        final WorkRequest wr = new WorkRequest();
        final int size;
        final int slot;
        /**
         * Host 0: one slot of {@code size} per outstanding message (send and write source, read
         * destination), 8 bytes per atomic answer.
         */
        final MemorySegment source;
        final MemorySegment answers;
        /** Host 1: receive slots, the region (write slots, read area, the atomic word) and its key. */
        final MemorySegment receives;
        final MemorySegment region;
        final long writeArea;
        final long readArea;
        final long word;
        final int rkey;
        final long seed;
        final List<String> failures = new ArrayList<>();
        final Map<String, Long> errors = new LinkedHashMap<>();
        /** The atomic word as RC must leave it: the atomics applied in post order. */
        long model;
        final long[] expectedOriginal = new long[DEPTH];
        /** The message index each posted receive (in posting order) is for. */
        final long[] receiveOwner = new long[DEPTH];
        long posted;
        long completed;
        long ok;
        long receivesNeeded;
        long receivesPosted;
        long receivesCompleted;
        /** Receive-consuming messages posted: their indices in order, DEPTH at most outstanding. */
        final long[] consumer = new long[DEPTH * 4];
        /**
         * The receive an rnr message is to consume (-1: none): withheld, and those after it, until
         * host 1's NAK count passes naksBefore.
         */
        long withheldReceive = -1;
        long naksBefore;

        Run(Scenario s, List<RcOp> ops, TransportDevice[] hosts, Arena arena, SplittableRandom r) {
            this.s = s;
            this.ops = ops;
            this.a = hosts[0];
            this.b = hosts[1];
            this.size = s.size();
            this.seed = r.nextLong();
            slot = (Math.max(8, size) + 63) & ~63; // 64-byte aligned slots: the atomic word after them is 8-byte aligned
            source = arena.allocate((long) DEPTH * slot, 64);
            answers = arena.allocate(8L * DEPTH, 8);
            receives = arena.allocate((long) DEPTH * slot, 64);
            writeArea = 0;
            readArea = (long) DEPTH * slot;
            word = readArea + slot + 64;
            region = arena.allocate(word + 8, 64);
            for (long i = readArea; i < word; i++) {
                region.set(ValueLayout.JAVA_BYTE, i, pattern(-1, i - readArea));
            }
            model = r.nextLong();
            region.set(ValueLayout.JAVA_LONG, word, model);
            rkey = b.regions().register(region, 0, MemoryRegions.REMOTE_WRITE | MemoryRegions.REMOTE_READ | MemoryRegions.REMOTE_ATOMIC);
            qa = a.createQp(new TransportQpAttributes(QpType.RC).sqDepth(DEPTH).rqDepth(DEPTH).sendCq(sendCq).recvCq(unusedCq));
            qb = b.createQp(new TransportQpAttributes(QpType.RC).sqDepth(DEPTH).rqDepth(DEPTH).sendCq(unusedCq).recvCq(recvCq));
            int psnA = r.nextInt(1 << 24); // RC's PSNs have 24 bits
            int psnB = r.nextInt(1 << 24);
            connect(qa, a, 1, qb.qpn(), psnB, psnA, RD_ATOMIC);
            connect(qb, b, 0, qa.qpn(), psnA, psnB, RD_ATOMIC);
        }

        private void connect(DeviceQp qp, TransportDevice t, int peer, int peerQpn, int rqPsn, int sqPsn, int rdAtomic) {
            int access = QpAttributes.ACCESS_REMOTE_WRITE | QpAttributes.ACCESS_REMOTE_READ | QpAttributes.ACCESS_REMOTE_ATOMIC;
            int ah = t.createAddressHandle(SimHost.mac(peer), SimHost.ip(peer), t.config().udpPort());
            qp.modify(new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(access));
            qp.modify(new QpAttributes().state(QpState.RTR).addressHandle(ah).pathMtu(PATH_MTU).destQpn(peerQpn).rqPsn(rqPsn)
                .maxDestRdAtomic(rdAtomic).minRnrTimer(MIN_RNR_TIMER));
            qp.modify(new QpAttributes().state(QpState.RTS).sqPsn(sqPsn).timeout(TIMEOUT).retryCnt(RETRY_CNT).rnrRetry(7)
                .maxRdAtomic(rdAtomic));
        }

        /** Byte {@code j} of message {@code i} (i = -1: the read area). */
        byte pattern(long i, long j) {
            return (byte) (seed + i * 31 + j * 7 + (j >>> 8));
        }

        Report drive(SimNetwork network) {
            long start = network.clock().now();
            long limit = start + s.timeLimitNanos();
            while (network.clock().now() < limit && !(completed == s.messages() && receivesCompleted == receivesNeeded)) {
                long now = network.clock().now();
                int work = post() + postReceives() + poll();
                work += cycles(network, now);
                if (work == 0 && !advance(network, now, limit)) {
                    break;
                }
            }
            long end = network.clock().now();
            long quietUntil = Math.min(limit, end + QUIESCE_NANOS);
            while (network.clock().now() < quietUntil && network.nextEventTime() != Long.MAX_VALUE) {
                long now = network.clock().now();
                if (cycles(network, now) == 0 && !advance(network, now, quietUntil)) {
                    break;
                }
            }
            if (completed < s.messages() || receivesCompleted < receivesNeeded) {
                fail("unfinished: " + completed + " of " + s.messages() + " messages completed, " + receivesCompleted + " of "
                    + receivesNeeded + " receives");
            }
            long final_ = region.get(ValueLayout.JAVA_LONG, word);
            if (final_ != model) {
                fail("the atomic word is " + final_ + ", the atomics in post order make " + model);
            }
            SrdCounters ca = a.counters();
            SrdCounters cb = b.counters();
            Map<String, Long> counters = new LinkedHashMap<>();
            ca.snapshot().forEach((k, v) -> counters.merge(k, v, Long::sum));
            cb.snapshot().forEach((k, v) -> counters.merge(k, v, Long::sum));
            return new Report(s.messages(), ok, errors, List.copyOf(failures), cb.dropsSent[DropReason.RNR], cb.readsDeferred
                    + cb.atomicsDeferred,
                ca.txRetransmits + cb.txRetransmits, (end - start) / 1000, counters);
        }

        /** Each host's duty cycle, unless the network's stalling-host fault has its thread stopped now. */
        private int cycles(SimNetwork network, long now) {
            return (network.stallEnd(0, now) == now ? a.doWork(now) : 0) + (network.stallEnd(1, now) == now ? b.doWork(now) : 0);
        }

        private boolean advance(SimNetwork network, long now, long limit) {
            long endA = network.stallEnd(0, now);
            long endB = network.stallEnd(1, now);
            long next = Math.min(network.nextEventTime(), Math.min(endA == now ? a.nextDeadline() : endA,
                endB == now ? b.nextDeadline() : endB));
            if (next == Long.MAX_VALUE) {
                return false;
            }
            network.clock().advanceTo(Math.min(Math.max(next, now + 1), limit));
            return true;
        }

        /** Posts the next messages while fewer than DEPTH are outstanding; returns how many. */
        private int post() {
            int n = 0;
            while (posted < s.messages() && posted - completed < DEPTH) {
                long i = posted;
                RcOp op = ops.get((int) (i % ops.size()));
                int index = (int) (i % DEPTH);
                long at = (long) index * slot;
                int result;
                if (op == RcOp.CMP_SWAP || op == RcOp.FETCH_ADD) {
                    long operand;
                    long swap = 0;
                    expectedOriginal[index] = model;
                    if (op == RcOp.CMP_SWAP) {
                        operand = i % 2 == 0 ? model : model + 1; // every other one compares equal
                        swap = i * 1_000_003L;
                        if (operand == model) {
                            model = swap;
                        }
                    } else {
                        operand = i + 1;
                        model += operand;
                    }
                    result = a.post(qa, wr.clear().wrId(i).opcode(op.opcode()).buffer(answers, 8L * index, SendOpcode.ATOMIC_SIZE)
                        .remote(region.address() + word, rkey).operands(operand, swap).signaled(true));
                } else {
                    long remote = 0;
                    if (op.opcode() == SendOpcode.RDMA_READ) {
                        remote = region.address() + readArea + (i % 8) * 8;
                    } else {
                        for (long j = 0; j < size; j++) {
                            source.set(ValueLayout.JAVA_BYTE, at + j, pattern(i, j));
                        }
                        remote = region.address() + writeArea + at;
                    }
                    result = a.post(qa, wr.clear().wrId(i).opcode(op.opcode()).buffer(source, at, size).immediate((int) i)
                        .remote(remote, rkey).signaled(true));
                }
                if (result != TransportDevice.POST_OK) {
                    fail("message " + i + " (" + op.label() + ") refused at posting: " + result);
                    posted = s.messages();
                    return n;
                }
                if (op.consumesReceive()) {
                    consumer[(int) (receivesNeeded % consumer.length)] = i;
                    receivesNeeded++;
                }
                if (op == RcOp.RNR && withheldReceive < 0) {
                    withheldReceive = receivesNeeded - 1;
                    naksBefore = b.counters().dropsSent[DropReason.RNR];
                }
                posted++;
                n++;
            }
            return n;
        }

        /** Posts host 1's receives for the messages posted, unless an rnr message is still waiting for its NAK. */
        private int postReceives() {
            if (withheldReceive >= 0 && b.counters().dropsSent[DropReason.RNR] > naksBefore) {
                withheldReceive = -1;
            }
            int n = 0;
            while (receivesPosted < receivesNeeded && receivesPosted - receivesCompleted < DEPTH
                && (withheldReceive < 0 || receivesPosted < withheldReceive)) {
                int index = (int) (receivesPosted % DEPTH);
                receiveOwner[index] = consumer[(int) (receivesPosted % consumer.length)];
                if (!qb.postReceive(receivesPosted, receives, (long) index * slot, size)) {
                    fail("receive " + receivesPosted + " refused");
                }
                receivesPosted++;
                n++;
            }
            return n;
        }

        private int poll() {
            return sendCq.poll(this::onSend, DEPTH) + recvCq.poll(this::onReceive, DEPTH);
        }

        private void onSend(long wr, int status, int opcode, int length, boolean hasImm, int imm, int qpn, int srcQpn, int srcIp) {
            if (wr != completed) {
                fail("send completion for message " + wr + " where " + completed + " was next: not in post order");
            }
            completed++;
            if (status != WcStatus.SUCCESS) {
                errors.merge(WcStatus.name(status), 1L, Long::sum);
                fail("message " + wr + " completed " + WcStatus.name(status));
                return;
            }
            RcOp op = ops.get((int) (wr % ops.size()));
            int index = (int) (wr % DEPTH);
            long at = (long) index * slot;
            boolean good = true;
            if (op == RcOp.CMP_SWAP || op == RcOp.FETCH_ADD) {
                long original = answers.get(ValueLayout.JAVA_LONG, 8L * index);
                good = original == expectedOriginal[index];
            } else if (op.opcode() == SendOpcode.RDMA_READ) {
                long from = (wr % 8) * 8;
                for (long j = 0; j < size && good; j++) {
                    good = source.get(ValueLayout.JAVA_BYTE, at + j) == pattern(-1, from + j);
                }
            } else if (op.opcode() == SendOpcode.RDMA_WRITE || op.opcode() == SendOpcode.RDMA_WRITE_WITH_IMM) {
                for (long j = 0; j < size && good; j++) {
                    good = region.get(ValueLayout.JAVA_BYTE, writeArea + at + j) == pattern(wr, j);
                }
            }
            if (good) {
                ok++;
            } else {
                fail("message " + wr + " (" + op.label() + ") completed SUCCESS with the wrong bytes or answer");
            }
        }

        private void onReceive(long wr, int status, int opcode, int length, boolean hasImm, int imm, int qpn, int srcQpn, int srcIp) {
            long k = receivesCompleted++;
            long message = receiveOwner[(int) (k % DEPTH)];
            RcOp op = ops.get((int) (message % ops.size()));
            boolean withImm = op.opcode() != SendOpcode.SEND;
            if (wr != k || status != WcStatus.SUCCESS || length != size || hasImm != withImm || (withImm && imm != (int) message)) {
                fail("receive " + k + " for message " + message + " (" + op.label() + "): wr " + wr + ", " + WcStatus.name(status)
                    + ", " + length + " bytes, immediate " + (hasImm ? imm : "none"));
                return;
            }
            if (op.opcode() != SendOpcode.RDMA_WRITE_WITH_IMM) {
                long at = (k % DEPTH) * slot;
                for (long j = 0; j < size; j++) {
                    if (receives.get(ValueLayout.JAVA_BYTE, at + j) != pattern(message, j)) {
                        fail("receive " + k + " holds other bytes than message " + message + " at " + j);
                        return;
                    }
                }
            }
        }

        private void fail(String why) {
            if (failures.size() < 20) {
                failures.add(why);
            }
        }
    }
}
