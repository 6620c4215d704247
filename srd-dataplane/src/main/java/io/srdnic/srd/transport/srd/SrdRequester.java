package io.srdnic.srd.transport.srd;

import io.srdnic.pmd.ExternalBuffers;
import io.srdnic.pmd.Mbuf;
import io.srdnic.srd.api.SendOpcode;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.counters.SrdCounters;
import io.srdnic.srd.transport.engine.ReliableSender;
import io.srdnic.srd.transport.port.CycleClock;
import io.srdnic.srd.transport.port.FrameWriter;
import io.srdnic.srd.transport.port.MemoryRegions;
import io.srdnic.srd.transport.port.TransportPort;
import io.srdnic.srd.transport.port.TxBurst;
import io.srdnic.srd.transport.qp.TransportQp;
import io.srdnic.srd.wire.DropReason;
import io.srdnic.srd.wire.PacketType;
import io.srdnic.srd.wire.RdmaHeader;
import io.srdnic.srd.wire.ReadResponseHeader;
import io.srdnic.srd.wire.SrdHeader;
import java.lang.foreign.MemorySegment;

/**
 * SRD's message layer on the reliability engine: what a send work request becomes on the wire and
 * when it completes. A SEND is one packet. An RDMA WRITE is cut into segments of the MTU less the
 * RDMA header, which go out as the window allows and may land in any order; it completes once
 * every one is acknowledged. A WRITE with immediate holds its last segment back until the others
 * are acknowledged, so the receive completion it raises at the responder finds the whole write in
 * place. A READ is one request packet; the responder answers it with READ_RESPONSE segments of its
 * own ({@link #answerRead}), and the read completes once the request is acknowledged and every
 * byte has arrived. Completions come in any order (SRD's weak ordering).
 * <p>
 * Requests live in {@link SendRequests}; the engine's owner token is the request's index.
 * <p>
 * A packet with at least {@code zero-copy-min-bytes} of payload leaves from the request's memory
 * itself where the port allows it ({@link TxBurst#attach}): the driver reads it there, so until it
 * has freed that packet the request neither completes (the application would reuse or free the
 * memory) nor is sent again nor gives up its slot; {@link #released} ends the wait.
 */
public final class SrdRequester implements ReliableSender.Listener, ExternalBuffers.Released {
    private final CycleClock clock;
    private final ContextTable contexts;
    private final SrdCounters counters;
    private final TxBurst tx;
    private final MemoryRegions regions;
    private final int epoch;
    private final FrameWriter frames;
    private final ActiveContexts active;
    private final SrdRnrWaits rnrWaits;
    private final SendRequests requests;
    private final int dataPerSegment;
    /** The smallest payload sent from the request's memory without a copy (where the port allows it). */
    private final int zeroCopyMin;
    /** READs posted and not finished: while there are any, housekeeping looks for one whose data stopped coming. */
    private int readsOutstanding;

    public SrdRequester(TransportPort port, ContextTable contexts, SendRequests requests, int mtu, FrameWriter frames,
                        ActiveContexts active, SrdRnrWaits rnrWaits, CycleClock clock, int zeroCopyMinBytes) {
        this.clock = clock;
        this.contexts = contexts;
        this.counters = port.counters;
        this.tx = port.tx;
        this.regions = port.regions;
        this.epoch = port.epoch;
        this.frames = frames;
        this.active = active;
        this.rnrWaits = rnrWaits;
        this.requests = requests;
        this.dataPerSegment = mtu - RdmaHeader.LENGTH;
        this.zeroCopyMin = tx.sendsExternalBuffers() ? zeroCopyMinBytes : Integer.MAX_VALUE;
    }

    /** Packets an RDMA message of {@code length} bytes takes (at least one). */
    int segmentsFor(int length) {
        return Math.max(1, (int) ((length + (long) dataPerSegment - 1) / dataPerSegment));
    }

    /** Sets up request {@code r} (its fields filled in) and queues it on {@code ctx}. */
    public void queue(SrdContext ctx, int r) {
        int op = requests.opcode[r];
        if (op == SendOpcode.SEND || op == SendOpcode.SEND_WITH_IMM) {
            requests.segments[r] = 1;
            requests.readLeft[r] = 0;
        } else {
            setUpRdma(r, op);
        }
        requests.state[r] = SendRequests.PENDING;
        ctx.appendPending(r, requests.next);
        active.add(ctx);
    }

