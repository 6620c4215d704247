package io.srdnic.cli.pktgen;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * What the parent of a two-process pktgen side says on the side's stdin, read on a daemon thread
 * so the packet loop never blocks: {@code DONE n} (the sender sent n frames) and, by closing stdin,
 * "you may close your port now". The parent closes a side's stdin only once the other side has
 * stopped polling its port: a memif end closing under a peer inside rx_burst makes the peer's
 * driver unmap the rings under that burst.
 */
final class ParentLink implements Runnable {
    private final CountDownLatch closed = new CountDownLatch(1);
    private volatile long doneSent = -1;

    static ParentLink start() {
        ParentLink link = new ParentLink();
        Thread t = new Thread(link, "srdnic-pktgen-stdin");
        t.setDaemon(true);
        t.start();
        return link;
    }

    @Override
    public void run() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                if (line.startsWith("DONE ")) {
                    doneSent = Long.parseLong(line.substring(5).trim());
                }
            }
        } catch (IOException | NumberFormatException ignored) {
            // the parent is gone or confused: treat as closed
        }
        closed.countDown();
    }

    /** The frame count of the parent's {@code DONE}, or -1 before it came. */
    long doneSent() {
        return doneSent;
    }

    /** True once the parent has closed this side's stdin (or gone away). */
    boolean closed() {
        return closed.getCount() == 0;
    }

    /** Waits up to {@code timeoutMillis} for the parent to close stdin; true if it did. */
    boolean awaitClosed(long timeoutMillis) {
        try {
            return closed.await(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
