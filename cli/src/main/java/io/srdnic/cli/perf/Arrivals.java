package io.srdnic.cli.perf;

/**
 * Messages counted where they arrive — the server's receives, or for RDMA the client's completions
 * (a WRITE completes once its bytes are in the server's memory, a READ once they are in the
 * client's): how many, how many after the warm-up, and when the first and last of those came,
 * read once per poll.
 */
final class Arrivals {
    private final long warmup;
    private long count;
    private long measured;
    private long measuredAtLastPoll;
    private long firstAt;
    private long lastAt;

    Arrivals(long warmup) {
        this.warmup = warmup;
    }

    /** Message {@code seq} (its number in the run, from 0) arrived in the poll being handled. */
    void arrived(long seq) {
        count++;
        if (seq >= warmup) {
            measured++;
        }
    }

    /** The poll is handled, at {@code now}: the arrival time of its measured messages. */
    void polled(long now) {
        if (measured > measuredAtLastPoll) {
            if (measuredAtLastPoll == 0) {
                firstAt = now;
            }
            lastAt = now;
            measuredAtLastPoll = measured;
        }
    }

    long count() {
        return count;
    }

    /** As the {@code RESULT} line has them: received, measured, and the first and last arrival times. */
    String fields() {
        return "received=" + count + " measured=" + measured + " first_ns=" + firstAt + " last_ns=" + lastAt;
    }

    /** What the server reported, but with the arrivals counted here. */
    ServerCounts over(ServerCounts server) {
        return new ServerCounts(count, measured, firstAt, lastAt, server.errors(), server.firstError(), server.check());
    }
}