    /**
     * An RDMA request's segments and, for a READ, the bytes to come back and the time of its last
     * progress. Apart from {@link #queue}, so the SEND that a latency round trip posts runs through
     * a method small enough for the JIT to inline whole.
     */
    private void setUpRdma(int r, int op) {
        requests.segments[r] = op == SendOpcode.RDMA_WRITE || op == SendOpcode.RDMA_WRITE_WITH_IMM
            || op == SendRequests.OP_READ_RESPONSE ? segmentsFor(requests.length[r]) : 1;
        requests.readLeft[r] = op == SendOpcode.RDMA_READ ? requests.length[r] : 0;
        if (op == SendOpcode.RDMA_READ) {
            readsOutstanding++;
            requests.readyAt[r] = clock.now(); // the time of its last progress, for expireSilentReads
        }
    }

    /** The segments of {@code r} that may have PSNs now: all, but a WRITE with immediate's last only once the rest are acknowledged. */
    private int sendableSegments(int r) {
        int segments = requests.segments[r];
        return requests.opcode[r] == SendOpcode.RDMA_WRITE_WITH_IMM && requests.nextSegment[r] < segments - 1 ? segments - 1 : segments;
    }

    /** Gives the waiting requests of {@code ctx} PSNs while the window allows; returns the packets sent. */
    public int schedule(SrdContext ctx, int allowance, long now) {
        ReliableSender sender = ctx.sender;
        int sent = 0;
        while (allowance > 0 && ctx.pendingCount > 0 && sender.canSendNextPsn()) {
            int r = ctx.pendingHead;
            if (requests.state[r] == SendRequests.CANCELLED) {
                ctx.popPending(requests.next);
                if (requests.endHeld[r]) {
                    requests.state[r] = SendRequests.NIC_HELD; // out of the queue; released() frees it
                } else {
                    requests.release(r);
                }
                continue;
            }
            int limit = sendableSegments(r);
            int segment = requests.nextSegment[r]++;
            if (requests.nextSegment[r] == limit) {
                ctx.popPending(requests.next);
                requests.state[r] = SendRequests.OUTSTANDING;
            }
            requests.inFlight[r]++;
            sender.send(r, segment, now, this);
            allowance--;
            sent++;
        }
        return sent;
    }

    // ---------------------------------------------------------------- the engine's events

