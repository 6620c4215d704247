package io.srdnic.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.verbs.Access;
import io.srdnic.verbs.MemoryRegion;
import io.srdnic.verbs.SendWr;
import io.srdnic.verbs.VerbsException;
import io.srdnic.verbs.WorkCompletion;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 25's property test: seeded random interleavings of SENDs, WRITEs, READs, atomics, zero-byte
 * RDMA, remote errors (a bad rkey, a revoked rkey), local errors (a bad lkey) and a state change (the
 * application moving the QP to ERROR), over a network that loses, duplicates and reorders. The
 * invariants are the rules: completions in post order, SUCCESS only before the first error, which
 * keeps its own status, and WR_FLUSH_ERR after it; no SUCCESS without delivery (every SUCCESS SEND
 * received, every SUCCESS WRITE landed, every SUCCESS READ holding the remote bytes); every delivered
 * message reported SUCCESS and every executed atomic answered exactly once (unless the application
 * itself moved the QP to ERROR mid-flight, which IB allows to flush them); nothing written through a
 * revoked key; no exception anywhere. Bounded by default (8 seeds × 60 work requests, a few seconds);
 * {@code -Drc.property.seeds=N} runs more.
 */
class RcInterleavingPropertyTest extends ConformanceCase {
    private static final int OPS = 60;
    private static final int SLOT = 256;
    // Side a's buffer: the bytes sent and written [0, 64K), READs land at 64K + i × SLOT, atomics' answers at 200K + i × 8.
    private static final int READ_LANDING = 64 * 1024;
    private static final int ANSWERS = 200 * 1024;
    // Side b's buffer: WRITE i lands at i × SLOT, READs read [64K, +SLOT), the atomic word at 120K, receive i at 128K + i × SLOT.
    private static final int READ_SOURCE = 64 * 1024;
    private static final int WORD = 120 * 1024;
    private static final int RECEIVES = 128 * 1024;

    enum Op { SEND, WRITE, READ, FETCH_ADD, ZERO_WRITE, BAD_RKEY, REVOKED_RKEY, BAD_LKEY }

