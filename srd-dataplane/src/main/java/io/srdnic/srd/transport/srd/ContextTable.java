package io.srdnic.srd.transport.srd;

import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.counters.SrdCounters;
import io.srdnic.srd.transport.port.LongIntMap;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A transport's contexts, one per remote device: bounded by {@code maxContexts}, keyed by the
 * device's {@link FlowKey} (its IPv4 address and UDP port, so two devices behind one address are two
 * flows), with the ids that order a peer's view of our incarnations. A full table makes
 * room only by evicting contexts still on probation (never delivered a message nor carried one of
 * ours) and idle, oldest first, so a flood of new sources cannot push out established peers; idle
 * contexts are reclaimed after {@code idleContextNanos}. Which contexts are busy (the duty cycle's
 * active list) is not kept here.
 */
public final class ContextTable {
    private final TransportConfig config;
    private final SrdCounters counters;
    /** Shared with the transport: first PSNs are drawn from it in the order contexts open. */
    private final SplittableRandom random;
    private final SrdContext[] contexts;
    private final LongIntMap byFlow = new LongIntMap(64);
    /** Context ids come from one counter (random start): ids order a peer's incarnations of its contexts. */
    private int nextContextId;
    /** Contexts not yet established, oldest first (index << 32 | id): what a full table evicts. */
    private final long[] probation;
    private int probationHead;
    private int probationCount;
    /** Indices of contexts alive now (created, not reclaimed): the only ones housekeeping looks at. */
    private final int[] live;
    private int liveCount;
    /** Where each context index stands in {@link #live}: releasing one is O(1), not a scan of every live context. */
    private final int[] livePosition;
    /** Slots in use: a new context takes the lowest free one in maxContexts / 64 word reads, not a scan of every context. */
    private final BitSet inUse;

    public ContextTable(TransportConfig config, SrdCounters counters, SplittableRandom random) {
        this.config = config;
        this.counters = counters;
        this.random = random;
        this.contexts = new SrdContext[config.maxContexts()];
        this.nextContextId = random.nextInt();
        this.probation = new long[config.maxContexts()];
        this.live = new int[config.maxContexts()];
        this.livePosition = new int[config.maxContexts()];
        this.inUse = new BitSet(config.maxContexts());
    }

    /**
     * The flow a received packet from {@code ip} belongs to. The wire does not say which UDP port
     * its sender listens on (the source port carries path entropy), so it is this fabric's one SRD
     * port, which every address handle names (see {@code TransportDevice.createAddressHandle}).
     */
    public long flowFrom(int ip) {
        return FlowKey.pack(ip, config.udpPort());
    }

    /**
     * The context for the remote device {@code flow}, opened if there is none ({@code mac} is where a
     * new one answers; an existing one keeps its MAC), or null when the table is full of contexts
     * that may not be evicted (counted).
     */
    public SrdContext openFor(long flow, long mac, long now) {
        int index = byFlow.get(flow);
        if (index != LongIntMap.MISSING) {
            return contexts[index];
        }
        int free = liveCount < contexts.length ? freeSlot() : evictOnProbation();
        if (free < 0) {
            counters.contextTableFull++;
            return null;
        }
        if (contexts[free] == null) {
            contexts[free] = new SrdContext(free, config, counters);
        }
        SrdContext ctx = contexts[free];
        ctx.open(newContextId(), flow, mac, random.nextInt(), now);
        byFlow.put(flow, free);
        inUse.set(free);
        livePosition[free] = liveCount;
        live[liveCount++] = free;
        if (probationCount == probation.length) { // only stale entries can fill it: drop the oldest
            probationHead = (probationHead + 1) % probation.length;
            probationCount--;
        }
        probation[(probationHead + probationCount++) % probation.length] = ((long) free << 32) | (ctx.id & 0xFFFF_FFFFL);
        counters.contextsCreated++;
        return ctx;
    }

    /** The context for the remote device {@code flow}, or null. */
    public SrdContext existing(long flow) {
        int index = byFlow.get(flow);
        return index == LongIntMap.MISSING ? null : contexts[index];
    }

    public SrdContext at(int index) {
        return contexts[index];
    }

    /** A new context id, never 0 (0 names no context on the wire). */
    public int newContextId() {
        int id = nextContextId++;
        return id != 0 ? id : nextContextId++;
    }

    /** Contexts alive now (created and not reclaimed). */
    public int size() {
        return byFlow.size();
    }

    /** The number of live contexts; {@link #live(int)} is the i-th (in no particular order). */
    public int liveCount() {
        return liveCount;
    }

    public SrdContext live(int i) {
        return contexts[live[i]];
    }

    /** Releases every context not busy and silent for {@code idleNanos} by {@code now}; returns how many. */
    public int reclaimIdle(long now, long idleNanos) {
        int released = 0;
        for (int i = 0; i < liveCount; ) {
            SrdContext ctx = contexts[live[i]];
            if (!ctx.active && ctx.idle() && now - ctx.lastActivity >= idleNanos) {
                release(ctx); // the last live one moves to i: look at it next
                released++;
            } else {
                i++;
            }
        }
        return released;
    }

    /** The contexts alive now (for tests and reports). */
    public List<SrdContext> liveContexts() {
        List<SrdContext> out = new ArrayList<>();
        for (int i = 0; i < liveCount; i++) {
            out.add(contexts[live[i]]);
        }
        return out;
    }

    private int freeSlot() {
        int i = inUse.nextClearBit(0);
        return i < contexts.length ? i : -1;
    }

    private int evictOnProbation() {
        for (int n = probationCount; n > 0; n--) {
            long e = probation[probationHead];
            probationHead = (probationHead + 1) % probation.length;
            probationCount--;
            SrdContext ctx = contexts[(int) (e >>> 32)];
            if (ctx.id != (int) e || ctx.established) {
                continue; // reclaimed since, or established: no longer on probation
            }
            if (!ctx.idle() || ctx.active) {
                probation[(probationHead + probationCount++) % probation.length] = e; // busy now: keep it, look further
                continue;
            }
            counters.contextsEvicted++;
            release(ctx);
            return ctx.index;
        }
        return -1;
    }

    /** Takes a context out of the table; its slot (and arrays) wait for the next {@link SrdContext#open}. */
    private void release(SrdContext ctx) {
        byFlow.remove(ctx.flow);
        ctx.id = 0;
        ctx.ack.clear(); // the peer's sender forgets what this one received too, or retries it
        inUse.clear(ctx.index);
        int at = livePosition[ctx.index];
        int last = live[--liveCount];
        live[at] = last;
        livePosition[last] = at;
    }
}
