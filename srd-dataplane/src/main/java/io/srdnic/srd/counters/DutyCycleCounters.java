package io.srdnic.srd.counters;

/**
 * What a poll loop's duty cycles look like: how many ran, how many found work, and how long they
 * took — measured from the one clock read each cycle makes anyway (the time from one cycle's start
 * to the next, idle waits included), so counting costs a subtraction and two compares a cycle.
 * {@link #export} publishes them at the writer's pace; the owner of the loop calls both.
 */
public final class DutyCycleCounters {
    private final CountersWriter writer;
    private final int cyclesId;
    private final int busyId;
    private final int meanId;
    private final int longestId;
    private final int longestEverId;

    private long cycles;
    private long busy;
    private long lastStart = Long.MIN_VALUE;
    private long longest;
    private long longestEver;
    private long cyclesAtExport;
    private long exportedAt = Long.MIN_VALUE;

    /** Allocates this loop's counters in {@code writer} under {@code scope} ({@code device=sim-1}, {@code lcore=2}). */
    public DutyCycleCounters(CountersWriter writer, String scope) {
        this.writer = writer;
        String prefix = scope.isEmpty() ? "" : scope + " ";
        cyclesId = writer.allocate(CountersLayout.COUNTER, prefix + "duty_cycles", 0);
        busyId = writer.allocate(CountersLayout.COUNTER, prefix + "duty_cycles_busy", 0);
        meanId = writer.allocate(CountersLayout.GAUGE, prefix + "duty_cycle_ns", 0);
        longestId = writer.allocate(CountersLayout.GAUGE, prefix + "longest_cycle_ns", 0);
        longestEverId = writer.allocate(CountersLayout.GAUGE, prefix + "longest_cycle_ever_ns", 0);
    }

    /** A cycle started at {@code now} (the loop's own clock read) and did {@code work}. */
    public void onCycle(long now, int work) {
        cycles++;
        if (work > 0) {
            busy++;
        }
        if (lastStart != Long.MIN_VALUE) {
            long took = now - lastStart;
            if (took > longest) {
                longest = took;
            }
        }
        lastStart = now;
    }

    /** Publishes the counts; the mean and the longest cycle are over the time since the last export. */
    public void export(long now) {
        writer.set(cyclesId, cycles);
        writer.set(busyId, busy);
        long ran = cycles - cyclesAtExport;
        if (exportedAt != Long.MIN_VALUE && ran > 0) {
            writer.set(meanId, (now - exportedAt) / ran);
        }
        if (longest > longestEver) {
            longestEver = longest;
        }
        writer.set(longestId, longest);
        writer.set(longestEverId, longestEver);
        longest = 0;
        cyclesAtExport = cycles;
        exportedAt = now;
    }

    public long cycles() {
        return cycles;
    }
}
