package io.srdnic.srd.transport.engine;

import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.counters.SrdCounters;
import java.util.Arrays;

/**
 * The reliability engine of one flow's sending half, whatever the QP type above it: a 32-bit PSN
 * space; one packet descriptor per PSN in flight (its owner token, the segment of the owner it
 * carries, send times, path and transmission count); the transmissions in send order for
 * RACK-like and RTO loss detection; RTT, the congestion window and the paths it sprays over.
 * <p>
 * It knows nothing of messages: the layer above hands it (owner, segment) pairs, builds each
 * packet when told to {@link Listener#emit emit} one, and hears {@link Listener#acked acked} for
 * every packet the responder acknowledges and {@link Listener#exhausted exhausted} for one that ran
 * out of retries. Drop indications carry PSNs the layer above maps with {@link #owner(int)} and
 * takes out with {@link #forget(int)}.
 * <p>
 * The descriptor arrays are allocated on first use ({@link #ensureWindow}) and kept when the flow
 * is reused, so a flow that only ever received costs none. Owned by the transport's thread.
 */
public final class ReliableSender {
    public static final int EMPTY = -1;
    private static final long MIN_REORDER_WINDOW = 5_000;
    /** The shortest gap in the ACK stream, with packets in flight, that is taken for a silence (a stalled host) rather than spacing. */
    private static final long MIN_SILENCE = 20_000;

    /** What the layer above does with the packets of its owners. */
    public interface Listener {
        /**
         * Builds and sends packet {@code psn} (segment {@code segment} of {@code owner}), its
         * {@code xmit}-th transmission, on {@code path}.
         */
        void emit(ReliableSender flow, int psn, int owner, int segment, int path, int xmit, long now);

        /** The responder acknowledged packet {@code psn}: it has left the window. */
        void acked(ReliableSender flow, int psn, int owner, int segment);

        /** Packet {@code psn} is lost and out of retries or time; it is still in the window for the listener to forget. */
        void exhausted(ReliableSender flow, int psn, int owner, long now);
    }

    /** Which flow this is, for the listener (an SRD context's index). */
    public final int flow;
    private final int window;
    private int retryBudget;
    private long retransmitLifetime;
    /** A packet out of retries is given up only once this old as well (RC: the QP's retry_cnt x local ACK timeout); 0 for SRD. */
    private long minAgeToGiveUp;
    private final SrdCounters counters;

