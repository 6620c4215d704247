package io.srdnic.dataplane;

import io.srdnic.pmd.lcore.HandoffCounts;
import io.srdnic.srd.counters.CountersLayout;
import io.srdnic.srd.counters.CountersWriter;
import io.srdnic.srd.counters.DutyCycleCounters;
import java.nio.file.Path;

/**
 * One lcore's counters file in the dataplane's directory ({@code <pid>-lcore-<k>.counters}, scope
 * {@code dataplane=lcore,lcore=k}), read by {@code srdnic stat}: its loop's duty cycles (mean and
 * longest loop) and its share of the software hand-off — frames passed to and taken from other
 * lcores, frames dropped because a ring was full or no context owned their address, and the
 * fullest a hand-off ring was found in the last interval. Counted in plain fields by the lcore,
 * copied here every {@link #INTERVAL_NANOS} on the lcore: nothing per frame.
 */
final class LcoreCounters implements AutoCloseable {
    static final long INTERVAL_NANOS = 10_000_000L;
    static final String[] NAMES = {"handoff_frames_out", "handoff_frames_in", "handoff_ring_full_drops", "no_owner_drops",
        "handoff_ring_occupancy_max"};

    private final CountersWriter writer;
    private final DutyCycleCounters loop;
    private final HandoffCounts counts;
    private final int[] ids = new int[NAMES.length];
    private long lastExport = Long.MIN_VALUE;

    LcoreCounters(Path dir, int lcore, HandoffCounts counts) {
        this.counts = counts;
        String scope = "dataplane=lcore,lcore=" + lcore;
        writer = CountersWriter.create(dir.resolve(ProcessHandle.current().pid() + "-lcore-" + lcore + CountersLayout.FILE_SUFFIX),
            "srdnic dataplane lcore " + lcore, 64);
        for (int i = 0; i < NAMES.length; i++) {
            int type = i == NAMES.length - 1 ? CountersLayout.GAUGE : CountersLayout.COUNTER;
            ids[i] = writer.allocate(type, scope + " " + NAMES[i], i);
        }
        loop = new DutyCycleCounters(writer, scope);
    }

    /** One loop of the lcore at {@code now}, which did {@code work}; exports at the interval. */
    void onLoop(long now, int work) {
        loop.onCycle(now, work);
        if (lastExport == Long.MIN_VALUE || now - lastExport >= INTERVAL_NANOS) {
            export(now);
        }
    }

    private void export(long now) {
        lastExport = now;
        writer.set(ids[0], counts.framesOut());
        writer.set(ids[1], counts.framesIn());
        writer.set(ids[2], counts.ringFullDrops());
        writer.set(ids[3], counts.noOwnerDrops());
        writer.set(ids[4], counts.takeOccupancyMax());
        loop.export(now);
        writer.heartbeat(System.currentTimeMillis());
    }

    /** The final counts, then the file is marked closed; on the lcore, after its last loop. */
    @Override
    public void close() {
        export(System.nanoTime());
        writer.close();
    }
}
