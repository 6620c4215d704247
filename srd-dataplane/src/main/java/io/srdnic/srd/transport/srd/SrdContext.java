package io.srdnic.srd.transport.srd;

import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.counters.SrdCounters;
import io.srdnic.srd.transport.engine.ReliableSender;

/**
 * The SRD context for one remote device: created implicitly by the first message to or from it and
 * shared by every QP that talks to it (so contexts grow with remote devices, not with QP pairs).
 * <p>
 * Requester half: the reliability engine of what it sends ({@link ReliableSender}: PSNs, window,
 * loss detection, RTT, congestion window, paths) and the FIFO of requests waiting for a PSN.
 * Responder half: the receive window that deduplicates, anchored at the sender's send base.
 * <p>
 * Each half's arrays are allocated the first time the slot needs them and kept when the slot is
 * reused, so a context that only ever received (one packet from a spoofed source, say) costs a
 * receive window, not a send window; {@link #open} starts every field of a reused slot afresh.
 * Owned by the transport's thread.
 */
public final class SrdContext {
    static final int EMPTY = -1;

    public final int index;
    private final int window;
    public int id;
    /** The remote device's {@link FlowKey}: what the context table knows this context by. */
    public long flow;
    public int remoteIp;
    public long remoteMac;
    /** The UDP port the remote device listens on: where our packets, ACKs and probe replies go. */
    public int remotePort;
    public int remoteContextId;
    public int peerEpoch;
    /** The cycle in which the responder last answered a packet of an unproven incarnation (at most one answer per cycle). */
    public long unprovenAnsweredAt = Long.MIN_VALUE;
    /** Delivered a message or carried one of ours: evicted only by the idle reclaim, never to make room. */
    public boolean established;

    // Requester
    /** The reliability engine of what this context sends. */
    public final ReliableSender sender;
    public int pendingHead = EMPTY;
    int pendingTail = EMPTY;
    public int pendingCount;
    /** Requests of this context waiting out an RNR backoff: they keep it busy (not idle, not reclaimable). */
    public int rnrWaiting;
    public long lastActivity;
    /** The last time the peer was heard from (an ACK, or data taken up): its context for us has been idle since about then, at most. */
    public long lastHeard;
    public boolean active;

    // Responder
    public ReceiveWindow rx;
    /** The incarnation of the peer whose packets the receive window tracks. */
    public final PeerIncarnation rxPeer = new PeerIncarnation();
    /** The ACK owed for what was received since the last one left. */
    public final PendingAck ack = new PendingAck();

    // Counters
    public long rxPackets;
    public long duplicates;
    public long delivered;
    public long drops;

    SrdContext(int index, TransportConfig config, SrdCounters counters) {
        this.index = index;
        this.window = config.window();
        this.sender = new ReliableSender(index, config, counters);
    }

    /**
     * Prepares a fresh incarnation for the device {@code remote}, starting its PSNs at
     * {@code firstPsn}: nothing of a previous remote remains.
     */
    void open(int newId, long remote, long mac, int firstPsn, long now) {
        id = newId;
        flow = remote;
        remoteIp = FlowKey.ip(remote);
        remoteMac = mac;
        remotePort = FlowKey.port(remote);
        remoteContextId = 0;
        peerEpoch = 0;
        established = false;
        sender.reset(firstPsn, now);
        pendingHead = EMPTY;
        pendingTail = EMPTY;
        pendingCount = 0;
        rnrWaiting = 0;
        lastActivity = now;
        lastHeard = now;
        active = false;
        rxPeer.reset();
        ack.clear();
        rxPackets = duplicates = delivered = drops = 0;
    }

    /** A new incarnation of the sending half only (same remote): the responder will take its PSNs afresh. */
    public void reincarnate(int newId) {
        id = newId;
        sender.peerCumulative = sender.nextPsn;
        // Name none of the peer's contexts: it then takes our new id for its packets too. Safe, as
        // every PSN from here on is new, so no incarnation of the peer can have delivered it.
        remoteContextId = 0;
    }

    public boolean hasRequesterState() {
        return sender.hasWindow();
    }

    /** Allocates the send window the first time this slot sends. */
    public void ensureRequester() {
        sender.ensureWindow();
    }

    /** Allocates the receive window the first time this slot receives. */
    public void ensureResponder() {
        if (rx == null) {
            rx = new ReceiveWindow(window);
        }
    }

    /**
     * Queues request {@code r} last among those waiting for a PSN; requests are linked through
     * {@code next} ({@link SendRequests#next}), so queueing allocates nothing.
     */
    public void appendPending(int r, int[] next) {
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
    public void prependPending(int r, int[] next) {
        next[r] = pendingHead;
        pendingHead = r;
        if (pendingTail == EMPTY) {
            pendingTail = r;
        }
        pendingCount++;
    }

    /** Takes the first waiting request; there is one ({@code pendingCount > 0}). */
    public int popPending(int[] next) {
        int r = pendingHead;
        pendingHead = next[r];
        if (pendingHead == EMPTY) {
            pendingTail = EMPTY;
        }
        next[r] = EMPTY;
        pendingCount--;
        return r;
    }

    public boolean idle() {
        return sender.inflight == 0 && pendingCount == 0 && rnrWaiting == 0;
    }
}
