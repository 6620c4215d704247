package io.srdnic.srd.transport.device;

import io.srdnic.srd.api.AsyncEventQueue;
import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.counters.SrdCounters;
import io.srdnic.srd.transport.engine.PathSet;
import io.srdnic.srd.transport.engine.ReliableSender;
import io.srdnic.srd.transport.port.CycleClock;
import io.srdnic.srd.transport.port.TxBurst;
import io.srdnic.srd.transport.rc.RcConnections;
import io.srdnic.srd.transport.srd.ActiveContexts;
import io.srdnic.srd.transport.srd.ContextTable;
import io.srdnic.srd.transport.srd.PathProbes;
import io.srdnic.srd.transport.srd.SendRequests;
import io.srdnic.srd.transport.srd.SrdContext;
import io.srdnic.srd.transport.srd.SrdRequester;
import io.srdnic.srd.transport.srd.SrdResponder;
import io.srdnic.srd.transport.srd.SrdRnrWaits;

/**
 * The transport's duty cycle, driven by {@link TransportDevice#doWork(long)} on one thread with the
 * time passed in (virtual time on the simulator): what was posted leaves first, then the ACKs
 * owed; the timers run (loss detection, probes, the transport timeout and REMOTE_UNRESPONSIVE, RNR
 * backoffs, RC's timers, housekeeping); the receive half ({@link PacketDispatcher}) comes last.
 * It also says when the next thing is due, for a driver that sleeps or jumps its clock.
 */
final class DutyCycle {
    private static final long HOUSEKEEPING_INTERVAL = 1_000_000;

    /**
     * How long an acknowledged SRD READ may go without data before it completes REMOTE_UNRESPONSIVE:
     * the answers come from the responder's own reliable sending half, which may go on resending one
     * for its retransmit lifetime (retry budget x rto-max) before giving up, so only silence longer
     * than that proves the answer will never come; a shorter limit failed READs whose responder
     * thread was merely descheduled on a busy host. At least the transport timeout.
     */
    private final long readSilenceLimit;

    private final TransportConfig config;
    private final TxBurst tx;
    private final PacketDispatcher dispatcher;
    private final SrdResponder responder;
    private final RcConnections rc;
    private final SrdRequester messages;
    private final ContextTable contexts;
    private final ActiveContexts active;
    private final SrdRnrWaits rnrWaits;
    private final PathProbes probes;
    private final SendRequests requests;
    private final SrdCounters counters;
    private final AsyncEventQueue events;
    private final CycleClock clock;

    /** When the last whole duty cycle ({@link #doWork}) ran. */
    private long lastCycle;
    private long lastHousekeeping;

    DutyCycle(TransportConfig config, TxBurst tx, PacketDispatcher dispatcher, SrdResponder responder, RcConnections rc,
            SrdRequester messages,
              ContextTable contexts, ActiveContexts active, SrdRnrWaits rnrWaits, PathProbes probes, SendRequests requests,
              SrdCounters counters, AsyncEventQueue events, CycleClock clock) {
        this.readSilenceLimit = Math.max(config.transportTimeoutNanos(), config.retransmitLifetimeNanos());
        this.config = config;
        this.tx = tx;
        this.dispatcher = dispatcher;
        this.responder = responder;
        this.rc = rc;
        this.messages = messages;
        this.contexts = contexts;
        this.active = active;
        this.rnrWaits = rnrWaits;
        this.probes = probes;
        this.requests = requests;
        this.counters = counters;
        this.events = events;
        this.clock = clock;
    }

