package io.srdnic.pmd.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.MbufBatch;
import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SimBandwidthTest {
    static {
        SimFrames.forbidNativeDpdk();
    }

    static final long MAC_A = 0x02_00_00_00_00_0AL;
    static final long MAC_B = 0x02_00_00_00_00_0BL;
    static final long MAC_C = 0x02_00_00_00_00_0CL;
    static final long MAC_D = 0x02_00_00_00_00_0DL;
    static final long TEN_GBIT = 10_000_000_000L;
    static final int LENGTH = 1000;
    /** 1000 bytes at 10 Gbit/s. */
    static final long SERIALIZATION = 800;

    private final Arena arena = Arena.ofConfined();
    private final MbufBatch batch = new MbufBatch(arena, 256);
    private SimNetwork network;

    @AfterEach
    void tearDown() {
        if (network != null) {
            assertEquals(0, network.pool().inUse(), "leaked buffers");
            network.close();
        }
        arena.close();
    }

    private void network(LinkConfig access, LinkConfig fabric) {
        network = new SimNetwork(11, SimNetwork.Config.builder().accessLink(access).fabricPath(fabric).build());
    }

    private List<Long> arrivalTimes() {
        List<Long> arrivals = new ArrayList<>();
        SimFrames.runUntilIdle(network, batch, (port, frame, now) -> arrivals.add(now));
        return arrivals;
    }

    @Test
    void shouldSpaceBackToBackFramesBySerializationTime() {
        LinkConfig tenGig = LinkConfig.builder().bitsPerSecond(TEN_GBIT).build();
        network(tenGig, tenGig);
        SimPort a = network.addHost(MAC_A);
        network.addHost(MAC_B);
        int frames = 20;
        assertEquals(frames, SimFrames.send(a, batch, MAC_B, 1, LENGTH, 0, frames));
        List<Long> arrivals = arrivalTimes();
        assertEquals(frames, arrivals.size());
        // Store and forward over three links: the first frame pays serialization and delay on each.
        assertEquals(3 * (SERIALIZATION + tenGig.delayNanos()), arrivals.get(0));
        for (int i = 1; i < frames; i++) {
            assertEquals(SERIALIZATION, arrivals.get(i) - arrivals.get(i - 1), "gap before frame " + i);
        }
    }

    @Test
    void shouldKeepExactRateWhenSerializationIsNotAWholeNumberOfNanoseconds() {
        // 1514 bytes at 100 Gbit/s is 121.12 ns: 1000 frames must take 121120 ns, not 121000 or 122000.
        network(LinkConfig.builder().queueLimitBytes(4L << 20).build(), LinkConfig.builder().bitsPerSecond(1_000_000_000_000L).build());
        SimPort a = network.addHost(MAC_A);
        network.addHost(MAC_B);
        for (int i = 0; i < 1000; i += 200) {
            SimFrames.send(a, batch, MAC_B, 1, 1514, i, 200);
        }
        List<Long> arrivals = arrivalTimes();
        assertEquals(1000, arrivals.size());
        long span = arrivals.get(999) - arrivals.get(0);
        assertTrue(Math.abs(span - 999 * 121.12) <= 1.0, "span " + span);
    }

    @Test
    void shouldDropABurstBeyondTheQueueLimitAsQueueFull() {
        int queued = 10;
        LinkConfig access = LinkConfig.builder().bitsPerSecond(TEN_GBIT).queueLimitBytes((long) queued * LENGTH).build();
        network(access, LinkConfig.DEFAULT);
        SimPort a = network.addHost(MAC_A);
        SimPort b = network.addHost(MAC_B);
        int burst = 50;
        assertEquals(queued, SimFrames.send(a, batch, MAC_B, 1, LENGTH, 0, burst), "the uplink queue holds 10 frames");
        assertEquals(burst - queued, a.txDropped());
        assertEquals(burst - queued, a.counters().queueFull());
        assertEquals(queued, a.counters().txFrames());
        assertEquals(queued, arrivalTimes().size());
        assertEquals(queued, b.counters().rxFrames());

        // Once the queue has drained, it takes a full burst again.
        assertEquals(queued, SimFrames.send(a, batch, MAC_B, 1, LENGTH, 0, queued));
        assertEquals(queued, arrivalTimes().size());
    }

    @Test
    void shouldBoundIncastByTheReceiverDownlinkRate() {
        LinkConfig tenGig = LinkConfig.builder().bitsPerSecond(TEN_GBIT).build();
        network(tenGig, LinkConfig.DEFAULT);
        SimPort[] senders = {network.addHost(MAC_A), network.addHost(MAC_B), network.addHost(MAC_C)};
        SimPort receiver = network.addHost(MAC_D);
        int perSender = 100;
        for (SimPort sender : senders) {
            assertEquals(perSender, SimFrames.send(sender, batch, MAC_D, 1, LENGTH, 0, perSender));
        }
        List<Long> arrivals = arrivalTimes();
        int total = 3 * perSender;
        assertEquals(total, arrivals.size());
        assertEquals(total, receiver.counters().rxFrames());
        for (int i = 1; i < total; i++) {
            assertTrue(arrivals.get(i) - arrivals.get(i - 1) >= SERIALIZATION, "faster than the downlink at frame " + i);
        }
        // 30 Gbit/s offered to a 10 Gbit/s downlink keeps it busy: exactly its rate, no faster, no slower.
        assertEquals((total - 1) * SERIALIZATION, arrivals.get(total - 1) - arrivals.get(0));
    }

    @Test
    void shouldDropIncastExcessAtTheReceiverDownlinkQueue() {
        LinkConfig access = LinkConfig.builder().bitsPerSecond(TEN_GBIT).queueLimitBytes(20L * LENGTH).build();
        network(access, LinkConfig.DEFAULT);
        SimPort[] senders = {network.addHost(MAC_A), network.addHost(MAC_B), network.addHost(MAC_C)};
        SimPort receiver = network.addHost(MAC_D);
        for (SimPort sender : senders) {
            assertEquals(20, SimFrames.send(sender, batch, MAC_D, 1, LENGTH, 0, 20));
        }
        List<Long> arrivals = arrivalTimes();
        SimCounters totals = network.totals();
        assertTrue(totals.queueFull() > 0, "three 10G senders overflow one 10G downlink with a 20-frame queue");
        assertEquals(60, arrivals.size() + totals.queueFull());
        assertEquals(0, senders[0].txDropped() + senders[1].txDropped() + senders[2].txDropped(), "the uplinks were not full");
        assertEquals(arrivals.size(), receiver.counters().rxFrames());
    }
}