    int[] owner;
    int[] segment;
    long[] sendTime;
    /** When the packet under its current PSN first left: no copy of it leaves after {@link TransportConfig#retransmitLifetimeNanos()}. */
    long[] firstSendTime;
    int[] path;
    int[] transmissions;
    /** Which transmission of the flow each packet's latest was: the send-order queue names transmissions by it. */
    private int[] stamp;
    private int nextStamp;
    /** Held back by the layer above (RC: RNR-NAKed until the responder's timer runs out): neither lost nor timed out meanwhile. */
    private boolean[] held;
    int mask;
    public int nextPsn;
    public int sendBase;
    /** The highest cumulative PSN the responder has acknowledged: no PSN goes out a window or more past it. */
    public int peerCumulative;
    public int inflight;
    private long[] order;
    private int orderMask;
    private long orderHead;
    private long orderTail;
    public final RttEstimator rtt;
    public final DelayWindow cwnd;
    public final PathSet paths;
    /** The open loss episode's books, to undo it when its retransmissions prove spurious; made with the descriptors. */
    private SpuriousUndo undo;
    /** When the open loss episode began: the paths it made the flow avoid are given back if it is undone. */
    private long episodeStart;
    /** An RTO has cut the window since the last ACK that acknowledged anything: later ones in the same silence do not again. */
    private boolean timedOutSinceProgress;
    /**
     * F-RTO (RFC 5682) is deciding: an RTO sent only the oldest packet again and kept the rest back;
     * the next ACK that acknowledges anything tells whether the timeout was spurious.
     */
    private boolean frto;
    /** Packets sent no later than this had timed out when F-RTO began: one acknowledged without a copy proves the timeout spurious. */
    private long frtoTimedOut;
    /** The oldest packet, which F-RTO sent again: the timeout is judged spurious only once it is acknowledged too. */
    private int frtoPsn;
    /** Whether an ACK acknowledged anything since F-RTO began, and whether any such ACK proved the timeout spurious. */
    private boolean frtoAcked;
    private boolean frtoEvidence;
    /** No packet's RTO runs from earlier than this: F-RTO restarts the timers of the packets it kept back. */
    private long timerRestart = Long.MIN_VALUE / 2;
    /** When the last ACK came, and whether packets were still in flight behind it (its spacing to the next measures service time). */
    private long lastAckArrival;
    private boolean busyAfterLastAck;
    /** When the last packet left with nothing else in flight: no ACK was due before it. */
    private long busySince;
    /** When the ACK stream last resumed after a silence: RTT samples of packets sent before it measure the silence, not a queue. */
    private long silenceEnd = Long.MIN_VALUE / 2;
    long rackSendTime;
    /** The RTT sample of the ACK being taken in (-1: none), held until it is known how many packets that ACK acknowledged. */
    private long ackSample = -1;
    private long ackTime;
    /** The spacing to the last ACK, for the service time, held until it is known how many packets this ACK acknowledged (-1: none). */
    private long pendingSpacing = -1;
    /**
     * Until this time (while {@link #lossCheckValid}) no packet can be judged lost, so
     * {@link #detectLosses} returns at once: the oldest transmission in flight, checked at the end
     * of the last full pass, times out then, and RACK had not judged it lost. What could make a
     * loss due sooner clears the flag: an ACK's timing (it moves RACK's send time and the RTT), a
     * reset. So does a packet forgotten without an ACK, whose PSN only a full pass moves the send
     * base past. Nothing else can: an acknowledged oldest packet leaves a later one, due later, and
     * a new transmission queues behind the oldest. (A hold clears it too, though on a clock that
     * never goes back a held oldest packet also leaves a later one: it is cheap, and off the data
     * path.) The shortcut saves every duty cycle that waits on packets in flight (a round trip's
     * whole wait) the lookups of the oldest one. Callers of {@link #onAcknowledged} and
     * {@link #acknowledgeOne} move the send base themselves ({@link #advanceSendBase}): a skipped
     * pass does not.
     */
    private long lossCheckAt;
    private boolean lossCheckValid;
    /** A gap an RC sequence NAK named, waiting out its reorder window until gapDue (see {@link #noteGap}). */
    private boolean gapPending;
    private int gapFrom;
    private int gapTo;
    private long gapSent;
    private long gapDue;
    public long lastProgress;
    long lastBackoff;
    public boolean unresponsive;

    public long txPackets;
    public long retransmits;
    public long timeouts;
    public long rackLosses;

    public ReliableSender(int flow, TransportConfig config, SrdCounters counters) {
        this(flow, config, counters, config.paths());
    }

    /** A flow that sprays over {@code pathCount} paths (1: every packet on one path). */
    public ReliableSender(int flow, TransportConfig config, SrdCounters counters, int pathCount) {
        this.flow = flow;
        this.window = config.window();
        this.retryBudget = config.retryBudget();
        this.retransmitLifetime = config.retransmitLifetimeNanos();
        this.counters = counters;
        this.rtt = new RttEstimator(config.rtoInitialNanos(), config.rtoMinNanos(), config.rtoMaxNanos());
        this.cwnd = new DelayWindow(config.ccInitialWindow(), window, config.ccAdditiveIncrease(), config.ccBeta(), config.ccMaxDecrease(),
            config.ccTargetQueueingNanos());
        this.paths = new PathSet(pathCount, config.pathAvoidNanos(), flow);
    }

    /**
     * When a lost packet is given up: after {@code retries} retransmissions or {@code lifetime} since
     * its first transmission, whichever comes first, but never before it is {@code minAge} old.
     */
    public void giveUpAfter(int retries, long lifetime, long minAge) {
        this.retryBudget = retries;
        this.retransmitLifetime = lifetime;
        this.minAgeToGiveUp = minAge;
    }

