package io.srdnic.bench;

import io.srdnic.dataplane.ClientsDuty;
import io.srdnic.dataplane.attach.AllowRule;
import io.srdnic.dataplane.attach.AttachServer;
import io.srdnic.pmd.Affinity;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.verbs.Access;
import io.srdnic.verbs.CompletionQueue;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.ContextConfig;
import io.srdnic.verbs.Device;
import io.srdnic.verbs.MemoryRegion;
import io.srdnic.verbs.ProtectionDomain;
import io.srdnic.verbs.QpInitAttributes;
import io.srdnic.verbs.QueuePair;
import io.srdnic.verbs.RecvWr;
import io.srdnic.verbs.SendWr;
import io.srdnic.verbs.WorkCompletion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.IdleStrategy;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Attached against embedded on one link, in one JVM, with a core for every spinning thread: a 64 B
 * SRD ping-pong (A sends to B, B answers, A receives) between two applications over a real net_ring
 * pair. {@code embedded}: both contexts INVOKER on the benchmark thread, which does everything.
 * {@code attached}: an {@link AttachServer} over the same two contexts runs on a dataplane thread
 * of its own (pinned to the other CPU, spinning, as {@code srdnic dataplane --busy-spin}), and the
 * benchmark thread is both applications, posting into and polling the shared-memory rings — each
 * round trip crosses between the threads four times (A's post, B's receive, B's post, A's receive).
 * Two busy threads on this 2-core machine, where the two-process {@code perf --attach} needs four
 * (two dataplanes, two applications) and so measures the scheduler. The ratio of the two modes is
 * what attaching costs a round trip: the rings, the hops between cores, and the dataplane's loop.
 * {@code crossings}: those four hops between the two cores alone (an 8-byte echo each, {@link
 * CoreEcho}), the floor no attached path on these cores gets under. {@code inline}: attached, with
 * the dataplane's pass run on the benchmark thread itself between the applications' steps — the
 * attach path's work (rings, served objects, pass scans) without any hop between cores, so that
 * {@code inline - embedded} is that work and {@code attached - inline} the hops and the waits for
 * them; its tear-down prints the passes a round trip took (a count the machine's load does not change).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
@State(Scope.Thread)
public class AttachedRoundTripBench {
    static final int QKEY = 0x77;
    static final int SIZE = 64;

    @Param({"embedded", "attached", "inline", "crossings"})
    String mode;

    /** The dataplane thread's CPU (attached); the benchmark thread is pinned to the other one. */
    @Param({"1"})
    int dataplaneCpu;

    private ContextPair embedded;
    private AttachedDataplane dataplane;
    private InlineDataplane inline;
    private long roundTrips;
    private CoreEcho echo;
    private Context a;
    private Context b;
    private QueuePair qa;
    private QueuePair qb;
    private CompletionQueue cqa;
    private CompletionQueue cqb;
    private final SendWr toB = new SendWr();
    private final SendWr toA = new SendWr();
    private final RecvWr recvA = new RecvWr();
    private final RecvWr recvB = new RecvWr();
    private final WorkCompletion[] wcs = CompletionQueue.array(16);

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        Affinity.pinCurrentThread(1 - dataplaneCpu);
        if (mode.equals("crossings")) {
            echo = CoreEcho.start(dataplaneCpu);
            return;
        }
        if (mode.equals("embedded")) {
            embedded = ContextPair.open("ring");
            a = embedded.a;
            b = embedded.b;
            setUpApplications();
        } else if (mode.equals("inline")) {
            inline = new InlineDataplane(); // on this thread, which runs it; the applications' control calls need its passes meanwhile
            inline.runWhile(CompletableFuture.runAsync(() -> {
                a = Context.open(Device.attached(inline.dir), attached(0));
                b = Context.open(Device.attached(inline.dir), attached(1));
                setUpApplications();
            }));
        } else {
            dataplane = AttachedDataplane.start(dataplaneCpu);
            a = Context.open(Device.attached(dataplane.dir), attached(0));
            b = Context.open(Device.attached(dataplane.dir), attached(1));
            setUpApplications();
        }
    }

    /** A's and B's PD, CQ, QP (to RTS), region, first receive and reusable send. */
    private void setUpApplications() {
        ProtectionDomain pda = a.allocPd();
        ProtectionDomain pdb = b.allocPd();
        cqa = a.createCq(64);
        cqb = b.createCq(64);
        qa = pda.createQueuePair(QpInitAttributes.builder(QpType.SRD).cq(cqa).maxSendWr(16).maxRecvWr(16).build());
        qb = pdb.createQueuePair(QpInitAttributes.builder(QpType.SRD).cq(cqb).maxSendWr(16).maxRecvWr(16).build());
        // allocateRegion: pool memory attached (the dataplane must reach it), arena memory embedded.
        MemoryRegion mra = pda.allocateRegion(2 * SIZE, Access.LOCAL_WRITE);
        MemoryRegion mrb = pdb.allocateRegion(2 * SIZE, Access.LOCAL_WRITE);
        for (QueuePair qp : new QueuePair[] {qa, qb}) {
            qp.modify(QpState.INIT, QKEY);
            qp.modify(QpState.RTR, 0);
            qp.modify(QpState.RTS, 0);
        }
        recvA.wrId(1).sge().set(mra, SIZE, SIZE);
        recvB.wrId(1).sge().set(mrb, SIZE, SIZE);
        qa.postRecv(recvA);
        qb.postRecv(recvB);
        // Unsignaled sends, as perf's latency run: only the receives complete.
        toB.wrId(2).flags(0).destination(pda.createAddressHandle(b.mac(), b.ip(), b.udpPort()), qb.qpNum(), QKEY).numSge(1)
            .sge(0).set(mra, 0, SIZE);
        toA.wrId(3).flags(0).destination(pdb.createAddressHandle(a.mac(), a.ip(), a.udpPort()), qa.qpNum(), QKEY).numSge(1)
            .sge(0).set(mrb, 0, SIZE);
    }

    private static ContextConfig attached(int port) {
        return new ContextConfig().attachedPort(port).attachedPoolBytes(1 << 20).attachedRingBytes(1 << 20);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        if (echo != null) {
            echo.close();
        } else if (embedded != null) {
            System.out.printf("embedded: %s%n", cpuPerRoundTrip(200_000));
            embedded.close();
        } else if (inline != null) {
            System.out.printf("inline: %.2f dataplane passes per round trip (%d round trips); an idle pass %s; %s%n",
                (double) inline.passes / roundTrips, roundTrips, inline.idlePasses(1_000_000), stages(200_000));
            inline.runWhile(CompletableFuture.runAsync(() -> {
                a.close();
                b.close();
            }));
            inline.close();
        } else {
            a.close();
            b.close();
            dataplane.close();
        }
    }

    /**
     * {@code inline}: {@code n} more round trips with the dataplane's passes timed one by one, split
     * into the passes that carried a record (A's send, B's completion, B's send, A's completion)
     * and those that found nothing new: "ns in passes / ns in the applications' steps per round
     * trip" (the clock reads, ~25 ns each, add to the pass figure, which is why this is not the benchmark).
     */
    private String stages(int n) {
        String cpu = cpuPerRoundTrip(n);
        inline.timed = true;
        inline.passNanos = 0;
        long passes = inline.passes;
        long start = System.nanoTime();
        for (int i = 0; i < n; i++) {
            pingPong();
        }
        long total = System.nanoTime() - start;
        inline.timed = false;
        return String.format("%s; timed: %d ns a round trip, %d ns of it in %.2f passes, %d ns the applications' steps", cpu, total / n,
            inline.passNanos / n, (double) (inline.passes - passes) / n, (total - inline.passNanos) / n);
    }

    /**
     * {@code n} more round trips on this thread (embedded, inline: it does all the work), timed by
     * the thread's CPU time: what a round trip costs whatever else the machine runs (the wall
     * clock counts the time the thread waits for a CPU; this does not).
     */
    private String cpuPerRoundTrip(int n) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long start = threads.getCurrentThreadCpuTime();
        for (int i = 0; i < n; i++) {
            pingPong();
        }
        return String.format("cpu %d ns a round trip", (threads.getCurrentThreadCpuTime() - start) / n);
    }

    @Benchmark
    public int pingPong() {
        if (echo != null) {
            echo.roundTrip(); // A's post reaches the dataplane, which answers: B's receive
            echo.roundTrip(); // B's post, and A's receive
            return 1;
        }
        post(qa, toB);
        awaitReceive(cqb, qb, recvB);
        post(qb, toA);
        awaitReceive(cqa, qa, recvA);
        roundTrips++;
        return 1;
    }

    private static void post(QueuePair qp, SendWr wr) {
        int rc = qp.postSend(wr);
        if (rc != 0) {
            throw new IllegalStateException("postSend refused: " + rc);
        }
    }

    /** Polls {@code cq} until a receive completes (embedded, each poll also runs the other context), then posts the next. */
    private void awaitReceive(CompletionQueue cq, QueuePair qp, RecvWr recv) {
        CompletionQueue other = cq == cqa ? cqb : cqa;
        while (true) {
            int n = cq.poll(wcs);
            if (n > 0) {
                if (!wcs[0].ok()) {
                    throw new IllegalStateException("a completion failed: " + wcs[0].statusName());
                }
                if (qp.postRecv(recv) != 0) {
                    throw new IllegalStateException("postRecv refused");
                }
                return;
            }
            if (embedded != null) {
                other.poll(wcs, 0); // the peer's context runs its duty cycle only when polled (INVOKER)
            } else if (inline != null) {
                inline.pass(); // the dataplane's pass, on this thread
            }
        }
    }

    /**
     * The floor under {@code attached}: its four crossings between the cores with nothing else,
     * one 8-byte store and an echo of it per crossing, the same release stores and acquire loads
     * the shared rings use. Whatever {@code attached} costs above {@code embedded} plus this is the
     * attach path's own work.
     */
    static final class CoreEcho implements AutoCloseable {
        private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
        private static final long PING = 0;
        private static final long PONG = 128; // another cache line (and its neighbour, for the prefetcher)
        private final MemorySegment lines = Arena.ofAuto().allocate(256, 128);
        private final Thread thread;
        private long seq;

        private CoreEcho(int cpu) {
            thread = new Thread(() -> {
                Affinity.pinCurrentThread(cpu);
                long seen = 0;
                while (true) {
                    long v = (long) LONG.getAcquire(lines, PING);
                    if (v < 0) {
                        return;
                    }
                    if (v != seen) {
                        seen = v;
                        LONG.setRelease(lines, PONG, v);
                    } else {
                        Thread.onSpinWait();
                    }
                }
            }, "bench-echo");
            thread.setDaemon(true);
        }

        static CoreEcho start(int cpu) {
            CoreEcho e = new CoreEcho(cpu);
            e.thread.start();
            return e;
        }

        void roundTrip() {
            long v = ++seq;
            LONG.setRelease(lines, PING, v);
            while ((long) LONG.getAcquire(lines, PONG) != v) {
                Thread.onSpinWait();
            }
        }

        @Override
        public void close() throws InterruptedException {
            LONG.setRelease(lines, PING, -1L);
            thread.join(10_000);
        }
    }

    /**
     * The dataplane of {@code inline}: EAL, the net_ring pair, its contexts and the attach server,
     * made on and run by the benchmark thread, one pass per {@link #pass} (the client duty, as the
     * lcore runs it). Counts its passes.
     */
    static final class InlineDataplane implements AutoCloseable {
        final Path dir;
        private final ContextPair ring;
        private final AttachServer server;
        private final CachedNanoClock clock = new CachedNanoClock();
        private final ClientsDuty clients;
        long passes;
        /** While set, each pass is timed into {@link #passNanos}. */
        boolean timed;
        long passNanos;

        InlineDataplane() throws Exception {
            dir = Files.createTempDirectory("srdnic-bench-inline");
            Files.writeString(dir.resolve("owner"), "bench");
            ring = ContextPair.open("ring");
            server = new AttachServer(dir, List.of(ring.a, ring.b), AllowRule.ownUidOrRoot(), dir);
            clients = new ClientsDuty(server, clock);
        }

        void pass() {
            long start = System.nanoTime();
            clock.update(start);
            clients.doWork();
            passes++;
            if (timed) {
                passNanos += System.nanoTime() - start;
            }
        }

        /**
         * {@code n} passes with nothing to do, each timed: "p50 / mean / max ns". The median is a
         * pass of the rings and the ports' cycles; the mean adds the control turn every 50 µs
         * (CM polls, events, the control socket's poll), the max is about one such turn.
         */
        String idlePasses(int n) {
            long[] took = new long[n];
            long total = 0;
            for (int i = 0; i < n; i++) {
                long start = System.nanoTime();
                pass();
                took[i] = System.nanoTime() - start;
                total += took[i];
            }
            Arrays.sort(took);
            return String.format("p50 %d / mean %.1f / p99.9 %d ns", took[n / 2], total / (double) n, took[n - n / 1000]);
        }

        /** Runs passes until {@code other} (another thread's control calls, which need them) is done. */
        void runWhile(CompletableFuture<Void> other) {
            while (!other.isDone()) {
                pass();
            }
            other.join();
        }

        @Override
        public void close() throws Exception {
            server.close();
            ring.close();
            try (var files = Files.list(dir)) {
                for (Path f : files.toList()) {
                    Files.deleteIfExists(f);
                }
            }
            Files.deleteIfExists(dir);
        }
    }

    /**
     * {@code srdnic dataplane} in miniature: EAL, a net_ring pair, a context per end (INVOKER) and
     * the attach server, all on one spinning thread.
     */
    static final class AttachedDataplane implements AutoCloseable {
        final Path dir;
        private final Thread loop;
        private volatile boolean running = true;

        private AttachedDataplane(Path dir, int cpu, CompletableFuture<Void> ready) {
            this.dir = dir;
            this.loop = new Thread(() -> run(cpu, ready), "bench-dataplane");
        }

        static AttachedDataplane start(int cpu) throws Exception {
            Path dir = Files.createTempDirectory("srdnic-bench-attach");
            CompletableFuture<Void> ready = new CompletableFuture<>();
            AttachedDataplane d = new AttachedDataplane(dir, cpu, ready);
            d.loop.setDaemon(true);
            d.loop.start();
            ready.get(30, TimeUnit.SECONDS);
            return d;
        }

        private void run(int cpu, CompletableFuture<Void> ready) {
            Affinity.pinCurrentThread(cpu);
            Path owner = dir.resolve("owner");
            // The same ring pair and contexts as the embedded mode's, made on this thread, which runs them.
            try (ContextPair ring = ContextPair.open("ring")) {
                Files.writeString(owner, "bench");
                AttachServer server = new AttachServer(dir, List.of(ring.a, ring.b), AllowRule.ownUidOrRoot(), dir);
                ready.complete(null);
                // The lcore's client duty and the --idle spin strategy, as srdnic dataplane --busy-spin runs them.
                CachedNanoClock clock = new CachedNanoClock();
                ClientsDuty clients = new ClientsDuty(server, clock);
                IdleStrategy spin = new BusySpinIdleStrategy();
                while (running) {
                    clock.update(System.nanoTime());
                    spin.idle(clients.doWork());
                }
                server.close();
            } catch (Throwable t) {
                ready.completeExceptionally(t);
            }
        }

        @Override
        public void close() throws Exception {
            running = false;
            loop.join(10_000);
            try (var files = Files.list(dir)) {
                for (Path f : files.toList()) {
                    Files.deleteIfExists(f);
                }
            }
            Files.deleteIfExists(dir);
        }
    }
}
