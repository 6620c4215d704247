package io.srdnic.srd.counters;

import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.wire.DropReason;
import io.srdnic.srd.wire.ParseError;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What one transport counted. Plain fields written by its thread; {@link #snapshot()} for reports. */
public final class SrdCounters {
    public long txData;
    public long txRetransmits;
    public long txAcks;
    /** SRD ACKs sent (of tx_acks, which counts RC's too), and the data packets they answered: their ratio is the coalescing. */
    public long srdAcks;
    public long srdAckedPackets;
    public long txProbes;
    public long rxData;
    public long rxAcks;
    public long rxProbes;
    public long delivered;
    public long duplicates;
    public long outOfWindow;
    public long staleAcks;
    public long rtoEvents;
    public long rackLosses;
    /**
     * Retransmissions proven unneeded (the responder reported the copy as a duplicate, or an ACK
     * echoed the original's timestamp), and loss episodes undone because every retransmission in
     * them was: window and RTO backoff given back (RFC 3522 / 4015).
     */
    public long spuriousRetransmits;
    public long undos;
    /** Retransmission timeouts F-RTO (RFC 5682) found spurious: the ACKs after one acknowledged packets that timed out, sent once. */
    public long frtoSpuriousTimeouts;
    /** Loss episodes with a retransmission (a loss after a clean spell): those not among {@link #undos} held one not proven spurious. */
    public long lossEpisodes;
    public long peerResets;
    public long contextsCreated;
    public long contextsReclaimed;
    public long contextTableFull;
    public long unresponsiveEvents;
    public long noMbuf;
    /** Data packets whose payload left from the registered memory itself (an external buffer), not copied into the mbuf. */
    public long zeroCopyPackets;
    /** Frames whose UDP checksum the port computed (it offloads the checksum): 0 where the sum is done here. */
    public long udpChecksumsOffloaded;
    public long requestTableFull;
    /** SRD packets addressed to another IPv4 address (a promiscuous port on a shared segment). */
    public long notForUs;
    /** Packets from a source no peer can have: 0.0.0.0, broadcast, multicast/reserved, loopback, our own address. */
    public long badSource;
    /** Data packets whose send base is above their PSN, a window below it, or a window past the receive window. */
    public long sendBaseRefused;
    /** ACKs naming PSNs never sent (cumulative, selective bits or drop entries at or past the next PSN). */
    public long acksRefused;
    /** Data packets addressed to an earlier incarnation of our context. */
    public long staleDestination;
    /** Data packets of a sender incarnation earlier than the one the context follows. */
    public long staleIncarnation;
    /** Data packets of a new sender incarnation without the destination QP's Q_Key: answered with a drop, not followed. */
    public long unprovenIncarnation;
    /** Contexts on probation (never established) evicted to make room for a new source. */
    public long contextsEvicted;
    /** Sending halves restarted because a window of PSNs went by unacknowledged (the responder would refuse the base). */
    public long contextReincarnations;
    /** Completions that did not fit their CQ (each CQ raises CQ_ERROR once). */
    public long cqOverruns;
    /** UD datagrams sent, received, and received but dropped (no UD QP, Q_Key, no receive, too long). */
    public long txDatagrams;
    public long rxDatagrams;
    public long datagramsDropped;
    /** RDMA WRITE segments placed in this responder's memory. */
    public long rdmaWritesPlaced;
    /** RDMA READ requests this responder answered, and READ_RESPONSE segments the requester here placed. */
    public long rdmaReadsAnswered;
    public long readResponsesPlaced;
    /** READ requests left unacknowledged (so they come again) for want of a request slot to answer them from. */
    public long readsDeferred;
    /** RC atomics this responder executed (each exactly once: a duplicate is acknowledged, never run again). */
    public long atomicsExecuted;
    /** RC atomics left unexecuted and unacknowledged (so they come again) for want of an answer slot. */
    public long atomicsDeferred;
    /** READ_RESPONSE packets naming no read waiting here (one that failed or was flushed meanwhile), or out of its bounds. */
    public long readResponsesRefused;
    /** SRD READs acknowledged whose data stopped coming: completed REMOTE_UNRESPONSIVE. */
    public long readsTimedOut;
    /** Receives taken by a message after their memory region was deregistered: completed LOCAL_PROTECTION_ERROR, the message not placed. */
    public long receivesRegionGone;
    /** RC packets dropped: no such RC QP, or the QP not ready to receive (before RTR, in ERROR). */
    public long rcRefused;
    /** RC packets from anyone but the QP's connected peer QP. */
    public long rcForeign;
    /** RC packets that arrived ahead of the expected PSN and waited in the reorder buffer. */
    public long rcHeldEarly;
    /**
     * Early RC/SRC packets not held because the transport's reorder pool (rc-held-packets) was
     * full: dropped unacknowledged, sent again.
     */
    public long rcHeldPoolFull;
    /** RC QPs failed with RETRY_EXCEEDED. */
    public long rcRetryExceeded;
    /** SRC request packets naming an SRQ number no SRQ of this device has (NAKed, the QP to ERROR). */
    public long srcUnknownSrq;
    /** SRC request packets naming an SRQ of another SRC domain than the QP's (NAKed, the QP to ERROR). */
    public long srcDomainMismatch;
    public final long[] parseErrors = new long[ParseError.VALUES.length];
    /** Drop indications this responder sent, by DropReason. */
    public final long[] dropsSent = new long[DropReason.MAX + 1];
    /** Drop indications this requester received, by DropReason. */
    public final long[] dropsReceived = new long[DropReason.MAX + 1];
    public final long[] sendCompletions = new long[WcStatus.COUNT];

    public long parseErrorsTotal() {
        long n = 0;
        for (long c : parseErrors) {
            n += c;
        }
        return n;
    }

    /** The names of the scalar counters, in the order {@link #copyInto} stores them; the arrays' entries follow (see {@link #names()}). */
    private static final String[] SCALARS = {
        "tx_data",
        "tx_retransmits",
        "tx_acks",
        "tx_probes",
        "rx_data",
        "rx_acks",
        "rx_probes",
        "delivered",
        "duplicates",
        "out_of_window",
        "stale_acks",
        "rto_events",
        "rack_losses",
        "spurious_retransmits",
        "undos",
        "frto_spurious_timeouts",
        "loss_episodes",
        "peer_resets",
        "contexts_created",
        "contexts_reclaimed",
        "context_table_full",
        "unresponsive_events",
        "no_mbuf",
        "request_table_full",
        "not_for_us",
        "bad_source",
        "send_base_refused",
        "acks_refused",
        "stale_destination",
        "stale_incarnation",
        "unproven_incarnation",
        "contexts_evicted",
        "context_reincarnations",
        "cq_overruns",
        "tx_datagrams",
        "rx_datagrams",
        "datagrams_dropped",
        "rdma_writes_placed",
        "rdma_reads_answered",
        "read_responses_placed",
        "reads_deferred",
        "atomics_executed",
        "atomics_deferred",
        "read_responses_refused",
        "reads_timed_out",
        "receives_region_gone",
        "rc_refused",
        "rc_foreign",
        "rc_held_early",
        "rc_held_pool_full",
        "rc_retry_exceeded",
        "src_unknown_srq",
        "src_domain_mismatch",
        "srd_acks",
        "srd_acked_packets",
        "zero_copy_packets",
        "udp_checksums_offloaded"};

    private static final String[] NAMES = allNames();

    private static String[] allNames() {
        List<String> n = new ArrayList<>(List.of(SCALARS));
        for (ParseError e : ParseError.VALUES) {
            n.add("parse_" + e.name().toLowerCase());
        }
        for (int r = DropReason.BAD_DEST_QP; r <= DropReason.MAX; r++) {
            n.add("drops_sent_" + DropReason.name(r).toLowerCase());
            n.add("drops_received_" + DropReason.name(r).toLowerCase());
        }
        for (int s = 0; s < WcStatus.COUNT; s++) {
            n.add("send_" + WcStatus.name(s).toLowerCase());
        }
        return n.toArray(String[]::new);
    }

    /** Every counter's name ({@code tx_data}, {@code drops_received_bad_dest_qp}, ...), in {@link #copyInto} order. */
    public static String[] names() {
        return NAMES.clone();
    }

    /** How many values {@link #copyInto} stores. */
    public static int count() {
        return NAMES.length;
    }

    /** Copies every counter into {@code into} (at least {@link #count()} long), in {@link #names()} order; allocates nothing. */
    public void copyInto(long[] into) {
        int i = 0;
        into[i++] = txData;
        into[i++] = txRetransmits;
        into[i++] = txAcks;
        into[i++] = txProbes;
        into[i++] = rxData;
        into[i++] = rxAcks;
        into[i++] = rxProbes;
        into[i++] = delivered;
        into[i++] = duplicates;
        into[i++] = outOfWindow;
        into[i++] = staleAcks;
        into[i++] = rtoEvents;
        into[i++] = rackLosses;
        into[i++] = spuriousRetransmits;
        into[i++] = undos;
        into[i++] = frtoSpuriousTimeouts;
        into[i++] = lossEpisodes;
        into[i++] = peerResets;
        into[i++] = contextsCreated;
        into[i++] = contextsReclaimed;
        into[i++] = contextTableFull;
        into[i++] = unresponsiveEvents;
        into[i++] = noMbuf;
        into[i++] = requestTableFull;
        into[i++] = notForUs;
        into[i++] = badSource;
        into[i++] = sendBaseRefused;
        into[i++] = acksRefused;
        into[i++] = staleDestination;
        into[i++] = staleIncarnation;
        into[i++] = unprovenIncarnation;
        into[i++] = contextsEvicted;
        into[i++] = contextReincarnations;
        into[i++] = cqOverruns;
        into[i++] = txDatagrams;
        into[i++] = rxDatagrams;
        into[i++] = datagramsDropped;
        into[i++] = rdmaWritesPlaced;
        into[i++] = rdmaReadsAnswered;
        into[i++] = readResponsesPlaced;
        into[i++] = readsDeferred;
        into[i++] = atomicsExecuted;
        into[i++] = atomicsDeferred;
        into[i++] = readResponsesRefused;
        into[i++] = readsTimedOut;
        into[i++] = receivesRegionGone;
        into[i++] = rcRefused;
        into[i++] = rcForeign;
        into[i++] = rcHeldEarly;
        into[i++] = rcHeldPoolFull;
        into[i++] = rcRetryExceeded;
        into[i++] = srcUnknownSrq;
        into[i++] = srcDomainMismatch;
        into[i++] = srdAcks;
        into[i++] = srdAckedPackets;
        into[i++] = zeroCopyPackets;
        into[i++] = udpChecksumsOffloaded;
        for (long c : parseErrors) {
            into[i++] = c;
        }
        for (int r = DropReason.BAD_DEST_QP; r <= DropReason.MAX; r++) {
            into[i++] = dropsSent[r];
            into[i++] = dropsReceived[r];
        }
        for (int s = 0; s < WcStatus.COUNT; s++) {
            into[i++] = sendCompletions[s];
        }
    }

    public Map<String, Long> snapshot() {
        long[] values = new long[NAMES.length];
        copyInto(values);
        Map<String, Long> m = new LinkedHashMap<>();
        for (int i = 0; i < NAMES.length; i++) {
            m.put(NAMES[i], values[i]);
        }
        return m;
    }
}
