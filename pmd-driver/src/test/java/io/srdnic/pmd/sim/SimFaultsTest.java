package io.srdnic.pmd.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.MbufBatch;
import java.lang.foreign.Arena;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Faults are put on the fabric path (crossed once) and the access links are left clean, so each
 * frame meets a fault with exactly the configured probability. Counts are checked against the
 * binomial mean within 5 standard deviations: wrong by design fails, right by design passes.
 */
class SimFaultsTest {
    static {
        SimFrames.forbidNativeDpdk();
    }

    static final long MAC_A = 0x02_00_00_00_00_0AL;
    static final long MAC_B = 0x02_00_00_00_00_0BL;
    static final int FRAMES = 20_000;
    static final int ROUND = 1_000;
    static final double SIGMAS = 5;

    private final Arena arena = Arena.ofConfined();
    private final MbufBatch batch = new MbufBatch(arena, ROUND);
    private SimNetwork network;

    @AfterEach
    void tearDown() {
        if (network != null) {
            assertEquals(0, network.pool().inUse(), "leaked buffers");
            network.close();
        }
        arena.close();
    }

    private SimPort[] network(long seed, LinkConfig fabricPath) {
        network = new SimNetwork(seed, SimNetwork.Config.builder().fabricPath(fabricPath).build());
        return new SimPort[] {network.addHost(MAC_A), network.addHost(MAC_B)};
    }

    /** Sends {@link #FRAMES} frames A to B in rounds, draining after each; returns per-sequence receive counts. */
    private int[] sendAll(SimPort a, int length, SimFrames.FrameHandler handler) {
        int[] received = new int[FRAMES];
        for (int first = 0; first < FRAMES; first += ROUND) {
            SimFrames.send(a, batch, MAC_B, 7, length, first, ROUND);
            SimFrames.runUntilIdle(network, batch, (port, frame, now) -> {
                int sequence = SimFrames.sequence(frame);
                if (sequence >= 0 && sequence < FRAMES) { // a corrupted sequence number is not counted
                    received[sequence]++;
                }
                handler.onFrame(port, frame, now);
            });
        }
        return received;
    }

    @Test
    void shouldDropAboutPPercentWhenLossIsP() {
        double p = 0.1;
        SimPort[] hosts = network(1, LinkConfig.builder().lossProbability(p).build());
        int[] received = sendAll(hosts[0], 64, (port, frame, now) -> { });
        int delivered = 0;
        for (int count : received) {
            assertTrue(count <= 1, "loss must not duplicate");
            delivered += count;
        }
        long lost = hosts[0].counters().lost();
        assertEquals(FRAMES, delivered + lost, "every frame is either delivered or counted lost");
        assertEquals(delivered, hosts[1].counters().rxFrames());
        assertEquals(FRAMES, hosts[0].counters().txFrames());
        assertTrue(Math.abs(lost - FRAMES * p) <= SimFrames.binomialTolerance(FRAMES, p, SIGMAS), "lost " + lost);
    }

    @Test
    void shouldApplyAccessLinkLossOnTheUplinkAsOnTheDownlink() {
        double p = 0.05;
        network = new SimNetwork(2, SimNetwork.Config.builder().accessLink(LinkConfig.builder().lossProbability(p).build()).build());
        SimPort a = network.addHost(MAC_A);
        network.addHost(MAC_B);
        int[] received = sendAll(a, 64, (port, frame, now) -> { });
        int delivered = 0;
        for (int count : received) {
            delivered += count;
        }
        double dropped = 1 - (1 - p) * (1 - p);
        assertEquals(FRAMES - delivered, a.counters().lost());
        assertTrue(Math.abs(FRAMES - delivered - FRAMES * dropped) <= SimFrames.binomialTolerance(FRAMES, dropped, SIGMAS),
            "lost " + (FRAMES - delivered));
    }

    @Test
    void shouldDuplicateAboutPPercentWhenDupIsP() {
        double p = 0.05;
        SimPort[] hosts = network(3, LinkConfig.builder().duplicateProbability(p).build());
        int[] received = sendAll(hosts[0], 64, (port, frame, now) -> { });
        int twice = 0;
        for (int count : received) {
            assertTrue(count == 1 || count == 2, "each frame arrives once, or once more as a duplicate");
            twice += count - 1;
        }
        assertEquals(twice, hosts[0].counters().duplicates());
        assertEquals(FRAMES + twice, hosts[1].counters().rxFrames());
        assertTrue(Math.abs(twice - FRAMES * p) <= SimFrames.binomialTolerance(FRAMES, p, SIGMAS), "duplicated " + twice);
    }

