package io.srdnic.srd.transport.srd;

/**
 * The SRD contexts that owe an ACK for data received, by index, noted as they first come to owe
 * one and answered at the next cycle, after that cycle's data has left: building and sending them
 * then keeps them off the critical path of a reply the application posts in between. Each context
 * owes one ACK however many packets it received ({@link PendingAck}, which says whether it still
 * does: one answered early, released or reopened meanwhile no longer owes it).
 */
public final class OwedAcks {
    public final int[] context;
    public int count;

    public OwedAcks(int capacity) {
        context = new int[capacity];
    }

    public void add(SrdContext ctx) {
        context[count++] = ctx.index;
    }

    public boolean isFull() {
        return count == context.length;
    }
}