    /** Starts afresh at {@code firstPsn}: nothing of a previous use remains. */
    public void reset(int firstPsn, long now) {
        nextPsn = firstPsn;
        sendBase = firstPsn;
        peerCumulative = firstPsn;
        inflight = 0;
        orderHead = 0;
        orderTail = 0;
        if (owner != null) {
            Arrays.fill(owner, EMPTY);
        }
        rtt.reset();
        cwnd.reset();
        paths.reset(flow);
        rackSendTime = now;
        ackSample = -1;
        if (undo != null) {
            undo.reset();
        }
        timedOutSinceProgress = false;
        frto = frtoAcked = frtoEvidence = false;
        timerRestart = Long.MIN_VALUE / 2;
        lastAckArrival = now;
        busyAfterLastAck = false;
        busySince = now;
        silenceEnd = Long.MIN_VALUE / 2;
        lossCheckValid = false;
        gapPending = false;
        lastProgress = now;
        lastBackoff = Long.MIN_VALUE / 2;
        unresponsive = false;
        txPackets = retransmits = timeouts = rackLosses = 0;
    }

    public boolean hasWindow() {
        return owner != null;
    }

    /** Allocates the descriptors the first time this flow sends. */
    public void ensureWindow() {
        if (owner == null) {
            owner = new int[window];
            segment = new int[window];
            sendTime = new long[window];
            firstSendTime = new long[window];
            path = new int[window];
            transmissions = new int[window];
            stamp = new int[window];
            held = new boolean[window];
            undo = new SpuriousUndo(window);
            mask = window - 1;
            order = new long[2 * window];
            orderMask = 2 * window - 1;
            Arrays.fill(owner, EMPTY);
        }
    }

    /** The owner of outstanding packet {@code psn}, or EMPTY (not sent, already acknowledged, or outside the window). */
    public int owner(int psn) {
        if (psn - sendBase < 0 || psn - nextPsn >= 0) {
            return EMPTY;
        }
        return owner[psn & mask];
    }

    public int segmentOf(int psn) {
        return segment[psn & mask];
    }

    /** Whether the next PSN may go out: inside the send window, and less than a window past what the responder acknowledged. */
    public boolean canSendNextPsn() {
        return nextPsn - sendBase < window && nextPsn - peerCumulative < window;
    }

    /** The packets congestion control lets into flight now. */
    public int sendAllowance() {
        return Math.min(cwnd.packets(), window) - inflight;
    }

    /** Gives segment {@code seg} of {@code own} the next PSN and sends it; returns the PSN. */
    public int send(int own, int seg, long now, Listener listener) {
        int psn = nextPsn++;
        int i = psn & mask;
        owner[i] = own;
        segment[i] = seg;
        transmissions[i] = 0;
        held[i] = false;
        firstSendTime[i] = now;
        if (inflight++ == 0) {
            busySince = now;
        }
        transmit(psn, now, PathSet.NONE, listener);
        return psn;
    }

    private void transmit(int psn, long now, int lostOnPath, Listener listener) {
        int i = psn & mask;
        int p = paths.choose(lostOnPath);
        sendTime[i] = now;
        path[i] = p;
        int xmit = ++transmissions[i];
        int st = nextStamp++;
        stamp[i] = st;
        recordTransmission(psn, st);
        paths.onTransmit(p);
        txPackets++;
        counters.txData++;
        listener.emit(this, psn, owner[i], segment[i], p, xmit, now);
    }

    /** Takes outstanding packet {@code psn} out of the window without an acknowledgement (a drop indication, an abort). */
    public void forget(int psn) {
        owner[psn & mask] = EMPTY;
        inflight--;
        lossCheckValid = false;
    }

    /** Takes every outstanding packet of {@code own} out of the window (its message ended early). */
    public void forgetAll(int own) {
        for (int psn = sendBase; psn != nextPsn; psn++) {
            if (owner[psn & mask] == own) {
                forget(psn);
            }
        }
        advanceSendBase();
    }

    /** The first outstanding packet's owner, or EMPTY. */
    public int oldestOwner() {
        for (int psn = sendBase; psn != nextPsn; psn++) {
            int o = owner[psn & mask];
            if (o != EMPTY) {
                return o;
            }
        }
        return EMPTY;
    }

