package io.srdnic.cli.demo;

import io.srdnic.pmd.Eal;
import io.srdnic.pmd.EalConfig;
import io.srdnic.pmd.EthPacketIo;
import io.srdnic.pmd.MbufPool;
import io.srdnic.pmd.PortConfig;
import io.srdnic.pmd.RingLink;
import io.srdnic.pmd.fault.FaultInjectingPacketIo;
import io.srdnic.srd.api.WcOpcode;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.ContextConfig;
import io.srdnic.verbs.Device;
import io.srdnic.verbs.WorkCompletion;
import java.lang.foreign.Arena;
import java.util.BitSet;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * The README's main job: two SRD hosts on a net_ring pair in this process, driven by one thread
 * (INVOKER contexts): a ping-pong, a bandwidth run, then a run with 10% of frames dropped in each
 * direction, showing that every message arrives exactly once and what repaired the losses; then,
 * on the same contexts, {@link RcRdmaDemo}: an RC transfer and RDMA WRITE and READ, verified.
 */
public final class SrdDemo {
    private final DemoEndpoint a;
    private final DemoEndpoint b;

    private SrdDemo(DemoEndpoint a, DemoEndpoint b) {
        this.a = a;
        this.b = b;
    }

    /** Runs the demo; returns 0 when every check passed. */
    public static int run(int pingPongs, int bandwidthMessages, int lossyMessages) {
        try (Eal eal = Eal.startOrGet(new EalConfig());
             Arena arena = Arena.ofShared();
             RingLink link = RingLink.create(1024);
             MbufPool pool = MbufPool.create("demo", 16383, 4096 + 256)) {
            link.a().configure(PortConfig.DEFAULT, pool).start();
            link.b().configure(PortConfig.DEFAULT, pool).start();
            FaultInjectingPacketIo wireA = new FaultInjectingPacketIo(new EthPacketIo(link.a(), 0, pool), 0, 1);
            FaultInjectingPacketIo wireB = new FaultInjectingPacketIo(new EthPacketIo(link.b(), 0, pool), 0, 2);
            try (DemoEndpoint a = new DemoEndpoint(Context.open(Device.of("ring-a", wireA, System::nanoTime), new ContextConfig()
                    .ip(0x0A000001)), wireA, arena);
                 DemoEndpoint b = new DemoEndpoint(Context.open(Device.of("ring-b", wireB, System::nanoTime), new ContextConfig()
                         .ip(0x0A000002)), wireB, arena)) {
                a.connect(b);
                b.connect(a);
                System.out.printf("srdnic demo: two SRD hosts 10.0.0.1 and 10.0.0.2 on a net_ring pair, SRD MTU %d bytes%n",
                        a.context.mtu());
                SrdDemo demo = new SrdDemo(a, b);
                boolean ok = demo.pingPong(pingPongs, 64) & demo.bandwidth(bandwidthMessages, 4096) & demo.lossy(lossyMessages, 1024, 0.1);
                ok &= new RcRdmaDemo(a, b, arena).run();
                System.out.println(ok ? "demo: every message arrived exactly once, RC in order, every RDMA byte verified"
                        : "demo: FAILED (see above)");
                return ok ? 0 : 1;
            }
        }
    }

    private void progress() {
        a.context.progress();
        b.context.progress();
    }

    private boolean pingPong(int iterations, int size) {
        // Warm up for a second first (the JIT compiles the path meanwhile): a cold JVM's first
        // round trips time the compiler, not the transport.
        long warmupEnd = System.nanoTime() + 1_000_000_000L;
        int warmup = 0;
        while (System.nanoTime() < warmupEnd) {
            roundTrip(warmup++, size);
        }
        Histogram rtt = new Histogram(3);
        for (int i = 0; i < iterations; i++) {
            rtt.recordValue(roundTrip(i, size));
        }
        System.out.printf(Locale.ROOT, "ping-pong: %d round trips of %d-byte messages (after %d in 1 s of warm-up), one thread"
                + " driving both hosts: p50 %.1f us, p99 %.1f us, max %.1f us%n",
            iterations, size, warmup, rtt.getValueAtPercentile(50) / 1e3, rtt.getValueAtPercentile(99) / 1e3, rtt.getMaxValue() / 1e3);
        return rtt.getTotalCount() == iterations;
    }

