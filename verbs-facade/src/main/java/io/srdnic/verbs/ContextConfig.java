package io.srdnic.verbs;

import io.srdnic.srd.transport.SrdConfig;

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
    final SrdConfig srd = new SrdConfig();

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
    public SrdConfig srd() {
        return srd;
    }
}
