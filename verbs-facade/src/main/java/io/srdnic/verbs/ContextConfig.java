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
    int attachedPort;
    long attachedPoolBytes = 64L << 20;
    long attachedRingBytes = 16L << 20;

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
    public SrdConfig srd() {
        return srd;
    }
}