    /** A to B and back; returns the nanoseconds it took. */
    private long roundTrip(int i, int size) {
        long start = System.nanoTime();
        while (!a.send(i, size, i)) {
            progress();
        }
        long slot = awaitReceive(b);
        b.repost(slot);
        while (!b.send(i, size, i)) {
            progress();
        }
        slot = awaitReceive(a);
        a.repost(slot);
        return System.nanoTime() - start;
    }

    /** Waits for one receive at {@code side} (reaping send completions on the way); returns its slot. */
    private long awaitReceive(DemoEndpoint side) {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (System.nanoTime() < deadline) {
            progress();
            int n = side.cq.poll(side.wcs);
            long slot = -1;
            for (int i = 0; i < n; i++) {
                WorkCompletion wc = side.wcs[i];
                if (!wc.ok()) {
                    throw new IllegalStateException("completion failed: " + wc);
                }
                if (wc.opcode() != WcOpcode.SEND) {
                    slot = wc.wrId();
                }
            }
            if (slot >= 0) {
                return slot;
            }
        }
        throw new IllegalStateException("no message within 5 s");
    }

    private boolean bandwidth(int messages, int size) {
        Counts c = stream(messages, size);
        double seconds = c.nanos / 1e9;
        System.out.printf(Locale.ROOT, "bandwidth: %d messages of %d bytes in %.3f s: %.0f messages/s, %.2f Gbit/s of payload%n",
            messages, size, seconds, messages / seconds, messages * (double) size * 8 / seconds / 1e9);
        return c.check(messages);
    }

    private boolean lossy(int messages, int size, double loss) {
        long retransmitsBefore = a.context.counters().get("tx_retransmits");
        a.faults.lossProbability(loss);
        b.faults.lossProbability(loss);
        Counts c = stream(messages, size);
        a.faults.lossProbability(0);
        b.faults.lossProbability(0);
        long retransmits = a.context.counters().get("tx_retransmits") - retransmitsBefore;
        System.out.printf(Locale.ROOT, "loss: %d messages with %.0f%% of frames dropped each way (%d data and ACK frames dropped):%n",
            messages, loss * 100, a.faults.injectedDrops() + b.faults.injectedDrops());
        System.out.printf(Locale.ROOT,
                "      %d delivered, %d lost, %d duplicated, %d completed with success; %d retransmissions repaired the losses%n",
            c.delivered, messages - c.delivered, c.duplicates, c.succeeded, retransmits);
        return c.check(messages) && retransmits > 0;
    }

    /** What a stream run saw: deliveries (by immediate = sequence), duplicates, successes, time. */
    private static final class Counts {
        long delivered;
        long duplicates;
        long succeeded;
        long failed;
        long nanos;

        boolean check(int messages) {
            return delivered == messages && duplicates == 0 && succeeded == messages && failed == 0;
        }
    }

    private Counts stream(int messages, int size) {
        Counts c = new Counts();
        BitSet seen = new BitSet(messages);
        long start = System.nanoTime();
        long deadline = start + 60_000_000_000L;
        int next = 0;
        while ((c.delivered < messages || c.succeeded + c.failed < messages) && System.nanoTime() < deadline) {
            while (next < messages && a.send(next, size, next)) {
                next++;
            }
            progress();
            int n = a.cq.poll(a.wcs);
            for (int i = 0; i < n; i++) {
                if (a.wcs[i].ok()) {
                    c.succeeded++;
                } else {
                    c.failed++;
                }
            }
            n = b.cq.poll(b.wcs);
            for (int i = 0; i < n; i++) {
                WorkCompletion wc = b.wcs[i];
                if (wc.opcode() == WcOpcode.SEND) {
                    continue; // a late completion of B's own ping-pong reply
                }
                if (seen.get(wc.immediate())) {
                    c.duplicates++;
                } else {
                    seen.set(wc.immediate());
                    c.delivered++;
                }
                b.repost(wc.wrId());
            }
        }
        c.nanos = System.nanoTime() - start;
        return c;
    }
}
