package io.srdnic.cli.demo;

import io.srdnic.srd.api.QpAttributes;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.WcOpcode;
import io.srdnic.verbs.Access;
import io.srdnic.verbs.CompletionQueue;
import io.srdnic.verbs.MemoryRegion;
import io.srdnic.verbs.QpInitAttributes;
import io.srdnic.verbs.QueuePair;
import io.srdnic.verbs.RecvWr;
import io.srdnic.verbs.SendWr;
import io.srdnic.verbs.VerbsException;
import io.srdnic.verbs.WorkCompletion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;

/**
 * The demo's second half, on the same two contexts as its SRD runs: an RC queue pair connected
 * between the hosts carries multi-packet messages that must arrive whole and in order, with their
 * completions in post order; then an RDMA WRITE of a region into the peer's registered memory and
 * an RDMA READ of it back, over SRD and over RC, every byte compared.
 * <p>
 * The steps run WARMUP_ROUNDS times untimed (the JIT compiles their paths meanwhile: a cold first
 * round times the compiler, not the transport), then once timed; every round is verified. Each
 * step of the timed round prints one line ending "verified: yes" or "verified: NO (why)"; a step
 * that fails in a warm-up round prints its line then, and the rounds stop. An error completion, a
 * timeout or a refused post fails the step with a line that says which.
 */
final class RcRdmaDemo {
    /** The RC run: this many messages of RC_SIZE, each many packets. */
    static final int RC_MESSAGES = 16;
    static final int RC_SIZE = 1 << 20;
    /** The region written into the peer's memory and read back. */
    static final int RDMA_SIZE = 16 << 20;
    static final int WARMUP_ROUNDS = 3;
    private static final int RC_PSN_A = 100;
    private static final int RC_PSN_B = 900;
    private static final long TIMEOUT_NANOS = 10_000_000_000L;

    private final DemoEndpoint a;
    private final DemoEndpoint b;
    private final int pathMtu;
    private final CompletionQueue rcCqA;
    private final CompletionQueue rcCqB;
    private final QueuePair rcA;
    private final QueuePair rcB;
    /** A's side: the RC messages' source, the RDMA source and where READs land. */
    private final MemoryRegion rcSource;
    private final MemoryRegion rdmaSource;
    private final MemoryRegion readBack;
    /** B's side: the RC receive buffers and the region A writes into and reads (its address and rkey are all A knows of it). */
    private final MemoryRegion rcReceive;
    private final MemoryRegion target;
    private final SendWr wr = new SendWr();
    private final RecvWr recv = new RecvWr();
    private int round;

    /** One step's verdict and the line that says it. */
    private record Outcome(boolean ok, String line) {
    }

    private interface Step {
        Outcome run();
    }

