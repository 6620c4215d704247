package io.srdnic.pmd.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.MbufBatch;
import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SimDeterminismTest {
    static {
        SimFrames.forbidNativeDpdk();
    }

    static final long[] MACS = {0x02_00_00_00_00_01L, 0x02_00_00_00_00_02L, 0x02_00_00_00_00_03L};
    static final LinkConfig FAULTY_ACCESS = LinkConfig.builder()
        .bitsPerSecond(25_000_000_000L).queueLimitBytes(64 * 1024).jitterNanos(500)
        .lossProbability(0.01).duplicateProbability(0.01).reorderProbability(0.05).corruptProbability(0.01).build();
    static final LinkConfig FAULTY_PATH = LinkConfig.builder()
        .jitterNanos(300).lossProbability(0.01).reorderProbability(0.02).reorderDelayNanos(3_000).build();

    private final Arena arena = Arena.ofConfined();
    private final MbufBatch batch = new MbufBatch(arena, 64);

    @AfterEach
    void tearDown() {
        arena.close();
    }

    /** A fixed scenario under every kind of fault: the trace of network events and of received contents. */
    private Run run(long seed) {
        SimNetwork.Config config = SimNetwork.Config.builder()
            .accessLink(FAULTY_ACCESS).fabricPath(FAULTY_PATH).pathCount(2).build();
        try (SimNetwork network = new SimNetwork(seed, config)) {
            SimPort[] hosts = new SimPort[MACS.length];
            for (int h = 0; h < hosts.length; h++) {
                hosts[h] = network.addHost(MACS[h]);
            }
            List<String> trace = new ArrayList<>();
            network.trace((time, event, from, to, path, length) ->
                trace.add(time + " " + event + " " + from + ">" + to + " p" + path + " " + length));
            CRC32 crc = new CRC32();
            SimFrames.FrameHandler record = (port, frame, now) -> {
                crc.reset();
                crc.update(SimFrames.bytes(frame));
                trace.add(now + " rx@" + port.id() + " " + Long.toHexString(crc.getValue()));
            };
            for (int step = 0; step < 300; step++) {
                for (int h = 0; h < hosts.length; h++) {
                    long destination = MACS[(h + 1 + step % 2) % MACS.length];
                    int length = 64 + (step * 37 + h * 11) % 1400;
                    SimFrames.send(hosts[h], batch, destination, 1000 + step * 3 + h, length, step * 3 + h, 8);
                }
                network.clock().advanceBy(700);
                for (SimPort host : hosts) {
                    while (host.receive(batch) > 0) {
                        for (int i = 0; i < batch.count(); i++) {
                            record.onFrame(host, batch.get(i), network.clock().now());
                        }
                        host.free(batch);
                    }
                }
            }
            SimFrames.runUntilIdle(network, batch, record);
            assertEquals(0, network.pool().inUse(), "leaked buffers");
            return new Run(trace, network.totals());
        }
    }

    record Run(List<String> trace, SimCounters totals) {
    }

    @Test
    void shouldProduceIdenticalTracesForTheSameSeed() {
        Run first = run(12345);
        Run second = run(12345);
        SimCounters totals = first.totals();
        for (SimEvent event : new SimEvent[] {SimEvent.DROPPED_LOSS, SimEvent.DUPLICATED, SimEvent.REORDERED,
            SimEvent.CORRUPTED, SimEvent.DROPPED_QUEUE_FULL, SimEvent.DELIVERED}) {
            assertTrue(totals.get(event) > 0, "the scenario must exercise " + event + ": " + totals);
        }
        assertEquals(first.trace().size(), second.trace().size());
        for (int i = 0; i < first.trace().size(); i++) {
            assertEquals(first.trace().get(i), second.trace().get(i), "trace differs at event " + i);
        }
        assertEquals(totals.toString(), second.totals().toString());
    }

    @Test
    void shouldProduceADifferentTraceForADifferentSeed() {
        Run first = run(12345);
        Run other = run(54321);
        assertNotEquals(first.trace(), other.trace());
        assertNotEquals(first.totals().toString(), other.totals().toString());
    }
}
