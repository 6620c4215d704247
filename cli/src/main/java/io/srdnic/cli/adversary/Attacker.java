package io.srdnic.cli.adversary;

import java.util.EnumMap;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;

/**
 * The attacker's thread: at {@code rate} frames per second it picks an attack class at random
 * (seeded) among those enabled, has {@link AttackFrames} build a frame of it and offers it to the
 * {@link FrameSink}. It sends in small bursts between short sleeps and never catches up on more
 * than a tenth of a second it fell behind. Counts frames per class: sent (taken by the sink) and
 * refused by it.
 */
public final class Attacker implements AutoCloseable {
    private static final long TICK_NANOS = 250_000;

    private final AttackFrames frames;
    private final FrameSink sink;
    private final Attack[] enabled;
    private final double rate;
    private final long seed;
    private final long[] sent = new long[Attack.values().length];
    private final long[] refused = new long[Attack.values().length];
    private final Thread thread;
    private volatile boolean stop;
    private volatile Throwable failure;

    public Attacker(AttackFrames frames, FrameSink sink, Set<Attack> attacks, double rate, long seed) {
        this.frames = frames;
        this.sink = sink;
        this.enabled = attacks.toArray(new Attack[0]);
        this.rate = rate;
        this.seed = seed;
        this.thread = new Thread(this::run, "srdnic-attacker");
        this.thread.setDaemon(true);
    }

    public void start() {
        if (enabled.length > 0 && rate > 0) {
            thread.start();
        }
    }

    private void run() {
        try {
            SplittableRandom r = new SplittableRandom(seed);
            long start = System.nanoTime();
            long made = 0;
            long maxBehind = Math.max(1, (long) (rate / 10));
            while (!stop) {
                long due = (long) ((System.nanoTime() - start) * rate / 1e9);
                if (due - made > maxBehind) {
                    made = due - maxBehind; // fell behind (descheduled): do not flood to catch up
                }
                while (made < due && !stop) {
                    Attack a = enabled[r.nextInt(enabled.length)];
                    int length = frames.build(a, r);
                    if (length > 0) {
                        if (sink.offer(frames.frame(length), length)) {
                            sent[a.ordinal()]++;
                        } else {
                            refused[a.ordinal()]++;
                        }
                    }
                    made++;
                }
                LockSupport.parkNanos(TICK_NANOS);
            }
        } catch (Throwable t) {
            failure = t;
        }
    }

    /** Stops the thread and waits for it. */
    @Override
    public void close() {
        stop = true;
        if (thread.isAlive()) {
            try {
                thread.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Why the thread stopped early, or null. */
    public Throwable failure() {
        return failure;
    }

    /** Frames the sink took, per class (read after {@link #close}). */
    public Map<Attack, Long> sentByClass() {
        return byClass(sent);
    }

    /** Frames the sink refused, per class (read after {@link #close}). */
    public Map<Attack, Long> refusedByClass() {
        return byClass(refused);
    }

    private Map<Attack, Long> byClass(long[] counts) {
        Map<Attack, Long> m = new EnumMap<>(Attack.class);
        for (Attack a : enabled) {
            m.put(a, counts[a.ordinal()]);
        }
        return m;
    }
}