    @Override
    public void emit(ReliableSender flow, int psn, int r, int segment, int path, int xmit, long now) {
        SrdContext ctx = contexts.at(flow.flow);
        ctx.lastActivity = now;
        // A retransmission of a zero-copy packet leaves from the same memory even while the driver
        // still reads it for an earlier copy: both only read it, each copy has its own ticket, and the
        // request neither completes nor gives up its memory until every ticket is back. Skipping it
        // instead cost a whole RTO round per lost packet of a request (a 1 MiB write lost in one
        // burst gave up REMOTE_UNRESPONSIVE where the copy path recovered in one RTO).
        long address = tx.take();
        if (address == 0) {
            return; // counted; the RTO sends it again
        }
        Mbuf m = tx.view.wrap(address);
        int op = requests.opcode[r];
        int type;
        int header = 0;
        long at = 0; // where this packet's data starts in the request
        int data;
        int status = 0;
        if (op == SendOpcode.SEND || op == SendOpcode.SEND_WITH_IMM) {
            type = op == SendOpcode.SEND ? PacketType.SEND : PacketType.SEND_WITH_IMM;
            data = requests.length[r];
        } else if (op == SendOpcode.RDMA_READ) {
            type = PacketType.RDMA_READ;
            header = RdmaHeader.LENGTH;
            data = 0;
            RdmaHeader.write(m, requests.remoteAddress[r], requests.rkey[r], requests.length[r], 0);
        } else {
            at = (long) segment * dataPerSegment;
            data = (int) Math.min(dataPerSegment, requests.length[r] - at);
            if (op == SendRequests.OP_READ_RESPONSE) {
                type = PacketType.READ_RESPONSE;
                header = ReadResponseHeader.LENGTH;
                if (!regions.isLive(requests.rkey[r])) {
                    // Deregistered while the read was being answered: the rest of it is refused, not sent.
                    status = DropReason.REMOTE_ACCESS;
                    data = 0;
                }
                ReadResponseHeader.write(m, requests.immediate[r], (int) at, requests.length[r], status);
            } else {
                type = op == SendOpcode.RDMA_WRITE_WITH_IMM && segment == requests.segments[r] - 1
                    ? PacketType.RDMA_WRITE_WITH_IMM : PacketType.RDMA_WRITE;
                header = RdmaHeader.LENGTH;
                RdmaHeader.write(m, requests.remoteAddress[r], requests.rkey[r], requests.length[r], (int) at);
            }
        }
        long tail = data >= zeroCopyMin ? attachPayload(r, at, data) : 0;
        if (data > 0 && tail == 0) {
            try {
                m.copyFrom(requests.buffer[r], requests.offset[r] + at, SrdHeader.PAYLOAD_OFFSET + header, data);
            } catch (IllegalStateException closedBuffer) {
                tx.giveBack(address);
                flow.forget(psn);
                requests.inFlight[r]--;
                finish(r, WcStatus.LOCAL_PROTECTION_ERROR);
                return;
            }
        }
        long headerSum = SrdHeader.write(m, type, xmit > 1 ? SrdHeader.FLAG_RETRANSMISSION : 0, header + data, ctx.id,
            ctx.remoteContextId, epoch, psn, flow.sendBase, requests.qp[r].qpn, requests.destQpn[r], requests.qkey[r],
            op == SendOpcode.RDMA_READ ? requests.token(r) : requests.immediate[r], now);
        if (tail == 0) {
            frames.onPath(m, ctx.remoteMac, ctx.remoteIp, ctx.remotePort, path, SrdHeader.LENGTH + header + data, headerSum);
        } else {
            frames.onPathChained(m, tx.external, ctx.remoteMac, ctx.remoteIp, ctx.remotePort, path, SrdHeader.LENGTH + header + data);
        }
        tx.emit(address);
    }

    /**
     * An mbuf pointing at the {@code data} bytes of request {@code r} from {@code at}, held for it
     * until the driver frees it; 0 (copy instead) for heap or closed memory, or no ticket or mbuf left.
     */
    private long attachPayload(int r, long at, int data) {
        long tail = tx.attach(requests.buffer[r], requests.offset[r] + at, data, this, r);
        if (tail != 0) {
            requests.nicHolds[r]++;
            counters.zeroCopyPackets++;
        }
        return tail;
    }

    /** The driver freed a packet sent from request {@code r}'s memory: an ended request waiting for that completes now. */
    @Override
    public void released(int r) {
        if (--requests.nicHolds[r] > 0 || !requests.endHeld[r]) {
            return;
        }
        requests.endHeld[r] = false;
        complete(r, requests.heldStatus[r]);
        if (requests.state[r] == SendRequests.NIC_HELD) {
            requests.release(r);
        } // else CANCELLED, still in its context's queue: schedule() frees it when it comes out
    }

    @Override
    public void acked(ReliableSender flow, int psn, int r, int segment) {
        requests.inFlight[r]--;
        if (requests.inFlight[r] > 0) {
            return;
        }
        int segments = requests.segments[r];
        if (requests.nextSegment[r] == segments) {
            if (requests.readLeft[r] == 0) {
                finish(r, WcStatus.SUCCESS);
            } else {
                requests.readyAt[r] = clock.now(); // acknowledged: its data is on the way from now
            }
        } else if (requests.state[r] == SendRequests.OUTSTANDING) {
            // A WRITE with immediate whose other segments have all landed: its last may go now.
            SrdContext ctx = contexts.at(flow.flow);
            requests.state[r] = SendRequests.PENDING;
            ctx.prependPending(r, requests.next);
            active.add(ctx);
        }
    }

    @Override
    public void exhausted(ReliableSender flow, int psn, int r, long now) {
        flow.forget(psn);
        requests.inFlight[r]--;
        finish(r, WcStatus.REMOTE_UNRESPONSIVE);
        // The responder may have lost this context (reclaimed or restarted) and drop what is
        // addressed to its old id: the next packets introduce themselves afresh.
        contexts.at(flow.flow).remoteContextId = 0;
    }

