package io.srdnic.verbs;

import io.srdnic.srd.api.TransportConfig;
import java.nio.file.Path;

/**
 * How a context runs: its threading mode, its IPv4 address (simulated hosts have their own), and
 * the SRD transport's knobs (see docs/configuration.md). Fluent; defaults suit a virtual device.
 */
public final class ContextConfig {
    ThreadingMode mode = ThreadingMode.INVOKER;
    int cpu = -1;
    boolean busySpin;
    int ip = 0x0A00_0001;
    long epochSeed = System.nanoTime();
    final TransportConfig srd = new TransportConfig();
    Path countersDir = defaultCountersDir();
    long countersIntervalNanos = 10_000_000;
    int countersCapacity = 16384;
    int attachedPort;
    long attachedPoolBytes = 64L << 20;
    long attachedRingBytes = 16L << 20;

    /**
     * The directory named by the system property {@code srdnic.counters.dir}, else by the
     * environment variable {@code SRDNIC_COUNTERS_DIR} (what reaches a JVM started by a launcher
     * script), or null: no counters file.
     */
    private static Path defaultCountersDir() {
        String dir = System.getProperty("srdnic.counters.dir", System.getenv("SRDNIC_COUNTERS_DIR"));
        return dir == null || dir.isBlank() ? null : Path.of(dir);
    }

    /**
     * Publishes this context's live counters (the transport's, its SRD contexts' and paths', its
     * QPs', its duty cycle's) in a file in {@code dir} for {@code srdnic stat} and its Prometheus
     * endpoint; null (the default unless {@code -Dsrdnic.counters.dir} or {@code SRDNIC_COUNTERS_DIR} names one):
     * none. The file stays after close, marked closed, with the final counts.
     */
    public ContextConfig countersDir(Path dir) {
        this.countersDir = dir;
        return this;
    }

    /**
     * How often the dataplane copies the transport's counts into the counters file (default 10 ms,
     * on the context's clock): the copy runs on the duty cycle, never per packet, and costs a few
     * microseconds per thousand counters.
     */
    public ContextConfig countersInterval(long nanos) {
        if (nanos <= 0) {
            throw new IllegalArgumentException("the counters interval must be positive, was " + nanos);
        }
        this.countersIntervalNanos = nanos;
        return this;
    }

    /**
     * How many counters the file holds (default 16384: about 90 per remote device with 16 paths, 4
     * per QP); more are left out and counted.
     */
    public ContextConfig countersCapacity(int capacity) {
        this.countersCapacity = capacity;
        return this;
    }

    /** Attached devices: which of the dataplane's ports (0, the default: its first {@code --port}). */
    public ContextConfig attachedPort(int port) {
        this.attachedPort = port;
        return this;
    }

    /**
     * Attached devices: the shared pool memory regions are carved from (default 64 MiB). The
     * dataplane can reach only this memory, so every MR of the context comes from it.
     */
    public ContextConfig attachedPoolBytes(long bytes) {
        this.attachedPoolBytes = bytes;
        return this;
    }

    /** Attached devices: the shared area the SQ, RQ and CQ rings are carved from (default 16 MiB; a 1024-deep SQ takes 256 KiB). */
    public ContextConfig attachedRingBytes(long bytes) {
        this.attachedRingBytes = bytes;
        return this;
    }

    public ContextConfig mode(ThreadingMode m) {
        this.mode = m;
        return this;
    }

    /**
     * DEDICATED mode: never park the idle dataplane thread (lowest latency, one core burnt), instead
     * of the default back-off (spin, yield, then park — a park costs tens of µs of timer slack).
     */
    public ContextConfig busySpin(boolean spin) {
        this.busySpin = spin;
        return this;
    }

    /** DEDICATED mode: pin the dataplane thread to this CPU (-1, the default: let the scheduler place it). */
    public ContextConfig cpu(int core) {
        this.cpu = core;
        return this;
    }

    /** This device's IPv4 address, e.g. {@code 0x0A000001} for 10.0.0.1 (ignored on a simulated host). */
    public ContextConfig ip(int address) {
        this.ip = address;
        return this;
    }

    /** Seeds the first PSNs and the epoch: fix it for a reproducible run. */
    public ContextConfig seed(long seed) {
        this.epochSeed = seed;
        return this;
    }

    /** The transport's configuration, to adjust in place (MTU, UDP port, RTO, retry budget, paths, ...). */
    public TransportConfig srd() {
        return srd;
    }
}
