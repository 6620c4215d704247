package io.srdnic.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.srd.api.QpAttributes;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.verbs.Access;
import io.srdnic.verbs.CompletionQueue;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.ContextConfig;
import io.srdnic.verbs.Device;
import io.srdnic.verbs.EmbeddedObjects;
import io.srdnic.verbs.MemoryRegion;
import io.srdnic.verbs.ProtectionDomain;
import io.srdnic.verbs.QpInitAttributes;
import io.srdnic.verbs.QueuePair;
import io.srdnic.verbs.RecvWr;
import io.srdnic.verbs.SendWr;
import io.srdnic.verbs.SharedReceiveQueue;
import io.srdnic.verbs.SilentPort;
import io.srdnic.verbs.SimWorld;
import io.srdnic.verbs.ThreadingMode;
import io.srdnic.verbs.VerbsException;
import io.srdnic.verbs.WorkCompletion;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;

/**
 * Rule 6 of issue 25, the race: a post racing a destroy of what it posts to, from two real threads,
 * with the context's driver running DEDICATED on its own agent thread (not the simulator, which
 * runs every context INVOKER: here a context of its own on a port that sends nothing anywhere) —
 * and, in the dataplane module's subclass, attached. Every post either is refused (a
 * VerbsException), or taken: completed, or flushed (WR_FLUSH_ERR) when it reached the QP after the
 * destroy — the race window, counted. Never another exception, none on the driver's thread, no hang,
 * and the context answers control calls after.
 */
class PostDestroyRaceTest extends ConformanceCase {
    /** Rounds of each race: enough that the window is hit hundreds of times (the QP test counts it). */
    protected int rounds() {
        return 300;
    }

    /** The contexts: DEDICATED, each on a port of its own that drops what it is given. */
    @Override
    protected ConformanceFabric fabric(long seed, LinkConfig link) {
        return new ConformanceFabric() {
            @Override
            public Context open(ThreadingMode mode) {
                return Context.open(Device.of("race", new SilentPort(), System::nanoTime), new ContextConfig().mode(mode));
            }

            @Override
            public SimWorld world() {
                return null;
            }

            @Override
            public void close() {
            }
        };
    }

    /** The last exception the context's driver survived (embedded DEDICATED), or null; attached, the dataplane's own. */
    protected RuntimeException driverFault(Context ctx) {
        return EmbeddedObjects.driverFault(ctx);
    }

    @Test
    void shouldRefuseOrFlushSendsRacingTheirQpsDestroy() {
        assertTimeoutPreemptively(Duration.ofSeconds(120), () -> {
            try (ConformanceFabric f = fabric(2563, LinkConfig.DEFAULT); Context ctx = f.open(ThreadingMode.DEDICATED)) {
                ProtectionDomain pd = ctx.allocPd();
                CompletionQueue cq = ctx.createCq(1 << 14);
                MemoryRegion mr = pd.allocateRegion(64 * 1024, Access.LOCAL_WRITE);
                Race race = new Race(2563);
                for (int round = 0; round < rounds(); round++) {
                    QueuePair qp = rts(ctx, pd, cq);
                    race.run(sends(qp, mr), qp::destroy);
                }
                int flushed = 0;
                WorkCompletion[] wcs = CompletionQueue.array(256);
                for (int n; (n = cq.await(wcs, 1, TimeUnit.MILLISECONDS)) > 0; ) {
                    for (int i = 0; i < n; i++) {
                        assertEquals(WcStatus.WR_FLUSH_ERROR, wcs[i].status(), "only raced posts complete, flushed: " + wcs[i]);
                        flushed++;
                    }
                }
                System.out.printf("post vs QP destroy, %d rounds: %d posts taken, %d raced into the window and flushed, %d refused%n",
                    rounds(), race.taken, flushed, race.refused);
                race.check(ctx);
            }
        });
    }

    /** The QP and at once its CQ: the CQ's destroy is not refused (EBUSY) for a post still on its way. */
    @Test
    void shouldRefuseSendsRacingTheDestroyOfTheirQpAndItsCq() {
        races(2565, (ctx, pd, mr, race) -> {
            CompletionQueue cq = ctx.createCq(256);
            QueuePair qp = rts(ctx, pd, cq);
            race.run(sends(qp, mr), () -> {
                qp.destroy();
                cq.destroy();
            });
        });
    }

    @Test
    void shouldRefuseOrDropReceivesRacingTheirSrqsDestroy() {
        races(2564, (ctx, pd, mr, race) -> {
            SharedReceiveQueue srq = pd.createSrq(64, 1, 0);
            RecvWr r = new RecvWr();
            r.wrId(7).sge().set(mr, 0, 1024);
            race.run(() -> srq.postSrqRecv(r), srq::destroy);
        });
    }

