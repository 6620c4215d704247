package io.srdnic.srd.sim;

import io.srdnic.pmd.sim.LinkConfig;
import java.util.Set;

/**
 * One simulated run, as {@code srdnic sim} takes it. {@code messages} is the total, split evenly
 * over the senders: without incast host i sends to host (i+1) mod H; with incast hosts 1..H-1 all
 * send to host 0. {@code paths} is both the entropy count of every context and the number of fabric
 * paths (entropy i rides path i). Loss, duplication and reordering apply per packet per direction on
 * every fabric path. Links run at {@code linkGbps} with the datacenter-like defaults of
 * {@link LinkConfig} (2 µs per link, 1 MiB queue) unless {@code delayNanos} overrides the delay.
 */
public record Scenario(int hosts, long messages, int size, double loss, double duplicate, double reorder,
                       long delayNanos, long jitterNanos, int paths, Set<Integer> blackholePaths, boolean incast,
                       double linkGbps, long timeLimitNanos, long seed) {

    public static final long DEFAULT_TIME_LIMIT_NANOS = 10_000_000_000L;

    public Scenario {
        if (hosts < 2) {
            throw new IllegalArgumentException("--hosts must be at least 2");
        }
        if (messages < 1) {
            throw new IllegalArgumentException("--messages must be at least 1");
        }
        if (size < 0) {
            throw new IllegalArgumentException("--size must not be negative");
        }
        for (double p : new double[] {loss, duplicate, reorder}) {
            if (!(p >= 0 && p < 1)) {
                throw new IllegalArgumentException("probabilities must be in [0, 1): loss, dup, reorder");
            }
        }
        if (paths < 1 || paths > 64) {
            throw new IllegalArgumentException("--paths must be 1..64");
        }
        for (int p : blackholePaths) {
            if (p < 0 || p >= paths) {
                throw new IllegalArgumentException("blackholed path " + p + " is not one of 0.." + (paths - 1));
            }
        }
        if (!(linkGbps > 0) || timeLimitNanos <= 0 || delayNanos < 0 || jitterNanos < 0) {
            throw new IllegalArgumentException("link rate, time limit, delay and jitter must be positive");
        }
        blackholePaths = Set.copyOf(blackholePaths);
    }

    /** A clean 2-host run: handy base for tests. */
    public static Scenario basic(long messages, int size, long seed) {
        return new Scenario(2, messages, size, 0, 0, 0, LinkConfig.DEFAULT_DELAY_NANOS, 0, 16, Set.of(), false, 100,
            DEFAULT_TIME_LIMIT_NANOS, seed);
    }

    public Scenario withFaults(double newLoss, double newDuplicate, double newReorder) {
        return new Scenario(hosts, messages, size, newLoss, newDuplicate, newReorder, delayNanos, jitterNanos, paths,
            blackholePaths, incast, linkGbps, timeLimitNanos, seed);
    }

    public Scenario withHosts(int newHosts, boolean newIncast) {
        return new Scenario(newHosts, messages, size, loss, duplicate, reorder, delayNanos, jitterNanos, paths,
            blackholePaths, newIncast, linkGbps, timeLimitNanos, seed);
    }

    public Scenario withPaths(int newPaths, Set<Integer> newBlackholes) {
        return new Scenario(hosts, messages, size, loss, duplicate, reorder, delayNanos, jitterNanos, newPaths,
            newBlackholes, incast, linkGbps, timeLimitNanos, seed);
    }

    public Scenario withSeed(long newSeed) {
        return new Scenario(hosts, messages, size, loss, duplicate, reorder, delayNanos, jitterNanos, paths,
            blackholePaths, incast, linkGbps, timeLimitNanos, newSeed);
    }

    int senders() {
        return incast ? hosts - 1 : hosts;
    }

    int destinationOf(int host) {
        return incast ? 0 : (host + 1) % hosts;
    }

    boolean isSender(int host) {
        return !incast || host != 0;
    }
}