    /**
     * Takes in the timing of an acknowledgement, before {@link #onAcknowledged}: one RTT sample,
     * of the packet whose timestamp it echoes, however many packets it acknowledges (per path too,
     * if that is the packet's latest transmission), and the send time RACK measures losses against.
     * The congestion window takes the sample in {@link #onAcknowledged}, with the packets acknowledged.
     */
    public void onAckTiming(int triggerPsn, long echoed, long now, long maxSample) {
        long sample = now - echoed;
        ackSample = -1;
        lossCheckValid = false;
        if (sample < 0 || sample >= maxSample) {
            return;
        }
        noteAckArrival(now);
        rtt.sample(sample, now);
        if (owner(triggerPsn) != EMPTY) {
            int i = triggerPsn & mask;
            if (sendTime[i] == echoed) {
                paths.onRtt(path[i], sample);
            } else if (transmissions[i] > 1 && firstSendTime[i] == echoed) {
                // Eifel (RFC 3522): the ACK answers the original, which arrived; the copies after it were not needed.
                frtoEvidence |= frto;
                proven(undo.onOriginalArrived(triggerPsn));
            }
        }
        // A packet sent before the ACK stream resumed from a silence waited out the silence (a
        // stalled host), not a queue: its delay says nothing the window should shrink for.
        ackSample = echoed - silenceEnd < 0 ? -1 : sample;
        ackTime = now;
        if (echoed - rackSendTime > 0) {
            rackSendTime = echoed;
        }
    }

    /**
     * An ACK arrived at {@code now}: its spacing to the last one, while packets stayed in flight,
     * is the packets' service time. The time packets were outstanding with no ACK before this one
     * is what the host showed of its stalls: it raises the RTO floor ({@link RttEstimator#noteSilence}),
     * and one longer than two RTTs is a silence (a host stalled), which the RTT samples of packets
     * sent before it ended must not be read as congestion.
     */
    private void noteAckArrival(long now) {
        long gap = now - lastAckArrival;
        if (inflight > 0) {
            long silence = now - Math.max(lastAckArrival, busySince);
            rtt.noteSilence(silence, now);
            if (silence > Math.max(2 * rtt.srtt(), MIN_SILENCE)) {
                silenceEnd = now;
            }
        }
        pendingSpacing = busySpacing(gap);
        lastAckArrival = now;
        busyAfterLastAck = false;
    }

    /** The gap since the last ACK, if the pipe stayed busy through it and it is no silence; else -1. */
    private long busySpacing(long gap) {
        return busyAfterLastAck && gap < rtt.srtt() ? gap : -1;
    }

    /**
     * Every outstanding packet below {@code cumulative}, and every one the selective bits name
     * (bit i of word w: PSN cumulative + 1 + 64w + i), is acknowledged; returns whether any was.
     * The congestion window then takes in the ACK's RTT sample ({@link #onAckTiming}) for every
     * packet acknowledged (for one, if the ACK brought no news).
     */
    public boolean onAcknowledged(int cumulative, long[] sack, Listener listener) {
        if (cumulative - peerCumulative > 0) {
            peerCumulative = cumulative;
        }
        int acked = 0;
        for (int psn = sendBase; psn - cumulative < 0 && psn - nextPsn < 0; psn++) {
            if (owner[psn & mask] != EMPTY) {
                acknowledge(psn, listener);
                acked++;
            }
        }
        for (int w = 0; w < sack.length; w++) {
            long bits = sack[w];
            while (bits != 0) {
                int bit = Long.numberOfTrailingZeros(bits);
                bits &= bits - 1;
                int psn = cumulative + 1 + 64 * w + bit;
                if (owner(psn) != EMPTY) {
                    acknowledge(psn, listener);
                    acked++;
                }
            }
        }
        if (acked > 0) {
            frtoAcked |= frto;
            timedOutSinceProgress = false;
            if (pendingSpacing > 0) {
                cwnd.onAckSpacing(pendingSpacing, acked);
            }
        }
        pendingSpacing = -1;
        busyAfterLastAck = inflight > 0;
        if (ackSample >= 0) {
            cwnd.onAck(ackSample, rtt.minRtt(), ackTime, Math.max(1, acked));
            ackSample = -1;
        }
        return acked > 0;
    }

    /**
     * The responder reports it received {@code psn} again (a duplicate report, as TCP's DSACK): if
     * this flow retransmitted it in the open loss episode, that retransmission was spurious.
     */
    public void onDuplicateReport(int psn) {
        if (undo != null) {
            int n = undo.onDuplicate(psn);
            frtoEvidence |= frto && n > 0;
            proven(n);
        }
    }

    /** {@code n} retransmissions proved spurious: once all of the episode's have, its window cut and RTO backoff are undone. */
    private void proven(int n) {
        if (n == 0) {
            return;
        }
        counters.spuriousRetransmits += n;
        if (undo.undoDue()) {
            undoEpisode();
            undo.end();
        }
    }

