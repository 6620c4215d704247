package io.srdnic.srd.transport;

/**
 * The ACKs a duty cycle owes for the data it received, noted as it receives them and built at the
 * next cycle, after that cycle's data has left: building and sending them then keeps them off the
 * critical path of a reply the application posts in between. What a note keeps is what the ACK
 * echoes of its data packet; the window state (cumulative PSN, SACK, drops) is read when it is built.
 */
final class OwedAcks {
    final int[] context;
    final int[] contextId;
    final int[] peerContext;
    final int[] peerEpoch;
    final int[] psn;
    final long[] timestamp;
    final long[] mac;
    final int[] ip;
    final int[] port;
    int count;

    OwedAcks(int capacity) {
        context = new int[capacity];
        contextId = new int[capacity];
        peerContext = new int[capacity];
        peerEpoch = new int[capacity];
        psn = new int[capacity];
        timestamp = new long[capacity];
        mac = new long[capacity];
        ip = new int[capacity];
        port = new int[capacity];
    }

    void add(SrdContext ctx, int peerContext, int peerEpoch, int psn, long timestamp, long mac, int ip, int port) {
        int i = count++;
        this.context[i] = ctx.index;
        this.contextId[i] = ctx.id;
        this.peerContext[i] = peerContext;
        this.peerEpoch[i] = peerEpoch;
        this.psn[i] = psn;
        this.timestamp[i] = timestamp;
        this.mac[i] = mac;
        this.ip[i] = ip;
        this.port[i] = port;
    }

    boolean isFull() {
        return count == context.length;
    }
}
