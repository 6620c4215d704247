package io.srdnic.srd.transport;

import java.util.Arrays;

/**
 * The SRD context for one remote device: created implicitly by the first message to or from it and
 * shared by every QP that talks to it (so contexts grow with remote devices, not with QP pairs).
 * <p>
 * Requester half: a 32-bit PSN space, the window of outstanding packets (slot = PSN mod window,
 * holding a request id), the transmissions in send order for RACK and RTO loss detection, RTT,
 * the congestion window and the paths it sprays over, and the FIFO of requests waiting for window.
 * Responder half: the receive window that deduplicates, anchored at the sender's send base.
 * Owned by the transport's thread.
 */
final class SrdContext {
    static final int EMPTY = -1;

    final int index;
    int id;
    int remoteIp;
    long remoteMac;
    int remotePort;
    int remoteContextId;
    int peerEpoch;

    // Requester
    final int[] slot;
    final int mask;
    int nextPsn;
    int sendBase;
    int inflight;
    private final long[] order;
    private final int orderMask;
    private long orderHead;
    private long orderTail;
    final RttEstimator rtt;
    final DelayWindow cwnd;
    final PathSet paths;
    int pendingHead = EMPTY;
    int pendingTail = EMPTY;
    int pendingCount;
    long rackSendTime;
    long lastProgress;
    long lastBackoff = Long.MIN_VALUE / 2;
    boolean unresponsive;
    int addressHandles;
    long lastActivity;
    boolean active;

    // Responder
    final ReceiveWindow rx;
    boolean rxStarted;
    int rxPeerEpoch;
    int rxPeerContext;

    // Counters
    long txPackets;
    long retransmits;
    long timeouts;
    long rackLosses;
    long rxPackets;
    long duplicates;
    long delivered;
    long drops;

    SrdContext(int index, SrdConfig config) {
        this.index = index;
        int w = config.window();
        this.slot = new int[w];
        this.mask = w - 1;
        this.order = new long[2 * w];
        this.orderMask = 2 * w - 1;
        this.rtt = new RttEstimator(config.rtoInitialNanos, config.rtoMinNanos, config.rtoMaxNanos);
        this.cwnd = new DelayWindow(config.ccInitialWindow, w, config.ccAdditiveIncrease, config.ccBeta, config.ccMaxDecrease,
            config.ccTargetQueueingNanos);
        this.paths = new PathSet(config.paths, config.pathAvoidNanos, index);
        this.rx = new ReceiveWindow(w);
        Arrays.fill(slot, EMPTY);
    }

    /** Prepares a fresh incarnation for {@code remote}, starting its PSNs at {@code firstPsn}. */
    void open(int newId, int ip, long mac, int port, int firstPsn, long now) {
        id = newId;
        remoteIp = ip;
        remoteMac = mac;
        remotePort = port;
        remoteContextId = 0;
        nextPsn = firstPsn;
        sendBase = firstPsn;
        lastProgress = now;
        lastActivity = now;
        rxStarted = false;
    }

    int slotRequest(int psn) {
        int d = psn - sendBase;
        if (d < 0 || psn - nextPsn >= 0) {
            return EMPTY;
        }
        return slot[psn & mask];
    }

    /** Tells whether a send-order entry still stands for the current transmission of an outstanding packet. */
    interface TransmissionCheck {
        boolean isCurrent(SrdContext context, int psn, int xmit);
    }

    /** Records a transmission of {@code psn} (its {@code xmit}-th) in send order. */
    void recordTransmission(int psn, int xmit, TransmissionCheck check) {
        if (orderTail - orderHead > orderMask) {
            compactOrder(check);
        }
        order[(int) (orderTail++ & orderMask)] = ((long) psn << 32) | (xmit & 0xFFFF_FFFFL);
    }

    boolean hasOrder() {
        return orderHead != orderTail;
    }

    long peekOrder() {
        return order[(int) (orderHead & orderMask)];
    }

    void popOrder() {
        orderHead++;
    }

    /** Invalid (superseded or completed) entries are dropped lazily at the head; this clears the rest when full. */
    private void compactOrder(TransmissionCheck check) {
        long write = orderHead;
        for (long read = orderHead; read != orderTail; read++) {
            long e = order[(int) (read & orderMask)];
            if (check.isCurrent(this, (int) (e >>> 32), (int) e)) {
                order[(int) (write++ & orderMask)] = e;
            }
        }
        orderTail = write;
        if (orderTail - orderHead > orderMask) {
            throw new IllegalStateException("send-order queue overflow: more packets in flight than twice the window");
        }
    }

    /** Moves the send base past every PSN that is no longer outstanding. */
    void advanceSendBase() {
        while (sendBase != nextPsn && slot[sendBase & mask] == EMPTY) {
            sendBase++;
        }
    }

    boolean idle() {
        return inflight == 0 && pendingCount == 0;
    }

    /** The packets congestion control lets into flight now. */
    int sendAllowance() {
        return Math.min(cwnd.packets(), slot.length) - inflight;
    }
}