    /**
     * The open loss episode was spurious: the window cut and RTO backoff it caused are given back,
     * and the paths it made the flow avoid, which would otherwise stay avoided until a probe answered.
     * Counted once per episode, however many proofs arrive.
     */
    private void undoEpisode() {
        cwnd.restore(undo.savedWindow());
        rtt.undoBackoff(undo.savedBackoff());
        paths.forgiveSince(episodeStart);
        if (undo.firstUndo()) {
            counters.undos++;
        }
        lossCheckValid = false;
    }

    /**
     * F-RTO's decision, once an ACK since the timeout has acknowledged something: if one acknowledged
     * a packet that had timed out but was never sent again, or showed the copy sent at the timeout
     * unneeded (the original's timestamp echoed, a duplicate report), the ACK stream had only
     * stalled: the timeout was spurious, the packets kept back are not sent again (their timers run
     * from now) and the episode is undone. Otherwise the copy's ACK is all that came back: loss
     * recovery goes on as after any timeout (RACK judges the rest lost by the copy's send time, or
     * their restarted timers do). Proof that comes while the packet sent again is still not
     * acknowledged waits for it (RFC 5682 wants the cumulative ACK past it first): a packet stuck
     * at the front while later ones get through must not have its backoff given back at every expiry.
     */
    private void decideFrto(long now) {
        if (frtoEvidence && owner(frtoPsn) != EMPTY) {
            return;
        }
        frto = frtoAcked = false;
        if (frtoEvidence) {
            frtoEvidence = false;
            counters.frtoSpuriousTimeouts++;
            timerRestart = now;
            undoEpisode();
        }
    }

    /** When packet slot {@code i}'s retransmission timer started: its send time, or F-RTO's restart if later. */
    private long timerStart(int i) {
        long sent = sendTime[i];
        return sent - timerRestart < 0 ? timerRestart : sent;
    }

    /**
     * RACK's reordering window: a quarter RTT, widened by a quarter for each episode a duplicate
     * report showed spurious, up to a whole one (RFC 8985 §6.2).
     */
    public long reorderWindow() {
        int multiplier = undo == null ? 1 : undo.reorderMultiplier();
        long srtt = rtt.srtt();
        return Math.max(Math.min(srtt / 4 * multiplier, srtt), MIN_REORDER_WINDOW);
    }

    /** The packet {@code psn} is acknowledged alone (held at the responder): false if it was already. */
    public boolean acknowledgeOne(int psn, Listener listener) {
        if (owner(psn) == EMPTY) {
            return false;
        }
        acknowledge(psn, listener);
        return true;
    }

    private void acknowledge(int psn, Listener listener) {
        int i = psn & mask;
        if (frto && transmissions[i] == 1 && sendTime[i] - frtoTimedOut <= 0) {
            frtoEvidence = true; // it had timed out, and its only copy arrived: the timeout was spurious
        }
        int own = owner[i];
        owner[i] = EMPTY;
        inflight--;
        listener.acked(this, psn, own, segment[i]);
    }