    @Test
    void shouldReorderAboutPPercentWhenReorderIsP() {
        double p = 0.02;
        SimPort[] hosts = network(4, LinkConfig.builder().reorderProbability(p).build());
        int[] highest = {-1};
        int[] late = {0};
        // 64-byte frames leave ~5 ns apart; a held-back frame (up to 10 us) is overtaken unless its extra delay is tiny.
        int[] received = sendAll(hosts[0], 64, (port, frame, now) -> {
            int sequence = SimFrames.sequence(frame);
            if (sequence < highest[0]) {
                late[0]++;
            }
            highest[0] = Math.max(highest[0], sequence);
        });
        for (int count : received) {
            assertEquals(1, count);
        }
        long reordered = hosts[0].counters().reordered();
        assertTrue(Math.abs(reordered - FRAMES * p) <= SimFrames.binomialTolerance(FRAMES, p, SIGMAS), "reordered " + reordered);
        assertTrue(late[0] <= reordered, "only held-back frames arrive late: " + late[0] + " > " + reordered);
        assertTrue(late[0] >= 0.95 * reordered, "held-back frames must be overtaken: " + late[0] + " of " + reordered);
    }

    @Test
    void shouldKeepOrderWhenReorderIsZero() {
        SimPort[] hosts = network(4, LinkConfig.DEFAULT);
        int[] highest = {-1};
        sendAll(hosts[0], 64, (port, frame, now) -> {
            int sequence = SimFrames.sequence(frame);
            assertTrue(sequence > highest[0], "out of order without reordering");
            highest[0] = sequence;
        });
        assertEquals(0, hosts[0].counters().reordered());
    }

    @Test
    void shouldFlipExactlyOneBitBeyondTheEthernetHeaderInCorruptedFramesOnly() {
        double p = 0.1;
        int length = 100;
        SimPort[] hosts = network(5, LinkConfig.builder().corruptProbability(p).build());
        int[] arrivals = {0};
        int[] corrupted = {0};
        sendAll(hosts[0], length, (port, frame, now) -> {
            // No reordering: the n-th arrival is the n-th frame sent, whatever its bytes now say.
            int sequence = arrivals[0]++;
            byte[] expected = SimFrames.expectedUdp(MAC_B, MAC_A, 7, length, sequence);
            byte[] actual = SimFrames.bytes(frame);
            int bits = 0;
            for (int i = 0; i < length; i++) {
                int diff = Integer.bitCount((expected[i] ^ actual[i]) & 0xFF);
                assertTrue(diff == 0 || i >= SimFrames.ETHERNET, "corrupted Ethernet header byte " + i);
                bits += diff;
            }
            assertTrue(bits <= 1, "frame " + sequence + " has " + bits + " flipped bits");
            corrupted[0] += bits;
        });
        assertEquals(FRAMES, arrivals[0]);
        assertEquals(corrupted[0], hosts[0].counters().corrupted());
        assertTrue(Math.abs(corrupted[0] - FRAMES * p) <= SimFrames.binomialTolerance(FRAMES, p, SIGMAS), "corrupted " + corrupted[0]);
    }

    @Test
    void shouldKeepEachDelayWithinTheJitterAboveTheBase() {
        long jitter = 5_000;
        int frames = 5_000;
        int length = 1000;
        SimPort[] hosts = network(6, LinkConfig.builder().jitterNanos(jitter).build());
        LinkConfig link = LinkConfig.DEFAULT;
        long base = 3 * (length * 8L * 1_000_000_000L / link.bitsPerSecond() + link.delayNanos());
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        double sum = 0;
        long[] arrival = {-1};
        // One frame at a time, so no frame queues behind another: its delay is serialization, propagation and jitter.
        for (int i = 0; i < frames; i++) {
            long start = network.clock().now();
            SimFrames.send(hosts[0], batch, MAC_B, 7, length, i, 1);
            SimFrames.runUntilIdle(network, batch, (port, frame, now) -> arrival[0] = now);
            long delay = arrival[0] - start;
            min = Math.min(min, delay);
            max = Math.max(max, delay);
            sum += delay;
        }
        assertEquals(frames, hosts[1].counters().rxFrames());
        assertTrue(min >= base, "delay " + min + " below base " + base);
        assertTrue(max <= base + jitter, "delay " + max + " above base + jitter " + (base + jitter));
        assertTrue(min < base + jitter / 20 && max > base + jitter - jitter / 20, "jitter must spread: " + min + ".." + max);
        double mean = sum / frames;
        double sigmaOfMean = jitter / Math.sqrt(12.0 * frames);
        assertTrue(Math.abs(mean - (base + jitter / 2.0)) <= SIGMAS * sigmaOfMean, "mean delay " + mean);
    }
}
