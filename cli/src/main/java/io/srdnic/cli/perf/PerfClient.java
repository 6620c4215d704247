package io.srdnic.cli.perf;

/** The client side's agent: {@link #doWork()} is one duty cycle of the test; the caller loops it until {@link #done()}. */
interface PerfClient {
    int doWork();

    boolean done();

    /** Iterations or messages finished so far, warm-up included, for the progress line. */
    long progress();

    /** Iterations or messages the run will make, warm-up included (a timed warm-up may add to it as it goes). */
    long total();

    /** Messages posted (warm-up included). */
    long sent();

    /** Completions with an error status, and the name of the first one's status (or null). */
    long errors();

    String firstError();

    /**
     * For messages the server does not see arrive (RDMA but a latency-mode WRITE WITH_IMM): the
     * server's counts with the arrivals as this side's completions saw them.
     */
    ServerCounts landed(ServerCounts server);
}
