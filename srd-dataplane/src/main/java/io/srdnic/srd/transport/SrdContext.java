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
 * <p>
 * Each half's arrays are allocated the first time the slot needs them and kept when the slot is
 * reused, so a context that only ever received (one packet from a spoofed source, say) costs a
 * receive window, not a send window; {@link #open} starts every field of a reused slot afresh.
 * Owned by the transport's thread.
 */
final class SrdContext {
    static final int EMPTY = -1;

    final int index;
    private final int window;
    int id;
    int remoteIp;
    long remoteMac;
    int remotePort;
    int remoteContextId;
    int peerEpoch;
    /** Delivered a message or carried one of ours: evicted only by the idle reclaim, never to make room. */
    boolean established;

    // Requester
    int[] slot;
    int mask;
    int nextPsn;
    int sendBase;
    /** The highest cumulative PSN the responder has acknowledged: no PSN goes out a window or more past it. */
    int peerCumulative;
    int inflight;
    private long[] order;
    private int orderMask;
    private long orderHead;
    private long orderTail;
    final RttEstimator rtt;
    final DelayWindow cwnd;
    final PathSet paths;
    int pendingHead = EMPTY;
    int pendingTail = EMPTY;
    int pendingCount;
    /** Requests of this context waiting out an RNR backoff: they keep it busy (not idle, not reclaimable). */
    int rnrWaiting;
    long rackSendTime;
    long lastProgress;
    long lastBackoff;
    boolean unresponsive;
    long lastActivity;
    /** The last time the peer was heard from (an ACK, or data taken up): its context for us has been idle since about then, at most. */
    long lastHeard;
    boolean active;

    // Responder
    ReceiveWindow rx;
    /** The incarnation of the peer whose packets the receive window tracks. */
    final PeerIncarnation rxPeer = new PeerIncarnation();

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
        this.window = config.window();
        this.rtt = new RttEstimator(config.rtoInitialNanos, config.rtoMinNanos, config.rtoMaxNanos);
        this.cwnd = new DelayWindow(config.ccInitialWindow, window, config.ccAdditiveIncrease, config.ccBeta, config.ccMaxDecrease,
            config.ccTargetQueueingNanos);
        this.paths = new PathSet(config.paths, config.pathAvoidNanos, index);
    }

    /** Prepares a fresh incarnation for {@code remote}, starting its PSNs at {@code firstPsn}: nothing of a previous remote remains. */
    void open(int newId, int ip, long mac, int port, int firstPsn, long now) {
        id = newId;
        remoteIp = ip;
        remoteMac = mac;
        remotePort = port;
        remoteContextId = 0;
        peerEpoch = 0;
        established = false;
        nextPsn = firstPsn;
        sendBase = firstPsn;
        peerCumulative = firstPsn;
        inflight = 0;
        orderHead = 0;
        orderTail = 0;
        if (slot != null) {
            Arrays.fill(slot, EMPTY);
        }
        rtt.reset();
        cwnd.reset();
        paths.reset(index);
        pendingHead = EMPTY;
        pendingTail = EMPTY;
        pendingCount = 0;
        rnrWaiting = 0;
        rackSendTime = now;
        lastProgress = now;
        lastBackoff = Long.MIN_VALUE / 2;
        unresponsive = false;
        lastActivity = now;
        lastHeard = now;
        active = false;
        rxPeer.reset();
        txPackets = retransmits = timeouts = rackLosses = rxPackets = duplicates = delivered = drops = 0;
    }

    /** A new incarnation of the sending half only (same remote): the responder will take its PSNs afresh. */
    void reincarnate(int newId) {
        id = newId;
        peerCumulative = nextPsn;
        // Name none of the peer's contexts: it then takes our new id for its packets too. Safe, as
        // every PSN from here on is new, so no incarnation of the peer can have delivered it.
        remoteContextId = 0;
    }

    boolean hasRequesterState() {
        return slot != null;
    }

    /** Allocates the send window the first time this slot sends. */
    void ensureRequester() {
        if (slot == null) {
            slot = new int[window];
            mask = window - 1;
            order = new long[2 * window];
            orderMask = 2 * window - 1;
            Arrays.fill(slot, EMPTY);
        }
    }

    /** Allocates the receive window the first time this slot receives. */
    void ensureResponder() {
        if (rx == null) {
            rx = new ReceiveWindow(window);
        }
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

    /** Whether the next PSN may go out: inside the send window, and less than a window past what the responder acknowledged. */
    boolean canSendNextPsn() {
        return nextPsn - sendBase < window && nextPsn - peerCumulative < window;
    }

    /**
     * Queues request {@code r} last among those waiting for a PSN; requests are linked through
     * {@code next} ({@link SendRequests#next}), so queueing allocates nothing.
     */
    void appendPending(int r, int[] next) {
        next[r] = EMPTY;
        if (pendingTail == EMPTY) {
            pendingHead = r;
        } else {
            next[pendingTail] = r;
        }
        pendingTail = r;
        pendingCount++;
    }

    /** Queues request {@code r} first (it waited out an RNR backoff: it keeps its place ahead of later posts). */
    void prependPending(int r, int[] next) {
        next[r] = pendingHead;
        pendingHead = r;
        if (pendingTail == EMPTY) {
            pendingTail = r;
        }
        pendingCount++;
    }

    /** Takes the first waiting request; there is one ({@code pendingCount > 0}). */
    int popPending(int[] next) {
        int r = pendingHead;
        pendingHead = next[r];
        if (pendingHead == EMPTY) {
            pendingTail = EMPTY;
        }
        next[r] = EMPTY;
        pendingCount--;
        return r;
    }

    boolean idle() {
        return inflight == 0 && pendingCount == 0 && rnrWaiting == 0;
    }

    /** The packets congestion control lets into flight now. */
    int sendAllowance() {
        return Math.min(cwnd.packets(), window) - inflight;
    }
}
