package io.srdnic.srd.transport.srd;

/**
 * The contexts the duty cycle looks at: those with requests waiting, in flight or waiting out an
 * RNR backoff, or with a path being probed. A context joins when it gets work and leaves when the
 * timers find it idle with all paths healthy, so a cycle costs nothing for the idle ones.
 */
public final class ActiveContexts {
    private final ContextTable contexts;
    private final int[] active;
    private int count;

    public ActiveContexts(ContextTable contexts, int maxContexts) {
        this.contexts = contexts;
        this.active = new int[maxContexts];
    }

    /** {@code ctx} has work: the duty cycle looks at it from now on (once, however often it is added). */
    public void add(SrdContext ctx) {
        if (!ctx.active) {
            ctx.active = true;
            active[count++] = ctx.index;
        }
    }

    public int count() {
        return count;
    }

    public SrdContext at(int i) {
        return contexts.at(active[i]);
    }

    /** The {@code i}-th context leaves (the last takes its place, so a loop over them stays at {@code i}). */
    public void removeAt(int i) {
        contexts.at(active[i]).active = false;
        active[i] = active[--count];
    }
}