    /**
     * RACK and RTO: a packet is lost once one sent sufficiently later has been acknowledged, or
     * when it has waited an RTO. A lost packet goes again on another path, unless it is out of
     * retries or time ({@link Listener#exhausted}). Returns the retransmissions.
     */
    public int detectLosses(long now, Listener listener) {
        int work = 0;
        if (frto && (frtoAcked || frtoEvidence)) {
            decideFrto(now);
        }
        if (gapPending && now - gapDue >= 0) {
            work += resendGap(now, listener);
        }
        if (lossCheckValid && now - lossCheckAt < 0) {
            advanceSendBase();
            return work;
        }
        lossCheckValid = false;
        long reorderWindow = reorderWindow();
        // The RTO that ran for every packet judged in this pass: a backoff during it is for the next expiry.
        long rto = rtt.rto();
        while (hasOrder()) {
            long e = order[(int) (orderHead & orderMask)];
            int psn = (int) (e >>> 32);
            if (!isCurrentTransmission(psn, (int) e)) {
                orderHead++;
                continue;
            }
            int i = psn & mask;
            long sent = sendTime[i];
            boolean lostByRack = rackSendTime - sent > reorderWindow;
            long timer = timerStart(i);
            boolean lostByTimeout = now - timer >= rto;
            if (!lostByRack && !lostByTimeout) {
                lossCheckAt = timer + rtt.rto();
                lossCheckValid = true;
                break;
            }
            int p = path[i];
            beginEpisodeIfNew(now, reorderWindow);
            if (lostByRack) {
                orderHead++;
                counters.rackLosses++;
                rackLosses++;
                paths.onLoss(p, now);
            } else {
                counters.rtoEvents++;
                timeouts++;
                paths.onTimeout(p, now);
                if (now - lastBackoff >= rtt.rto()) {
                    rtt.backOff();
                    if (!timedOutSinceProgress) {
                        // Once per silence: a stall that outlasts several RTOs cuts the window once, not to nothing.
                        cwnd.onTimeout(now);
                        timedOutSinceProgress = true;
                    }
                    lastBackoff = now;
                }
                // F-RTO (RFC 5682): only the oldest packet in flight goes again and the others' timers
                // restart; while no ACK comes each expiry sends the oldest again, as TCP's window of one
                // after a timeout. The next ACK tells an ACK stream that had stalled from a loss (decideFrto).
                if (!frto) {
                    frto = true;
                    frtoAcked = frtoEvidence = false;
                    frtoTimedOut = now - rto;
                }
                timerRestart = now;
                int oldest = oldestUnheld();
                frtoPsn = oldest;
                if (oldest != psn) {
                    resend(oldest, path[oldest & mask], now, listener); // this packet's entry stays, its timer restarted
                    work++;
                    continue;
                }
                orderHead++;
            }
            resend(psn, p, now, listener);
            work++; // a retransmission, or a completion made: work, for a driver deciding whether to sleep
        }
        advanceSendBase();
        return work;
    }

    /** The oldest packet in flight not held back (there is one: the caller's timed-out packet). */
    private int oldestUnheld() {
        for (int q = sendBase; q != nextPsn; q++) {
            int i = q & mask;
            if (owner[i] != EMPTY && !held[i]) {
                return q;
            }
        }
        throw new IllegalStateException("no packet in flight");
    }

    /** A loss found now opens a loss episode, unless one is open: its books save the window and backoff as they are. */
    private void beginEpisodeIfNew(long now, long reorderWindow) {
        if (undo.startsEpisode(sendBase, now, rtt.srtt() + reorderWindow)) {
            undo.begin(sendBase, cwnd.window(), rtt.backoff());
            episodeStart = now;
        }
    }

    /** Lost packet {@code psn} (last sent on path {@code p}) goes again, unless it is out of retries or time. */
    private void resend(int psn, int p, long now, Listener listener) {
        int i = psn & mask;
        long age = now - firstSendTime[i];
        if ((transmissions[i] > retryBudget || age >= retransmitLifetime) && age >= minAgeToGiveUp) {
            // Out of retries, or of time (a stalled thread): a copy leaving now could reach a
            // responder that forgot this flow, having waited for retransmissions only this long.
            listener.exhausted(this, psn, owner[i], now);
            return;
        }
        counters.txRetransmits++;
        retransmits++;
        if (undo.onRetransmit(psn, now)) {
            counters.lossEpisodes++;
        }
        transmit(psn, now, p, listener);
    }

    /**
     * The responder expects {@code psn} and has received packet {@code triggerPsn}, sent at
     * {@code triggerSent}, after it (an RC sequence NAK, as IB's NAK_PSN_SEQ_ERROR). Every packet from
     * {@code psn} up to the trigger still outstanding, not held back and last sent no later than the
     * trigger would have arrived before it on one path; sprayed over several, it may only be late. So
     * they are given a reorder window, as RACK gives its losses: those still not acknowledged then
     * are lost and go again ({@link #detectLosses}), long before a retransmission timeout would send
     * them. A second NAK before then widens the gap. Each resend is a retransmission of its packet,
     * counted against its retries as a timeout's would be (rxe spends retry_cnt on a sequence NAK too).
     */
    public void noteGap(int psn, int triggerPsn, long triggerSent, long now) {
        if (owner == null || triggerPsn - psn <= 0 || triggerPsn - nextPsn > 0) {
            return;
        }
        if (!gapPending) {
            gapPending = true;
            gapFrom = psn;
            gapTo = triggerPsn;
            gapSent = triggerSent;
            gapDue = now + reorderWindow();
        } else {
            gapFrom = psn - gapFrom < 0 ? psn : gapFrom;
            gapTo = triggerPsn - gapTo > 0 ? triggerPsn : gapTo;
            gapSent = triggerSent - gapSent > 0 ? triggerSent : gapSent;
        }
        lossCheckValid = false;
    }

