package io.srdnic.dataplane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Dataplanes started at once on one run directory, a stale pid file there (left by one killed with
 * -9): however their opens, locks and the holder's removal interleave, exactly one of them owns the
 * directory. Threads of one JVM stand in for processes: each acquire opens the file afresh, and the
 * lock is per open file, so two threads conflict as two processes do.
 */
class PidLockRaceTest {
    private static final int ROUNDS = 300;
    private static final int STARTERS = 3;

    @TempDir
    Path tmp;

    @Test
    void shouldLetExactlyOneOfConcurrentStartersOwnTheDirectory() throws Exception {
        Path dir = RunDirectory.prepare(tmp.resolve("run"));
        List<String> wrong = new ArrayList<>();
        for (int round = 0; round < ROUNDS && wrong.isEmpty(); round++) {
            Files.writeString(dir.resolve(PidLock.FILE), "999999\n");
            AtomicInteger holders = new AtomicInteger();
            CyclicBarrier start = new CyclicBarrier(STARTERS);
            CyclicBarrier tried = new CyclicBarrier(STARTERS);
            List<Thread> threads = new ArrayList<>();
            for (int s = 0; s < STARTERS; s++) {
                threads.add(Thread.ofPlatform().start(() -> {
                    PidLock lock = null;
                    try {
                        start.await();
                        try {
                            lock = PidLock.acquire(dir);
                            holders.incrementAndGet();
                        } catch (RuntimeException | IOException refused) {
                            // another owns it: what a second dataplane must hear
                        }
                        tried.await(); // every holder keeps its lock until all have tried
                        if (lock != null) {
                            lock.close();
                        }
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    }
                }));
            }
            for (Thread t : threads) {
                t.join();
            }
            if (holders.get() != 1) {
                wrong.add("round " + round + ": " + holders.get() + " holders");
            }
        }
        assertEquals(List.of(), wrong, "one owner per start, never two, never none");
        assertTrue(Files.notExists(dir.resolve(PidLock.FILE)), "the last owner removed it when it stopped");
    }
}
