package io.srdnic.srd.fuzz;

import com.sun.management.OperatingSystemMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;

/**
 * Counts the inputs a fuzz target ran and reports them once the run is over, as one line:
 * <pre>
 * FUZZ-SUMMARY ParseFuzzTest mode=fuzzing inputs=12345678 seconds=60.0 inputs/s=205761 cpu_seconds=61.2 jvm_seconds=66.0
 * </pre>
 * printed and appended to {@code target/fuzz-summary.txt}, so a long run of every target ends with
 * one comparable line each. Counted in the target because libFuzzer's own "Done N runs" line goes
 * to the forked JVM's native stderr, which is not always kept. The clock runs from the first input
 * to the last, so JVM start-up and instrumentation are not charged to the target. The CPU time the
 * process spent from the first input to the report says how much of the wall time the target had
 * on a machine shared with other work: inputs / cpu_seconds compares runs made under different load.
 * The JVM's age at the report, against the seconds fuzzed, says what start-up cost the target.
 */
public final class FuzzRun {
    private final String target;
    private long inputs;
    private long firstNanos;
    private long lastNanos;
    private long firstCpuNanos;

    public FuzzRun(String target) {
        this.target = target;
    }

    /** Counts one input; call first thing in the target. */
    public void count() {
        long now = System.nanoTime();
        if (inputs++ == 0) {
            firstNanos = now;
            firstCpuNanos = processCpuNanos();
        }
        lastNanos = now;
    }

    public long inputs() {
        return inputs;
    }

    private static long processCpuNanos() {
        return ManagementFactory.getPlatformMXBean(OperatingSystemMXBean.class).getProcessCpuTime();
    }

    /** Whether Jazzer fuzzes in this JVM (JAZZER_FUZZ set) rather than replaying the inputs directory. */
    public static boolean fuzzing() {
        String v = System.getProperty("JAZZER_FUZZ", System.getenv("JAZZER_FUZZ"));
        return v != null && (v.equals("1") || v.equalsIgnoreCase("true") || v.equalsIgnoreCase("yes"));
    }

    /** Prints the summary line and appends it to target/fuzz-summary.txt; call from an @AfterAll. */
    public void report() {
        double seconds = Math.max(1e-9, (lastNanos - firstNanos) / 1e9);
        double cpuSeconds = (processCpuNanos() - firstCpuNanos) / 1e9;
        double jvmSeconds = ManagementFactory.getRuntimeMXBean().getUptime() / 1e3;
        String line = String.format(Locale.ROOT,
            "FUZZ-SUMMARY %s mode=%s inputs=%d seconds=%.1f inputs/s=%.0f cpu_seconds=%.1f jvm_seconds=%.1f",
            target, fuzzing() ? "fuzzing" : "regression", inputs, seconds, inputs < 2 ? 0.0 : inputs / seconds, cpuSeconds,
            jvmSeconds);
        System.out.println(line);
        try {
            Path dir = Path.of("target");
            if (Files.isDirectory(dir)) {
                Files.writeString(dir.resolve("fuzz-summary.txt"), line + System.lineSeparator(),
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            }
        } catch (IOException e) {
            System.out.println("FUZZ-SUMMARY could not be appended to target/fuzz-summary.txt: " + e);
        }
    }
}