    static LongStream seeds() {
        return LongStream.range(0, Long.getLong("rc.property.seeds", 8)).map(i -> 25_000 + i);
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void shouldKeepEveryRuleUnderRandomInterleavingsAndFaults(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        try (RcConformancePair p = pair(seed, RcConformancePair.HOSTILE, 256 * 1024)) {
            for (int i = 0; i < 64 * 1024; i += 8) {
                p.a.mem.set(ValueLayout.JAVA_LONG, i, rnd.nextLong());
                p.b.mem.set(ValueLayout.JAVA_LONG, READ_SOURCE + i % SLOT, seed * 31 + i % SLOT);
            }
            // Memory either provider can register (attached: its shared pool); the region registered after the
            // revoked one's deregistration is where a revived key would land (the pool may hand back the same bytes).
            MemoryRegion revoked = p.b.pd.allocateRegion(4096, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            int revokedKey = revoked.rkey();
            revoked.deregister();
            MemoryRegion reborn = p.b.pd.allocateRegion(4096, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            MemorySegment victim = reborn.segment();
            byte[] before = victim.toArray(ValueLayout.JAVA_BYTE);
            RcConformancePair.postReceives(p.b, OPS, RECEIVES, SLOT);

            Op[] ops = new Op[OPS];
            long[] adds = new long[OPS];
            int[] lengths = new int[OPS];
            int userErrorAt = rnd.nextInt(4) == 0 ? 10 + rnd.nextInt(OPS - 10) : -1;
            int posted = 0;
            boolean userError = false;
            for (int i = 0; i < OPS; i++) {
                if (i == userErrorAt) {
                    p.a.qp.modify(QpState.ERROR, 0);
                    userError = true;
                    break;
                }
                ops[i] = pick(rnd);
                SendWr wr = build(p, ops[i], i, rnd, revokedKey, adds, lengths);
                try {
                    if (p.a.qp.postSend(wr) != 0) {
                        break;
                    }
                } catch (VerbsException inError) {
                    assertEquals(QpState.ERROR, p.a.qp.query().state(), "a post is refused only by ERROR: " + inError.getMessage());
                    break;
                }
                posted++;
                if (rnd.nextInt(8) == 0) {
                    RcConformancePair.await(p.a.cq, 1, 0); // let some of it run before the next post
                }
            }
            List<WorkCompletion> wcs = new ArrayList<>(RcConformancePair.await(p.a.cq, posted, 30));
            wcs.addAll(RcConformancePair.drain(p.a.cq, 20));
            assertEquals(posted, wcs.size(), "every posted work request completes once");
            int firstError = -1;
            for (int i = 0; i < posted; i++) {
                WorkCompletion wc = wcs.get(i);
                assertEquals(i, wc.wrId(), "post order");
                if (firstError < 0 && wc.status() != WcStatus.SUCCESS) {
                    firstError = i;
                    assertTrue(userError || expectedFailure(ops[i]) || wc.status() == WcStatus.WR_FLUSH_ERROR,
                        "the first error belongs to a request that could fail: " + ops[i] + " " + wc.statusName());
                    if (!userError) {
                        assertEquals(expectedStatus(ops[i]), wc.status(), ops[i] + " at " + i + ": " + wc.statusName() + "; counters a="
                            + p.a.ctx.counters() + " b=" + p.b.ctx.counters());
                    }
                } else if (firstError >= 0) {
                    assertEquals(WcStatus.WR_FLUSH_ERROR, wc.status(), "after the first error: flushed, " + i);
                }
            }
            int succeeded = firstError < 0 ? posted : firstError;
            for (int i = 0; i < succeeded; i++) {
                assertTrue(!expectedFailure(ops[i]), "a request that must fail succeeded: " + ops[i] + " at " + i);
            }
            // No SUCCESS without delivery, and (without the application's ERROR) no delivery without SUCCESS.
            List<WorkCompletion> rx = RcConformancePair.drain(p.b.cq, 50);
            List<Long> delivered = new ArrayList<>();
            int receiveIndex = 0;
            for (WorkCompletion r : rx) {
                if (r.status() == WcStatus.SUCCESS) {
                    long at = RECEIVES + (long) (r.wrId() - 5000) * SLOT;
                    assertEquals(receiveIndex++, r.wrId() - 5000, "receives are taken in order");
                    delivered.add(p.b.mem.get(ValueLayout.JAVA_LONG_UNALIGNED, at));
                }
            }
            List<Long> sendsSucceeded = new ArrayList<>();
            long addsSucceeded = 0;
            long addsPosted = 0;
            for (int i = 0; i < posted; i++) {
                boolean ok = i < succeeded;
                switch (ops[i]) {
                    case SEND -> {
                        if (ok) {
                            sendsSucceeded.add(tag(i));
                        }
                    }
                    case WRITE -> {
                        if (ok) {
                            assertEquals(-1, MemorySegment.mismatch(p.a.mem, src(i), src(i) + lengths[i], p.b.mem, (long) i * SLOT,
                                (long) i * SLOT + lengths[i]), "a SUCCESS WRITE landed: " + i);
                        }
                    }
                    case READ -> {
                        if (ok) {
                            assertEquals(-1, MemorySegment.mismatch(p.a.mem, READ_LANDING + (long) i * SLOT,
                                READ_LANDING + (long) i * SLOT + lengths[i], p.b.mem, READ_SOURCE, READ_SOURCE + lengths[i]),
                                "a SUCCESS READ holds the remote bytes: " + i);
                        }
                    }
                    case FETCH_ADD -> {
                        addsPosted += adds[i];
                        if (ok) {
                            addsSucceeded += adds[i];
                        }
                    }
                    default -> { }
                }
            }
            long counted = p.b.mem.get(ValueLayout.JAVA_LONG, WORD);
            if (userError) {
                assertTrue(sendsSucceeded.size() <= delivered.size() && delivered.subList(0, sendsSucceeded.size()).equals(sendsSucceeded),
                    "every SUCCESS SEND was delivered, in order");
                assertTrue(counted >= addsSucceeded && counted <= addsPosted, "atomics: " + counted);
            } else {
                assertEquals(sendsSucceeded, delivered, "delivered exactly the SUCCESS SENDs, in order");
                assertEquals(addsSucceeded, counted, "every executed atomic was answered, once");
            }
            assertArrayEquals(before, victim.toArray(ValueLayout.JAVA_BYTE), "nothing written through the revoked key");
            assertTrue(reborn.rkey() != revokedKey);
            if (firstError >= 0 || userError) {
                assertEquals(QpState.ERROR, p.a.qp.query().state());
            }
        }
    }

    private static Op pick(SplittableRandom rnd) {
        int r = rnd.nextInt(100);
        return r < 25 ? Op.SEND : r < 50 ? Op.WRITE : r < 70 ? Op.READ : r < 85 ? Op.FETCH_ADD : r < 94 ? Op.ZERO_WRITE
            : r < 96 ? Op.BAD_RKEY : r < 98 ? Op.REVOKED_RKEY : Op.BAD_LKEY;
    }

    private static SendWr build(RcConformancePair p, Op op, int i, SplittableRandom rnd, int revokedKey, long[] adds, int[] lengths) {
        SendWr wr = new SendWr().wrId(i).flags(SendWr.SIGNALED).numSge(1);
        int len = 8 + rnd.nextInt(SLOT - 8);
        lengths[i] = len;
        switch (op) {
            case SEND -> {
                p.a.mem.set(ValueLayout.JAVA_LONG_UNALIGNED, src(i), tag(i));
                wr.opcode(SendWr.OP_SEND).sge(0).set(p.a.mr, src(i), len);
            }
            case WRITE -> wr.opcode(SendWr.OP_RDMA_WRITE).rdma(p.b.mem.address() + (long) i * SLOT, p.b.mr.rkey())
                .sge(0).set(p.a.mr, src(i), len);
            case READ -> wr.opcode(SendWr.OP_RDMA_READ).rdma(p.b.mem.address() + READ_SOURCE, p.b.mr.rkey())
                .sge(0).set(p.a.mr, READ_LANDING + (long) i * SLOT, len);
            case FETCH_ADD -> {
                adds[i] = 1 + rnd.nextInt(1000);
                wr.opcode(SendWr.OP_ATOMIC_FETCH_ADD).atomic(p.b.mem.address() + WORD, p.b.mr.rkey(), adds[i], 0)
                    .sge(0).set(p.a.mr, ANSWERS + (long) i * 8, 8);
            }
            case ZERO_WRITE -> wr.opcode(SendWr.OP_RDMA_WRITE).rdma(0, 0).numSge(0);
            case BAD_RKEY -> wr.opcode(SendWr.OP_RDMA_WRITE).rdma(p.b.mem.address(), p.b.mr.rkey() ^ 0x10_1000)
                .sge(0).set(p.a.mr, src(i), len);
            case REVOKED_RKEY -> wr.opcode(SendWr.OP_RDMA_WRITE).rdma(p.b.mem.address(), revokedKey).sge(0).set(p.a.mr, src(i), len);
            case BAD_LKEY -> wr.opcode(SendWr.OP_SEND).sge(0).set(p.a.mem, src(i), len, p.a.mr.lkey() ^ 0x20_0000);
        }
        return wr;
    }

    private static boolean expectedFailure(Op op) {
        return op == Op.BAD_RKEY || op == Op.REVOKED_RKEY || op == Op.BAD_LKEY;
    }

    private static int expectedStatus(Op op) {
        return op == Op.BAD_LKEY ? WcStatus.LOCAL_PROTECTION_ERROR : WcStatus.REMOTE_ACCESS_ERROR;
    }

    private static long src(int i) {
        return (long) (i % 200) * SLOT;
    }

    private static long tag(int i) {
        return 0x2500_0000_0000L + i;
    }
}
