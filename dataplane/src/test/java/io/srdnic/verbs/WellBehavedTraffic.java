package io.srdnic.verbs;

import io.srdnic.srd.api.WcStatus;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Test fixture: a well-behaved tenant of the dataplane beside a hostile one. On its own thread it
 * streams SRD (port 0 to port 1) and RC (port 0 to port 1) messages, one of each per round, each
 * checked byte for byte on arrival, its receives posted ahead; it records the rounds done, the
 * longest round (how long the dataplane stalled it) and the first thing that went wrong.
 */
final class WellBehavedTraffic implements AutoCloseable {
    private static final int WINDOW = 16;
    private static final long AWAIT_SECONDS = 10;

    private final AttachedSrdTest.App srdA;
    private final AttachedSrdTest.App srdB;
    private final AttachedRcTest.RcApp rcA;
    private final AttachedRcTest.RcApp rcB;
    private final AddressHandle toB;
    private final Thread thread;
    private final WorkCompletion[] one = CompletionQueue.array(1);
    private volatile boolean running = true;
    private volatile long rounds;
    private volatile long longestRoundNanos;
    private volatile String failure;

    WellBehavedTraffic(Path dir) {
        srdA = new AttachedSrdTest.App(dir, 0, 0);
        srdB = new AttachedSrdTest.App(dir, 1, WINDOW);
        rcA = new AttachedRcTest.RcApp(dir, 0, 0);
        rcB = new AttachedRcTest.RcApp(dir, 1, WINDOW);
        AttachedRcTest.pair(rcA, rcB, 14, 7);
        toB = srdA.to(srdB);
        thread = new Thread(this::run, "well-behaved-traffic");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        try {
            for (long i = 0; running; i++) {
                long start = System.nanoTime();
                String srd = "srd message " + i;
                srdA.mr.segment().setString(0, srd);
                SendWr wr = new SendWr().wrId(i).opcode(SendWr.OP_SEND).destination(toB, srdB.qp.qpNum(), AttachedSrdTest.QKEY);
                wr.sge(0).set(srdA.mr, 0, srd.length() + 1);
                check(srdA.qp.postSend(wr.numSge(1)) == 0, "SRD post refused");
                receive(srdB.cq, srdB.qp, srdB.mr, one, srd);
                sent(srdA.cq, one, i);
                String rc = "rc message " + i;
                rcA.mr.segment().setString(0, rc);
                check(rcA.qp.postSend(rcA.wr(i, SendWr.OP_SEND, 0, rc.length() + 1)) == 0, "RC post refused");
                receive(rcB.cq, rcB.qp, rcB.mr, one, rc);
                sent(rcA.cq, one, i);
                longestRoundNanos = Math.max(longestRoundNanos, System.nanoTime() - start);
                rounds = i + 1;
            }
        } catch (Throwable t) {
            failure = t.toString();
        }
    }

    private static void receive(CompletionQueue cq, QueuePair qp, MemoryRegion mr, WorkCompletion[] wcs, String expected) {
        check(cq.await(wcs, AWAIT_SECONDS, TimeUnit.SECONDS) == 1, "no receive completion in " + AWAIT_SECONDS + " s");
        WorkCompletion wc = wcs[0];
        check(wc.status() == WcStatus.SUCCESS, "receive completed " + wc);
        long at = 1024 + (wc.wrId() - 100) * 256;
        check(mr.segment().getString(at).equals(expected), "received '" + mr.segment().getString(at) + "', sent '" + expected + "'");
        RecvWr r = new RecvWr();
        r.wrId(wc.wrId()).sge().set(mr, at, 256);
        check(qp.postRecv(r) == 0, "receive repost refused");
    }

    private static void sent(CompletionQueue cq, WorkCompletion[] wcs, long wrId) {
        check(cq.await(wcs, AWAIT_SECONDS, TimeUnit.SECONDS) == 1, "no send completion in " + AWAIT_SECONDS + " s");
        check(wcs[0].status() == WcStatus.SUCCESS && wcs[0].wrId() == wrId, "send completed " + wcs[0]);
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException(what);
        }
    }

    /** The context SRD messages go to (port 1), for a hostile client to address. */
    Context srdPeer() {
        return srdB.ctx;
    }

    int srdPeerQpn() {
        return srdB.qp.qpNum();
    }

    long rounds() {
        return rounds;
    }

    /** Waits until {@code more} further rounds are done (or something failed, or 30 s passed). */
    void awaitMore(long more) {
        long target = rounds + more;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (rounds < target && failure == null && thread.isAlive() && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
    }

    /** What went wrong, or null: every message arrived whole and in time. */
    String failure() {
        return failure;
    }

    long longestRoundNanos() {
        return longestRoundNanos;
    }

    @Override
    public void close() {
        running = false;
        try {
            thread.join(TimeUnit.SECONDS.toMillis(AWAIT_SECONDS * 2));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        srdA.close();
        srdB.close();
        rcA.close();
        rcB.close();
    }
}