    /**
     * One duty cycle at time {@code now}: send what was posted since the last cycle, then the ACKs
     * the last cycle owes; run the timers (a retransmission leaves at once); receive last. The
     * order keeps a round trip's critical path short on both ends: a reply the application has
     * just posted goes before anything else, and a packet just received reaches its completion
     * queue with nothing after it but the return to the application. Returns the work done.
     */
    int doWork(long now) {
        int work = transmitPosted(now);
        work += tx.pollReleased(); // memory the driver no longer reads (zero-copy sends): before the timers may resend from it
        if (now - lastCycle >= config.rtoMinNanos()) {
            // The thread was away (descheduled, a GC pause, an application that stopped polling) for
            // as long as an RTO can be: hear the ACKs that waited in the RX ring before the timers
            // judge anything lost, or every packet in flight goes again and each such pause spends
            // a transmission of every one from its retry budget.
            work += dispatcher.receive(now);
        }
        lastCycle = now;
        int timed = timers(now);
        if (timed > 0) {
            tx.flush();
        }
        work += timed + dispatcher.receive(now);
        tx.flush(); // probe replies, ACKs of loss signals, and ACKs when not delayed
        return work;
    }

    /**
     * The send half of a duty cycle: what was posted leaves now, then the ACKs owed. For the layer
     * above to call when it will not run a whole cycle (its completion queue still has entries) but
     * the application has posted. Returns the work done.
     */
    int transmitPosted(long now) {
        clock.start(now);
        int work = schedule(now);
        tx.flush();
        return owesAcks() ? work + sendOwedAcks() : work;
    }

    /** Whether an SRD context or an RC QP owes its peer an ACK (they leave with the next cycle). */
    private boolean owesAcks() {
        return responder.owesAcks() || rc.owesAcks();
    }

    /** Sends the ACKs owed, SRD's and RC's; returns how many. */
    private int sendOwedAcks() {
        int n = responder.sendOwedAcks() + (rc.owesAcks() ? rc.sendOwedAcks() : 0);
        tx.flush();
        return n;
    }

    /** Whether {@link #transmitPosted} has anything to do: frames built or owed, or a post since the last send. */
    boolean hasPostedWork() {
        return clock.posted() || !tx.isEmpty() || owesAcks();
    }

    /**
     * The earliest time something will be due without any packet arriving (a retransmission
     * timeout, a probe, an RNR retry, the transport timeout, an idle context's reclaim), or Long.MAX_VALUE. A simulation driver
     * that finds every host idle jumps its clock to the minimum of this and the network's next event.
     */
    long nextDeadline() {
        if (owesAcks()) {
            return clock.now(); // they leave with the next cycle
        }
        long next = rc.idle() ? Long.MAX_VALUE : rc.nextDeadline(clock.now());
        if (next == clock.now()) {
            return next;
        }
        for (int i = 0; i < active.count(); i++) {
            SrdContext ctx = active.at(i);
            ReliableSender s = ctx.sender;
            if (ctx.pendingCount > 0 && s.sendAllowance() > 0 && (s.canSendNextPsn() || s.inflight == 0)) {
                return clock.now();
            }
            next = Math.min(next, s.nextTimeout());
            next = Math.min(next, s.paths.nextDeadline());
            if (s.inflight > 0 && !s.unresponsive) {
                next = Math.min(next, s.lastProgress + config.transportTimeoutNanos());
            }
        }
        next = Math.min(next, rnrWaits.earliest());
        if (messages.hasReadsOutstanding()) {
            next = Math.min(next, lastHousekeeping + HOUSEKEEPING_INTERVAL); // a READ's data may stop coming
        }
        for (int i = 0; i < contexts.liveCount(); i++) {
            SrdContext ctx = contexts.live(i);
            if (!ctx.active) {
                // Reclaimed at the first housekeeping pass after it has been idle long enough.
                next = Math.min(next, Math.max(ctx.lastActivity + config.idleContextNanos(), lastHousekeeping + HOUSEKEEPING_INTERVAL));
            }
        }
        return next;
    }