    /** The responder dropped packet {@code psn} of request {@code r} for {@code reason} (the engine has let it go). */
    void onDropIndication(SrdContext ctx, int r, int reason, long now) {
        counters.dropsReceived[reason]++;
        requests.inFlight[r]--;
        if (reason == DropReason.RNR && requests.rnrLeft[r] > 0 && requests.state[r] == SendRequests.OUTSTANDING
            && requests.inFlight[r] == 0) {
            // The PSN is spent at the responder; the packet goes again later under a new one.
            requests.nextSegment[r]--;
            rnrWaits.waitOut(ctx, r, now);
            return;
        }
        finish(r, switch (reason) {
            case DropReason.BAD_DEST_QP -> WcStatus.BAD_DEST_QP_ERROR;
            case DropReason.RNR -> WcStatus.RNR_ERROR;
            case DropReason.REMOTE_OPERATION -> WcStatus.REMOTE_OPERATION_ERROR;
            case DropReason.REMOTE_ACCESS -> WcStatus.REMOTE_ACCESS_ERROR;
            default -> WcStatus.REMOTE_INVALID_REQUEST_ERROR;
        });
    }

    /**
     * Ends request {@code r} wherever it is: its packets still in flight leave the window, and it
     * completes with {@code status} (silently when -1, or when the transport made it). A request
     * still linked in its context's queue stays there as CANCELLED until popped.
     */
    public void finish(int r, int status) {
        if (requests.endHeld[r]) {
            // Ended already, waiting for the driver: only a destroy changes that, to no completion.
            if (status < 0) {
                requests.heldStatus[r] = -1;
            }
            return;
        }
        int st = requests.state[r];
        SrdContext ctx = contexts.at(requests.context[r]);
        if (requests.inFlight[r] > 0) {
            ctx.sender.forgetAll(r);
            requests.inFlight[r] = 0;
        }
        if (st == SendRequests.RNR_WAIT) {
            rnrWaits.stop(ctx, r);
        }
        if (requests.opcode[r] == SendOpcode.RDMA_READ) {
            readsOutstanding--;
        }
        if (requests.nicHolds[r] > 0) {
            // The driver may have let go since the cycle began (net_memif frees inside the burst);
            // a destroy also asks it to free what it has sent, as the memory may go next.
            if (status < 0) {
                tx.reclaim();
            } else {
                tx.pollReleased();
            }
        }
        if (requests.nicHolds[r] > 0) {
            requests.endHeld[r] = true;
            requests.heldStatus[r] = status;
            requests.state[r] = st == SendRequests.PENDING ? SendRequests.CANCELLED : SendRequests.NIC_HELD;
            return;
        }
        complete(r, status);
        if (st == SendRequests.PENDING) {
            requests.state[r] = SendRequests.CANCELLED;
        } else {
            requests.release(r);
        }
    }

    /** Request {@code r}'s completion with {@code status} (none when -1, or for the transport's own requests). */
    private void complete(int r, int status) {
        TransportQp qp = requests.qp[r];
        int op = requests.opcode[r];
        if (op == SendRequests.OP_READ_RESPONSE) {
            // Ours, not the application's: nothing to complete.
        } else if (status >= 0 && !qp.destroyed) { // destroyed while the driver held the memory: dropped, as a destroy drops
            counters.sendCompletions[status]++;
            qp.completeSend(requests.wrId[r], SendOpcode.completionOpcode(op), status, requests.length[r], requests.signaled[r]);
        } else {
            qp.sqOutstanding--;
        }
    }

    // ---------------------------------------------------------------- RDMA READ, both ends

    public boolean hasReadsOutstanding() {
        return readsOutstanding > 0;
    }

    /**
     * Requester: a READ whose request was acknowledged waits for data the responder sends in its
     * own packets; if none has come for {@code timeout} (the responder's QP was destroyed, or it
     * restarted, mid-answer), the READ completes REMOTE_UNRESPONSIVE rather than wait for ever.
     * Returns how many did.
     */
    public int expireSilentReads(long now, long timeout) {
        int expired = 0;
        for (int r = 0; r < requests.capacity && readsOutstanding > 0; r++) {
            if (requests.opcode[r] == SendOpcode.RDMA_READ && requests.state[r] == SendRequests.OUTSTANDING && requests.inFlight[r] == 0
                && requests.nextSegment[r] == requests.segments[r] && now - requests.readyAt[r] >= timeout) {
                counters.readsTimedOut++;
                finish(r, WcStatus.REMOTE_UNRESPONSIVE);
                expired++;
            }
        }
        return expired;
    }

