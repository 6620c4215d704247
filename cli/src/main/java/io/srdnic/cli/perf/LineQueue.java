package io.srdnic.cli.perf;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** Lines that a reader thread received, for {@link Channel#poll} and {@link Channel#take}; EOF once the source ends. */
final class LineQueue {
    static final String EOF = "\u0000eof";
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final String peer;
    private volatile boolean ended;

    LineQueue(String peer) {
        this.peer = peer;
    }

    void add(String line) {
        lines.add(line);
    }

    void end() {
        lines.add(EOF);
    }

    String poll() {
        if (ended) {
            return null;
        }
        String line = lines.poll();
        if (line == EOF) {
            ended = true;
            return "ERROR " + peer + " hung up";
        }
        return line;
    }

    String take(long timeoutMillis) {
        if (ended) {
            throw new IllegalStateException(peer + " hung up");
        }
        try {
            String line = lines.poll(timeoutMillis, TimeUnit.MILLISECONDS);
            if (line == null) {
                throw new IllegalStateException("no word from " + peer + " within " + timeoutMillis + " ms");
            }
            if (line == EOF) {
                ended = true;
                throw new IllegalStateException(peer + " hung up (see its log)");
            }
            return line;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for " + peer, e);
        }
    }
}