    private int schedule(long now) {
        clock.scheduled();
        int work = 0;
        for (int i = 0; i < active.count(); i++) {
            SrdContext ctx = active.at(i);
            if (ctx.pendingCount == 0) {
                continue; // active for what it has in flight: nothing to send (every cycle of a round trip's wait)
            }
            ReliableSender sender = ctx.sender;
            int allowance = sender.sendAllowance();
            if (sender.inflight == 0) {
                // Nothing was outstanding: the wait for progress starts now, not at the last ACK.
                sender.lastProgress = now;
                if (now - ctx.lastHeard >= config.idleContextNanos() / 2) {
                    // Silent this long, the peer may have reclaimed its context (it does after
                    // idle-context without hearing from us) and would drop what names it: introduce
                    // ourselves afresh. Safe, since every PSN from here on is new, so no incarnation of
                    // the peer can have delivered it; until then, naming its context keeps a peer that
                    // restarted from taking up our retransmissions of what its predecessor may have delivered.
                    ctx.remoteContextId = 0;
                }
            }
            if (sender.inflight == 0 && !sender.canSendNextPsn()) {
                // A window of PSNs went by that the responder never acknowledged (failed or aborted
                // here): it would refuse a send base that far ahead. Start a later incarnation of this
                // context instead, which the responder takes up afresh.
                ctx.reincarnate(contexts.newContextId());
                counters.contextReincarnations++;
            }
            work += messages.schedule(ctx, allowance, now);
        }
        return rc.idle() ? work : work + rc.schedule(now);
    }

    private int timers(long now) {
        int work = 0;
        for (int i = 0; i < active.count(); ) {
            SrdContext ctx = active.at(i);
            ReliableSender sender = ctx.sender;
            work += sender.hasWindow() ? sender.detectLosses(now, messages) : 0;
            int path = sender.paths.probeDue(now);
            if (path != PathSet.NONE) {
                probes.probe(ctx, path, now);
                work++;
            }
            sender.paths.expireProbes(now);
            if (sender.inflight > 0 && !sender.unresponsive && now - sender.lastProgress >= config.transportTimeoutNanos()) {
                becameUnresponsive(ctx, now);
            }
            if (ctx.idle() && sender.paths.healthyCount() == sender.paths.count()) {
                active.removeAt(i);
            } else {
                i++;
            }
        }
        work += rnrWaits.resumeDue(now);
        if (!rc.idle()) { // a small test here, not a call, on a path every duty cycle takes
            work += rc.timers(now);
        }
        if (now - lastHousekeeping >= HOUSEKEEPING_INTERVAL) {
            work += housekeeping(now);
        }
        return work;
    }

    /**
     * What runs once per HOUSEKEEPING_INTERVAL: idle contexts reclaimed, READs whose data stopped
     * coming expired; returns the completions made. Out of {@link #timers}, which every duty cycle
     * runs, so that one stays small enough to compile well.
     */
    private int housekeeping(long now) {
        lastHousekeeping = now;
        reclaimIdleContexts(now);
        // READs silent up to the last time the RX ring was emptied, as for idle contexts: after a stall
        // of this thread the answers that kept coming are still in the ring, unread.
        return messages.hasReadsOutstanding() ? messages.expireSilentReads(clock.lastDrained(), readSilenceLimit) : 0;
    }

    private void reclaimIdleContexts(long now) {
        // Idle up to the last time the RX ring was emptied, not up to now: a thread that stalled
        // has not read what arrived meanwhile, retransmissions into this window among it.
        counters.contextsReclaimed += contexts.reclaimIdle(clock.lastDrained(), config.idleContextNanos());
    }

    /** {@code ctx} made no progress for the transport timeout: the application hears of it once, until progress resumes. */
    private void becameUnresponsive(SrdContext ctx, long now) {
        ctx.sender.unresponsive = true;
        counters.unresponsiveEvents++;
        events.raise(AsyncEventQueue.REMOTE_UNRESPONSIVE, stalledAddressHandle(ctx), ctx.remoteIp, now);
    }

    /** The address handle the oldest stalled request of {@code ctx} was posted through (what REMOTE_UNRESPONSIVE names). */
    private int stalledAddressHandle(SrdContext ctx) {
        int r = ctx.sender.oldestOwner();
        return r == ReliableSender.EMPTY ? 0 : requests.addressHandle[r];
    }
}