    /** The gap a sequence NAK named, its reorder window over: what is still missing of it goes again. */
    private int resendGap(long now, Listener listener) {
        gapPending = false;
        int from = gapFrom - sendBase < 0 ? sendBase : gapFrom;
        beginEpisodeIfNew(now, reorderWindow());
        int n = 0;
        for (int q = from; q - gapTo < 0 && q - nextPsn < 0; q++) {
            int i = q & mask;
            if (owner[i] == EMPTY || held[i] || sendTime[i] - gapSent > 0) {
                continue; // acknowledged, held back by an RNR NAK, or sent again since the trigger left
            }
            paths.onLoss(path[i], now);
            resend(q, path[i], now, listener);
            n++;
        }
        return n;
    }

    /** When the oldest transmission in flight times out, or Long.MAX_VALUE. */
    public long nextTimeout() {
        long gap = gapPending ? gapDue : Long.MAX_VALUE;
        while (hasOrder()) {
            long e = order[(int) (orderHead & orderMask)];
            int psn = (int) (e >>> 32);
            if (isCurrentTransmission(psn, (int) e)) {
                return Math.min(gap, timerStart(psn & mask) + rtt.rto());
            }
            orderHead++;
        }
        return gap;
    }

    private boolean hasOrder() {
        return order != null && orderHead != orderTail;
    }

    private boolean isCurrentTransmission(int psn, int st) {
        return owner(psn) != EMPTY && stamp[psn & mask] == st;
    }

    /** Records a transmission of {@code psn} (stamped {@code st}) in send order. */
    private void recordTransmission(int psn, int st) {
        if (orderTail - orderHead > orderMask) {
            compactOrder();
        }
        order[(int) (orderTail++ & orderMask)] = ((long) psn << 32) | (st & 0xFFFF_FFFFL);
    }

    /**
     * Holds outstanding packet {@code psn} back: the responder refused it for now (an RNR NAK), so
     * it is neither lost nor timed out until {@link #resumeHeld} sends it again.
     */
    public void hold(int psn) {
        if (owner(psn) != EMPTY) {
            lossCheckValid = false;
            held[psn & mask] = true;
            stamp[psn & mask] = nextStamp++; // a stamp no send-order entry carries: its transmissions are no longer current
        }
    }

    /** Holds back every outstanding packet from {@code psn} on (an RC RNR NAK: the responder took none of them). */
    public void holdFrom(int psn) {
        for (int q = psn; q != nextPsn; q++) {
            hold(q);
        }
    }

    /**
     * Sends every held packet again, on a fresh clock: the wait was the responder's asking, not
     * silence, so it neither counts as a retry nor ages the packet. Returns how many went.
     */
    public int resumeHeld(long now, Listener listener) {
        int n = 0;
        for (int psn = sendBase; psn != nextPsn; psn++) {
            int i = psn & mask;
            if (owner[i] != EMPTY && held[i]) {
                held[i] = false;
                transmissions[i]--;
                firstSendTime[i] = now;
                transmit(psn, now, PathSet.NONE, listener);
                n++;
            }
        }
        return n;
    }

    /** Invalid (superseded or completed) entries are dropped lazily at the head; this clears the rest when full. */
    private void compactOrder() {
        long write = orderHead;
        for (long read = orderHead; read != orderTail; read++) {
            long e = order[(int) (read & orderMask)];
            if (isCurrentTransmission((int) (e >>> 32), (int) e)) {
                order[(int) (write++ & orderMask)] = e;
            }
        }
        orderTail = write;
        if (orderTail - orderHead > orderMask) {
            throw new IllegalStateException("send-order queue overflow: more packets in flight than twice the window");
        }
    }

    /** Moves the send base past every PSN that is no longer outstanding. */
    public void advanceSendBase() {
        while (sendBase != nextPsn && owner[sendBase & mask] == EMPTY) {
            sendBase++;
        }
    }
}
