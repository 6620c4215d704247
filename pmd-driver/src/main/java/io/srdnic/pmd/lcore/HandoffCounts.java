package io.srdnic.pmd.lcore;

/**
 * One lcore's hand-off counts: plain fields, each written only by that lcore's thread (the
 * dispatchers of the ports it receives and the lanes of the contexts it runs), read by the same
 * thread when it exports them to its counters file. Nothing here is shared between lcores.
 */
public final class HandoffCounts {
    long framesOut;
    long framesIn;
    long ringFullDrops;
    long noOwnerDrops;
    long occupancyMax;

    /** Frames this lcore passed to another lcore: received frames to their owner, sent frames to the port's receiver. */
    public long framesOut() {
        return framesOut;
    }

    /** Frames this lcore took from another lcore's hand-off ring. */
    public long framesIn() {
        return framesIn;
    }

    /** Frames this lcore could not hand off because the ring was full: freed, not blocked on. */
    public long ringFullDrops() {
        return ringFullDrops;
    }

    /** Frames received on this lcore's ports whose IPv4 destination no context owns: freed. */
    public long noOwnerDrops() {
        return noOwnerDrops;
    }

    /** The most frames one drain of a hand-off ring found since the last {@link #takeOccupancyMax()}. */
    public long takeOccupancyMax() {
        long max = occupancyMax;
        occupancyMax = 0;
        return max;
    }

    void sawOccupancy(int frames) {
        if (frames > occupancyMax) {
            occupancyMax = frames;
        }
    }
}
