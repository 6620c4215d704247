package io.srdnic.srd.transport;

import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.wire.DropReason;
import io.srdnic.srd.wire.ParseError;
import java.util.LinkedHashMap;
import java.util.Map;

/** What one transport counted. Plain fields written by its thread; {@link #snapshot()} for reports. */
public final class SrdCounters {
    public long txData;
    public long txRetransmits;
    public long txAcks;
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
    public long peerResets;
    public long contextsCreated;
    public long contextsReclaimed;
    public long contextTableFull;
    public long unresponsiveEvents;
    public long noMbuf;
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
    /** RC packets dropped: no such RC QP, or the QP not ready to receive (before RTR, in ERROR). */
    public long rcRefused;
    /** RC packets from anyone but the QP's connected peer QP. */
    public long rcForeign;
    /** RC packets that arrived ahead of the expected PSN and waited in the reorder buffer. */
    public long rcHeldEarly;
    /** RC QPs failed with RETRY_EXCEEDED. */
    public long rcRetryExceeded;
    /** SRC request packets naming an SRQ number no SRQ of this device has (NAKed, the QP to ERROR). */
    public long srcUnknownSrq;
    /** SRC request packets naming an SRQ of another SRC domain than the QP's (NAKed, the QP to ERROR). */
    public long srcDomainMismatch;
    public final long[] parseErrors = new long[ParseError.VALUES.length];
    /** Drop indications this responder sent, by DropReason. */
    public final long[] dropsSent = new long[DropReason.REMOTE_ACCESS + 1];
    /** Drop indications this requester received, by DropReason. */
    public final long[] dropsReceived = new long[DropReason.REMOTE_ACCESS + 1];
    public final long[] sendCompletions = new long[WcStatus.COUNT];

    public long parseErrorsTotal() {
        long n = 0;
        for (long c : parseErrors) {
            n += c;
        }
        return n;
    }

    public Map<String, Long> snapshot() {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("tx_data", txData);
        m.put("tx_retransmits", txRetransmits);
        m.put("tx_acks", txAcks);
        m.put("tx_probes", txProbes);
        m.put("rx_data", rxData);
        m.put("rx_acks", rxAcks);
        m.put("rx_probes", rxProbes);
        m.put("delivered", delivered);
        m.put("duplicates", duplicates);
        m.put("out_of_window", outOfWindow);
        m.put("stale_acks", staleAcks);
        m.put("rto_events", rtoEvents);
        m.put("rack_losses", rackLosses);
        m.put("peer_resets", peerResets);
        m.put("contexts_created", contextsCreated);
        m.put("contexts_reclaimed", contextsReclaimed);
        m.put("context_table_full", contextTableFull);
        m.put("unresponsive_events", unresponsiveEvents);
        m.put("no_mbuf", noMbuf);
        m.put("request_table_full", requestTableFull);
        m.put("not_for_us", notForUs);
        m.put("bad_source", badSource);
        m.put("send_base_refused", sendBaseRefused);
        m.put("acks_refused", acksRefused);
        m.put("stale_destination", staleDestination);
        m.put("stale_incarnation", staleIncarnation);
        m.put("contexts_evicted", contextsEvicted);
        m.put("context_reincarnations", contextReincarnations);
        m.put("cq_overruns", cqOverruns);
        m.put("tx_datagrams", txDatagrams);
        m.put("rx_datagrams", rxDatagrams);
        m.put("datagrams_dropped", datagramsDropped);
        m.put("rdma_writes_placed", rdmaWritesPlaced);
        m.put("rdma_reads_answered", rdmaReadsAnswered);
        m.put("read_responses_placed", readResponsesPlaced);
        m.put("reads_deferred", readsDeferred);
        m.put("atomics_executed", atomicsExecuted);
        m.put("atomics_deferred", atomicsDeferred);
        m.put("read_responses_refused", readResponsesRefused);
        m.put("reads_timed_out", readsTimedOut);
        m.put("rc_refused", rcRefused);
        m.put("rc_foreign", rcForeign);
        m.put("rc_held_early", rcHeldEarly);
        m.put("rc_retry_exceeded", rcRetryExceeded);
        m.put("src_unknown_srq", srcUnknownSrq);
        m.put("src_domain_mismatch", srcDomainMismatch);
        for (ParseError e : ParseError.VALUES) {
            m.put("parse_" + e.name().toLowerCase(), parseErrors[e.ordinal()]);
        }
        for (int r = DropReason.BAD_DEST_QP; r <= DropReason.REMOTE_ACCESS; r++) {
            m.put("drops_sent_" + DropReason.name(r).toLowerCase(), dropsSent[r]);
            m.put("drops_received_" + DropReason.name(r).toLowerCase(), dropsReceived[r]);
        }
        for (int s = 0; s < WcStatus.COUNT; s++) {
            m.put("send_" + WcStatus.name(s).toLowerCase(), sendCompletions[s]);
        }
        return m;
    }
}
