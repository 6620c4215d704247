package io.srdnic.verbs;

/** Who runs the dataplane's duty cycle, as in Aeron's media driver. */
public enum ThreadingMode {
    /**
     * The application's own poll and post calls run it: one thread per process does everything,
     * which is what two busy processes on a 2-core machine need.
     */
    INVOKER,
    /** An agent thread of its own runs it, busy-polling or backing off; work crosses single-producer rings. */
    DEDICATED
}