    /** One round of a race: what it makes, posts to and destroys. */
    @FunctionalInterface
    private interface Round {
        void run(Context ctx, ProtectionDomain pd, MemoryRegion mr, Race race) throws InterruptedException;
    }

    /** {@link #rounds()} rounds on a DEDICATED context, then the checks of {@link Race#check}. */
    private void races(long seed, Round round) {
        assertTimeoutPreemptively(Duration.ofSeconds(120), () -> {
            try (ConformanceFabric f = fabric(seed, LinkConfig.DEFAULT); Context ctx = f.open(ThreadingMode.DEDICATED)) {
                ProtectionDomain pd = ctx.allocPd();
                MemoryRegion mr = pd.allocateRegion(64 * 1024, Access.LOCAL_WRITE);
                Race race = new Race(seed);
                for (int i = 0; i < rounds(); i++) {
                    round.run(ctx, pd, mr, race);
                }
                race.check(ctx);
            }
        });
    }

    /** Alternately an INLINE SEND (staged by the provider) and one from the region. */
    private static IntSupplier sends(QueuePair qp, MemoryRegion mr) {
        SendWr inline = new SendWr().wrId(1).opcode(SendWr.OP_SEND).flags(SendWr.INLINE | SendWr.SIGNALED).numSge(1);
        inline.sge(0).set(mr, 0, 32);
        SendWr fromMr = new SendWr().wrId(2).opcode(SendWr.OP_SEND).numSge(1);
        fromMr.sge(0).set(mr, 1024, 2048);
        int[] i = new int[1];
        return () -> qp.postSend(i[0]++ % 2 == 0 ? inline : fromMr);
    }

    /** A poster thread against a destroy on this one, round after round, and what came of it. */
    private final class Race {
        final List<Throwable> unexpected = Collections.synchronizedList(new ArrayList<>());
        final SplittableRandom random;
        int rounds;
        int refused;
        long taken;

        Race(long seed) {
            random = new SplittableRandom(seed);
        }

        /** Posts with {@code post} until it is refused, while this thread runs {@code destroy} after 0..3 posts were taken. */
        void run(IntSupplier post, Runnable destroy) throws InterruptedException {
            AtomicInteger posted = new AtomicInteger();
            boolean[] wasRefused = new boolean[1];
            Thread poster = new Thread(() -> {
                try {
                    while (true) {
                        if (post.getAsInt() == 0) {
                            posted.incrementAndGet();
                        }
                    }
                } catch (VerbsException destroyed) {
                    wasRefused[0] = true; // the destroy came first: refused, said in words
                } catch (Throwable t) {
                    unexpected.add(t);
                }
            }, "poster");
            poster.start();
            int after = random.nextInt(4);
            while (posted.get() < after && poster.isAlive()) {
                Thread.onSpinWait();
            }
            destroy.run();
            poster.join(10_000);
            assertTrue(!poster.isAlive(), "a post hung");
            rounds++;
            refused += wasRefused[0] ? 1 : 0;
            taken += posted.get();
        }

        void check(Context ctx) {
            assertEquals(List.of(), unexpected, "nothing but a VerbsException out of a post");
            assertEquals(rounds, refused, "every poster was refused once what it posted to was destroyed");
            assertNull(driverFault(ctx), "nothing thrown on the driver's thread");
            assertNotNull(ctx.allocPd(), "the context still answers");
        }
    }

    /**
     * An RC QP in RTS on {@code cq}, connected to a peer that is not there (nothing it sends arrives
     * anywhere); its local ACK timeout infinite, so that none of its sends fails RETRY_EXCEEDED meanwhile.
     */
    private static QueuePair rts(Context ctx, ProtectionDomain pd, CompletionQueue cq) {
        QueuePair qp = pd.createQueuePair(QpInitAttributes.builder(QpType.RC).cq(cq).maxSendWr(64).maxRecvWr(4).maxInlineData(64).build());
        var ah = pd.createAddressHandle(0x02_00_00_00_00_42L, 0x0A00_0042, ctx.udpPort());
        qp.modify(new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(0));
        qp.modify(new QpAttributes().state(QpState.RTR).addressHandle(ah.handle()).pathMtu(1024).destQpn(0x42).rqPsn(0)
            .maxDestRdAtomic(0).minRnrTimer(1));
        qp.modify(new QpAttributes().state(QpState.RTS).sqPsn(0).timeout(0).retryCnt(7).rnrRetry(7).maxRdAtomic(0));
        ah.destroy();
        return qp;
    }
}
