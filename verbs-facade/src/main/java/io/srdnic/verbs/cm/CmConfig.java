package io.srdnic.verbs.cm;

import io.srdnic.verbs.VerbsException;

/**
 * The CM's timers, per context ({@link ConnectionManager#of(io.srdnic.verbs.Context, CmConfig)}):
 * how long it waits for an answer before sending again, how many times it sends again before the
 * peer is UNREACHABLE, and how long a closed connection stays in TIMEWAIT. InfiniBand's CM waits
 * seconds (its peers may be a subnet manager away); srdnic's peers answer from a poll loop, so its
 * defaults are 50 ms, 5 retries (the peer is unreachable after 300 ms) and 50 ms of TIMEWAIT. A
 * responder whose application has not yet answered a request says so (MRA) when the request comes
 * again; the requester then waits {@link #mraTimeoutNanos} per retry instead (1 s by default).
 */
public final class CmConfig {
    long responseTimeoutNanos = 50_000_000L;
    int maxRetries = 5;
    long timewaitNanos = 50_000_000L;
    long mraTimeoutNanos = 1_000_000_000L;

    public CmConfig responseTimeoutNanos(long nanos) {
        if (nanos <= 0) {
            throw new VerbsException("the response timeout must be positive");
        }
        this.responseTimeoutNanos = nanos;
        return this;
    }

    public CmConfig maxRetries(int n) {
        if (n < 0 || n > 100) {
            throw new VerbsException("max retries must be 0..100, was " + n);
        }
        this.maxRetries = n;
        return this;
    }

    public CmConfig mraTimeoutNanos(long nanos) {
        if (nanos <= 0) {
            throw new VerbsException("the MRA timeout must be positive");
        }
        this.mraTimeoutNanos = nanos;
        return this;
    }

    public CmConfig timewaitNanos(long nanos) {
        if (nanos < 0) {
            throw new VerbsException("TIMEWAIT cannot be negative");
        }
        this.timewaitNanos = nanos;
        return this;
    }
}
