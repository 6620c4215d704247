package io.srdnic.cli.perf;

/**
 * The side channel two perf sides talk over before and after a run, perftest-style: one line per
 * message (parameters, MAC/IP/QPN/qkey, start and end of the raw phase, results). Over TCP for
 * {@code --server}/{@code --client}, over the parent's stdin/stdout relay for two child JVMs, in
 * memory for two threads. Never on the data path.
 */
interface Channel extends AutoCloseable {

    void send(String line);

    /** The next line if one has come, else null; never blocks (the responder's loop checks it). */
    String poll();

    /** Waits for the next line; fails when the peer reports an error, hangs up, or the time runs out. */
    String take(long timeoutMillis);

    /** {@link #take} expecting a line that starts with {@code word}; returns the rest of it. */
    default String expect(String word, long timeoutMillis) {
        String line = take(timeoutMillis);
        if (line.startsWith("ERROR ")) {
            throw new IllegalStateException("the other side failed: " + line.substring(6));
        }
        if (!line.equals(word) && !line.startsWith(word + " ")) {
            throw new IllegalStateException("side channel: expected " + word + ", got '" + line + "'");
        }
        return line.length() > word.length() ? line.substring(word.length() + 1) : "";
    }

    @Override
    void close();
}