    /**
     * Responder: answers a checked READ of {@code length} bytes of region {@code rkey} (at
     * {@code address}, which is {@code offset} into its memory) with READ_RESPONSE segments from
     * this context's own sending half. Returns false, having taken nothing, when no request slot is
     * free: the READ is then left unacknowledged and comes again.
     */
    boolean answerRead(SrdContext ctx, TransportQp qp, int requesterQpn, int token, int rkey, MemorySegment memory,
                       long offset, int length) {
        if (length == 0) {
            counters.rdmaReadsAnswered++;
            return true; // nothing to send: the READ's acknowledgement completes it
        }
        int r = requests.take();
        if (r < 0) {
            counters.readsDeferred++;
            return false;
        }
        ctx.ensureRequester();
        requests.opcode[r] = SendRequests.OP_READ_RESPONSE;
        requests.addressHandle[r] = -1; // none: else the slot's last send's, whose destroy would flush this answer
        requests.qp[r] = qp;
        requests.context[r] = ctx.index;
        requests.destQpn[r] = requesterQpn;
        requests.qkey[r] = 0;
        requests.immediate[r] = token;
        requests.rkey[r] = rkey;
        requests.buffer[r] = memory;
        requests.offset[r] = offset;
        requests.length[r] = length;
        requests.signaled[r] = false;
        requests.rnrLeft[r] = 0;
        queue(ctx, r);
        counters.rdmaReadsAnswered++;
        return true;
    }

    /** The READ of {@code ctx} still waiting for data that READ_RESPONSE {@code m} fits, or -1: a response to nothing we asked. */
    int readAnswered(Mbuf m, SrdContext ctx) {
        int r = requests.byToken(ReadResponseHeader.token(m));
        int data = SrdHeader.payloadLength(m) - ReadResponseHeader.LENGTH;
        int at = ReadResponseHeader.readOffset(m);
        if (r < 0 || requests.opcode[r] != SendOpcode.RDMA_READ || requests.context[r] != ctx.index
            || requests.qp[r].qpn != SrdHeader.destinationQpn(m) || requests.state[r] == SendRequests.CANCELLED
            || ReadResponseHeader.readLength(m) != requests.length[r] || at < 0 || data > requests.readLeft[r]
            || (long) at + data > requests.length[r]) {
            return -1;
        }
        return r;
    }

    /**
     * Requester: places a READ_RESPONSE segment in the read it names, which must be one of ours,
     * waiting, sent to this context from the QP the segment is addressed to, and hold the segment.
     * Returns 0 or the DropReason the responder hears.
     */
    int placeReadResponse(Mbuf m, SrdContext ctx) {
        int r = readAnswered(m, ctx);
        if (r < 0) {
            counters.readResponsesRefused++;
            return DropReason.REMOTE_INVALID_REQUEST;
        }
        int data = SrdHeader.payloadLength(m) - ReadResponseHeader.LENGTH;
        int at = ReadResponseHeader.readOffset(m);
        int status = ReadResponseHeader.status(m);
        if (status != 0) {
            finish(r, status == DropReason.REMOTE_ACCESS ? WcStatus.REMOTE_ACCESS_ERROR : WcStatus.REMOTE_OPERATION_ERROR);
            return 0;
        }
        try {
            m.copyTo(ReadResponseHeader.DATA_OFFSET, requests.buffer[r], requests.offset[r] + at, data);
        } catch (IllegalStateException closedBuffer) {
            finish(r, WcStatus.LOCAL_PROTECTION_ERROR);
            return 0;
        }
        counters.readResponsesPlaced++;
        requests.readLeft[r] -= data;
        requests.readyAt[r] = clock.now();
        if (requests.readLeft[r] == 0 && requests.inFlight[r] == 0 && requests.nextSegment[r] == requests.segments[r]) {
            finish(r, WcStatus.SUCCESS);
        }
        return 0;
    }
}