    RcRdmaDemo(DemoEndpoint a, DemoEndpoint b, Arena arena) {
        this.a = a;
        this.b = b;
        pathMtu = Integer.highestOneBit(Math.min(4096, a.context.mtu()));
        rcCqA = a.context.createCq(256);
        rcCqB = b.context.createCq(256);
        rcA = a.pd.createQueuePair(QpInitAttributes.builder(QpType.RC).cq(rcCqA).maxSendWr(64).maxRecvWr(RC_MESSAGES).build());
        rcB = b.pd.createQueuePair(QpInitAttributes.builder(QpType.RC).cq(rcCqB).maxSendWr(64).maxRecvWr(RC_MESSAGES).build());
        rcSource = a.pd.registerMemory(arena.allocate((long) RC_MESSAGES * RC_SIZE, 4096), Access.LOCAL_WRITE);
        rdmaSource = a.pd.registerMemory(arena.allocate(RDMA_SIZE, 4096), Access.LOCAL_WRITE);
        readBack = a.pd.registerMemory(arena.allocate(RDMA_SIZE, 4096), Access.LOCAL_WRITE);
        rcReceive = b.pd.registerMemory(arena.allocate((long) RC_MESSAGES * RC_SIZE, 4096), Access.LOCAL_WRITE);
        target = b.pd.registerMemory(arena.allocate(RDMA_SIZE, 4096), Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ);
        for (QueuePair qp : new QueuePair[] {rcA, rcB}) {
            qp.modify(new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1)
                .accessFlags(QpAttributes.ACCESS_REMOTE_WRITE | QpAttributes.ACCESS_REMOTE_READ));
        }
        connect(a, rcA, rcB, RC_PSN_B, RC_PSN_A);
        connect(b, rcB, rcA, RC_PSN_A, RC_PSN_B);
    }

    /** RTR then RTS, {@code qp} pointing at {@code peer} through {@code side}'s address handle of the other host. */
    private void connect(DemoEndpoint side, QueuePair qp, QueuePair peer, int rqPsn, int sqPsn) {
        qp.modify(new QpAttributes().state(QpState.RTR).addressHandle(side.peer.handle()).pathMtu(pathMtu).destQpn(peer.qpNum())
            .rqPsn(rqPsn).maxDestRdAtomic(4).minRnrTimer(1));
        qp.modify(new QpAttributes().state(QpState.RTS).sqPsn(sqPsn).timeout(14).retryCnt(7).rnrRetry(7).maxRdAtomic(4));
    }

    /** Runs the warm-up rounds and the timed one; true when every step of every round was verified. */
    boolean run() {
        System.out.printf(Locale.ROOT, "rc and rdma: RC QP %d on %s connected to QP %d on %s (path MTU %d); each step below is timed"
                + " after %d untimed rounds of warm-up, every round verified%n",
            rcA.qpNum(), ip(a.context.ip()), rcB.qpNum(), ip(b.context.ip()), pathMtu, WARMUP_ROUNDS);
        for (round = 0; round <= WARMUP_ROUNDS; round++) {
            boolean ok = report("rc", this::rcTransfer)
                & report("rdma write over SRD", () -> rdma(false, true))
                & report("rdma read over SRD", () -> rdma(false, false))
                & report("rdma write over RC", () -> rdma(true, true))
                & report("rdma read over RC", () -> rdma(true, false));
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /** Runs a step; prints its line in the timed round, or in a warm-up round when it failed. */
    private boolean report(String name, Step step) {
        Outcome o;
        try {
            o = step.run();
        } catch (IllegalStateException | VerbsException e) {
            o = new Outcome(false, name + ": FAILED, " + e.getMessage() + "; verified: NO");
        }
        if (round == WARMUP_ROUNDS) {
            System.out.println(o.line());
        } else if (!o.ok()) {
            System.out.println(o.line() + " (in warm-up round " + (round + 1) + ")");
        }
        return o.ok();
    }

    private void progress() {
        a.context.progress();
        b.context.progress();
    }

    private long counter(String name) {
        return a.context.counters().get(name) + b.context.counters().get(name);
    }

    /**
     * RC_MESSAGES sends with immediate of RC_SIZE each on the RC pair, all posted at once: the
     * receiver must take them in post order (immediate i in receive i, whole), the sender complete
     * them in post order; then every byte is compared and both sides' CRC32C printed.
     */
    private Outcome rcTransfer() {
        long total = (long) RC_MESSAGES * RC_SIZE;
        MemorySegment src = rcSource.segment();
        MemorySegment dst = rcReceive.segment();
        fill(src, 0x5EED_0100L + round); // a different pattern in every message: one out of place would not compare equal
        dst.fill((byte) 0);
        for (int i = 0; i < RC_MESSAGES; i++) {
            recv.wrId(i).sge().set(rcReceive, (long) i * RC_SIZE, RC_SIZE);
            if (rcB.postRecv(recv) != 0) {
                throw new IllegalStateException("could not post receive " + i);
            }
        }
        long dataBefore = counter("tx_data");
        long retransmitsBefore = counter("tx_retransmits");
        int posted = 0;
        int sent = 0;
        int received = 0;
        String order = null;
        long start = System.nanoTime();
        long deadline = start + TIMEOUT_NANOS;
        while (sent < RC_MESSAGES || received < RC_MESSAGES) {
            while (posted < RC_MESSAGES && post(rcA, posted, SendWr.OP_SEND_WITH_IMM, rcSource, (long) posted * RC_SIZE, RC_SIZE, false)) {
                posted++;
            }
            progress();
            int n = rcCqA.poll(a.wcs);
            for (int i = 0; i < n; i++) {
                WorkCompletion wc = check(a.wcs[i], "send");
                if (wc.wrId() != sent && order == null) {
                    order = "send completion " + sent + " was of work request " + wc.wrId();
                }
                sent++;
            }
            n = rcCqB.poll(b.wcs);
            for (int i = 0; i < n; i++) {
                WorkCompletion wc = check(b.wcs[i], "receive");
                if ((wc.wrId() != received || wc.immediate() != received || wc.opcode() != WcOpcode.RECV_WITH_IMM) && order == null) {
                    order = "receive " + received + " took buffer " + wc.wrId() + " with immediate " + wc.immediate();
                }
                if (wc.byteLength() != RC_SIZE && order == null) {
                    order = "receive " + received + " holds " + wc.byteLength() + " bytes, not " + RC_SIZE;
                }
                received++;
            }
            timeout(deadline, sent + " of " + RC_MESSAGES + " sends completed and " + received + " received");
        }
        long nanos = System.nanoTime() - start;
        long retransmits = counter("tx_retransmits") - retransmitsBefore;
        long packets = counter("tx_data") - dataBefore - retransmits;
        long mismatch = MemorySegment.mismatch(src, 0, total, dst, 0, total);
        long crcSent = crc32c(src, total);
        long crcReceived = crc32c(dst, total);
        boolean ok = order == null && mismatch == -1 && crcSent == crcReceived;
        String crcs = crcSent == crcReceived ? String.format("CRC32C %08x sent and received", crcSent)
            : String.format("CRC32C %08x sent, %08x received", crcSent, crcReceived);
        return new Outcome(ok, String.format(Locale.ROOT, "rc: %d messages of %s on the RC QP pair in %s, %.2f Gbit/s of payload"
                + " (%d data packets, %d retransmitted); checked whole and in order, completions in post order, %s: %s",
            RC_MESSAGES, size(RC_SIZE), duration(nanos), gbits(total, nanos), packets, retransmits, crcs,
            verdict(ok, order != null ? order : mismatch >= 0 ? "byte " + mismatch + " differs" : "checksums differ")));
    }

    /**
     * A WRITE of the whole source region into B's target region, or a READ of the target back into
     * A's read buffer after B has rewritten it, over SRD or RC; the destination is zeroed first and
     * compared byte for byte after.
     */
    private Outcome rdma(boolean rc, boolean write) {
        MemorySegment from = write ? rdmaSource.segment() : target.segment();
        MemorySegment to = write ? target.segment() : readBack.segment();
        fill(from, 0x5EED_0200L + round * 4L + (rc ? 2 : 0) + (write ? 0 : 1));
        to.fill((byte) 0);
        long dataBefore = counter("tx_data");
        long retransmitsBefore = counter("tx_retransmits");
        long start = System.nanoTime();
        long deadline = start + TIMEOUT_NANOS;
        QueuePair qp = rc ? rcA : a.qp;
        CompletionQueue cq = rc ? rcCqA : a.cq;
        while (!post(qp, 1, write ? SendWr.OP_RDMA_WRITE : SendWr.OP_RDMA_READ, write ? rdmaSource : readBack, 0, RDMA_SIZE, !rc)) {
            progress();
            timeout(deadline, "the send queue stayed full");
        }
        boolean done = false;
        while (!done) {
            progress();
            int n = cq.poll(a.wcs);
            for (int i = 0; i < n; i++) {
                check(a.wcs[i], write ? "the write" : "the read");
                done |= a.wcs[i].opcode() == (write ? WcOpcode.RDMA_WRITE : WcOpcode.RDMA_READ);
            }
            timeout(deadline, "no completion");
        }
        long nanos = System.nanoTime() - start;
        long retransmits = counter("tx_retransmits") - retransmitsBefore;
        long packets = counter("tx_data") - dataBefore - retransmits;
        long mismatch = MemorySegment.mismatch(from, 0, RDMA_SIZE, to, 0, RDMA_SIZE);
        String what = write
            ? String.format(Locale.ROOT, "%s from %s into %s's registered memory (rkey %#x)", size(RDMA_SIZE), ip(a.context.ip()),
                ip(b.context.ip()), target.rkey())
            : String.format(Locale.ROOT, "%s of %s's registered memory, rewritten since, back into %s", size(RDMA_SIZE),
                ip(b.context.ip()), ip(a.context.ip()));
        return new Outcome(mismatch == -1, String.format(Locale.ROOT,
            "rdma %s over %s: %s in %s, %.2f Gbit/s of payload (%d data packets, %d retransmitted); every byte compared: %s",
            write ? "write" : "read", rc ? "RC" : "SRD", what, duration(nanos), gbits(RDMA_SIZE, nanos), packets, retransmits,
            verdict(mismatch == -1, "byte " + mismatch + " differs")));
    }

    /**
     * Posts one signaled work request from or into {@code length} bytes at {@code offset} of
     * {@code mr}, RDMA naming B's target region; on SRD to B's SRD QP, on RC to the connected peer.
     * False when the send queue is full.
     */
    private boolean post(QueuePair qp, long wrId, int opcode, MemoryRegion mr, long offset, int length, boolean srd) {
        wr.wrId(wrId).opcode(opcode).immediate((int) wrId).flags(SendWr.SIGNALED).rdma(target.segment().address(), target.rkey()).numSge(1);
        wr.destination(srd ? a.peer : null, srd ? b.qp.qpNum() : 0, srd ? DemoEndpoint.QKEY : 0);
        wr.sge(0).set(mr, offset, length);
        return qp.postSend(wr) == 0;
    }

    private static WorkCompletion check(WorkCompletion wc, String what) {
        if (!wc.ok()) {
            throw new IllegalStateException(what + " (work request " + wc.wrId() + ") completed with " + wc.statusName());
        }
        return wc;
    }

    private static void timeout(long deadline, String state) {
        if (System.nanoTime() - deadline > 0) {
            throw new IllegalStateException("not done within " + TIMEOUT_NANOS / 1_000_000_000L + " s: " + state);
        }
    }

    private static void fill(MemorySegment s, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        for (long i = 0; i < s.byteSize(); i += 8) {
            s.set(ValueLayout.JAVA_LONG_UNALIGNED, i, r.nextLong());
        }
    }

    private static long crc32c(MemorySegment s, long length) {
        CRC32C crc = new CRC32C();
        crc.update(s.asSlice(0, length).asByteBuffer());
        return crc.getValue();
    }

    private static String verdict(boolean ok, String why) {
        return ok ? "verified: yes" : "verified: NO (" + why + ")";
    }

    private static double gbits(long bytes, long nanos) {
        return bytes * 8.0 / nanos;
    }

    private static String duration(long nanos) {
        return String.format(Locale.ROOT, "%.1f ms", nanos / 1e6);
    }

    private static String size(long bytes) {
        return bytes % (1 << 20) == 0 ? bytes / (1 << 20) + " MiB" : bytes + " bytes";
    }

    private static String ip(int ip) {
        return (ip >>> 24) + "." + (ip >>> 16 & 0xFF) + "." + (ip >>> 8 & 0xFF) + "." + (ip & 0xFF);
    }
}
