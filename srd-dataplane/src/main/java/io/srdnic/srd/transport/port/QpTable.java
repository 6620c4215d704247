package io.srdnic.srd.transport.port;

import io.srdnic.srd.transport.qp.TransportQp;
import java.util.SplittableRandom;

/**
 * A transport's QPs by number. QPN = generation << indexBits | index, 24 bits in all: indexes are
 * given next fit from the last one (a freed index rests before it is used again) and each use bumps
 * its generation, so a number is not reused while packets for it may still be alive.
 * <p>
 * Numbers start at a random point, index and generation, per incarnation (as an HCA's do after a
 * reset): a frame still in flight for the predecessor's QP finds no QP of that number, not its
 * successor. The frame itself cannot tell: a peer that never heard from the predecessor names no
 * context of ours (0), and data packets carry no destination epoch. What remains is the chance a
 * new QP draws the old number: about 1 in maxQps x 2^(24 - index bits).
 *
 * @param <Q> the QPs' type as the device makes them (the message layers read them as {@link TransportQp})
 */
public final class QpTable<Q extends TransportQp> {
    private final int maxQps;
    private final TransportQp[] qps;
    private final int indexBits;
    private final int[] generation;
    private int lastIndex;
    /** The slots in use, densely, and each slot's place among them: passes over the live QPs cost what there are, not maxQps. */
    private final int[] live;
    private final int[] livePosition;
    private int liveCount;

    /** The well-known number of each device's management QP (the connection manager's), as InfiniBand's GSI is QP1. */
    public static final int MANAGEMENT_QPN = 1;
    private static final int FIRST_DRAWN_INDEX = 2;

    public QpTable(int maxQps, SplittableRandom random) {
        this.maxQps = maxQps;
        this.indexBits = 32 - Integer.numberOfLeadingZeros(maxQps + 1);
        this.qps = new TransportQp[1 << indexBits];
        this.generation = new int[1 << indexBits];
        this.live = new int[1 << indexBits];
        this.livePosition = new int[1 << indexBits];
        for (int i = 0; i < generation.length; i++) {
            generation[i] = random.nextInt();
        }
        this.lastIndex = FIRST_DRAWN_INDEX + random.nextInt(maxQps);
    }

    /** The number the next QP gets (its slot stays free until {@link #put}), or -1 when all maxQps are in use. */
    public int nextQpn() {
        for (int step = 1; step <= maxQps; step++) {
            int index = (lastIndex + step - FIRST_DRAWN_INDEX) % maxQps + FIRST_DRAWN_INDEX;
            if (qps[index] == null) {
                lastIndex = index;
                int g = ++generation[index] & ((1 << (24 - indexBits)) - 1);
                return (g << indexBits) | index;
            }
        }
        return -1;
    }

    /** Whether the management QP's number is free (it has none yet). */
    public boolean managementFree() {
        return qps[MANAGEMENT_QPN] == null;
    }

    public void put(Q qp) {
        int slot = qp.qpn & indexMask();
        if (qps[slot] == null) {
            livePosition[slot] = liveCount;
            live[liveCount++] = slot;
        }
        qps[slot] = qp;
    }

    public void remove(Q qp) {
        int slot = qp.qpn & indexMask();
        if (qps[slot] != null) {
            int last = live[--liveCount];
            live[livePosition[slot]] = last;
            livePosition[last] = livePosition[slot];
        }
        qps[slot] = null;
    }

    /** How many QPs exist; {@link #live(int)} is the i-th (in no particular order). */
    public int liveCount() {
        return liveCount;
    }

    public Q live(int i) {
        return own(qps[live[i]]);
    }

    /** The QP with this number, or null (also for the number of a destroyed QP whose slot was reused). */
    public Q get(int qpn) {
        TransportQp qp = qps[qpn & indexMask()];
        return qp != null && qp.qpn == qpn ? own(qp) : null;
    }

    /** Bits of a QPN that index the table. */
    public int indexMask() {
        return qps.length - 1;
    }

    /** The QP in slot {@code index} (0..indexMask), or null: for passes over every QP. */
    public Q at(int index) {
        return own(qps[index]);
    }

    /** Only {@link #put} fills the table, with a {@code Q}. */
    @SuppressWarnings("unchecked")
    private Q own(TransportQp qp) {
        return (Q) qp;
    }
}
