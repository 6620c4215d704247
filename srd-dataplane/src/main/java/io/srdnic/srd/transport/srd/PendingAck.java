package io.srdnic.srd.transport.srd;

/**
 * The ACK one SRD context owes its peer: it answers every data packet noted since the last one
 * left, and its window state (cumulative PSN, SACK, drops) is read when it is built, so it vouches
 * for all of them at once. Of the packets it answers it echoes the one sent last (the newest
 * timestamp), and goes back on the path that one came by:
 * <ul>
 * <li>RTT: the sample is now minus that packet's send time; it waited at the responder at most
 * until the next duty cycle, as a lone packet's ACK always did, so the sample gains at most one
 * cycle. Echoing an older packet of the batch would add the batch's own spread to the RTT.</li>
 * <li>RACK measures losses against the send time of the latest-sent packet known delivered: that
 * is exactly the newest timestamp, which is why it is the newest by send time, not by arrival.</li>
 * </ul>
 * Owned by the transport's thread; allocated with its context, reused with it.
 */
public final class PendingAck {
    public boolean owed;
    /** Data packets this ACK answers (for the coalescing counters and the every-N rule). */
    public int packets;
    public int psn;
    public long timestamp;
    public int peerContext;
    public int peerEpoch;
    public long mac;
    public int ip;
    public int port;
    /** Whether a packet noted since the last ACK was one received before (the ACK then reports it: a DSACK). */
    public boolean duplicate;
    /** The latest such packet's PSN. */
    public int duplicatePsn;

    /**
     * Notes data packet {@code psn} (sent at the peer's {@code timestamp}, from {@code mac}, {@code
     * ip}, {@code port}); returns whether this made the ACK owed, i.e. the context must be put on the
     * list of those owing one.
     */
    public boolean note(int psn, long timestamp, int peerContext, int peerEpoch, long mac, int ip, int port) {
        boolean newly = !owed;
        // Another incarnation of the peer: what was noted for the old one is not for this one to hear.
        boolean fresh = newly || peerContext != this.peerContext || peerEpoch != this.peerEpoch;
        if (fresh) {
            packets = 0;
            duplicate = false;
        }
        packets++;
        if (fresh || timestamp - this.timestamp >= 0) {
            this.psn = psn;
            this.timestamp = timestamp;
            this.peerContext = peerContext;
            this.peerEpoch = peerEpoch;
            this.mac = mac;
            this.ip = ip;
            this.port = port;
        }
        owed = true;
        return newly;
    }

    /** Packet {@code psn}, just noted, had been received before: the ACK reports it, so its sender learns its copy was spurious. */
    public void noteDuplicate(int psn) {
        duplicate = true;
        duplicatePsn = psn;
    }

    /** Nothing owed: the ACK left, or the context was reused for another peer. */
    public void clear() {
        owed = false;
        packets = 0;
        duplicate = false;
    }
}
