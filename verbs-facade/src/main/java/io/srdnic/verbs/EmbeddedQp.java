package io.srdnic.verbs;

import io.srdnic.srd.api.QpAttributes;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.SendOpcode;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.transport.device.TransportDevice;
import io.srdnic.srd.transport.device.TransportQpAttributes;
import io.srdnic.srd.transport.port.GatherList;
import io.srdnic.srd.transport.port.WorkRequest;
import io.srdnic.srd.transport.rc.DeviceQp;
import io.srdnic.srd.transport.rc.SrcDomain;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * An embedded QP: the transport's {@link DeviceQp}. Runs the checks of a post that complete with a
 * status (a wrong opcode for the type, an SGE outside its region, a message over the MTU), gathers
 * INLINE bytes, and on SRD and UD several SGEs, into a staging slot of the QP, recycled when the
 * transport is done with it, and hands the post to the dataplane (an RC or SRC SEND or WRITE of
 * several SGEs goes as its gather list: the transport walks it, up to RC's maximum message size).
 */
final class EmbeddedQp implements VerbsProvider.Qp {
    private final EmbeddedProvider provider;
    private final ContextDriver dataplane;
    private final QueuePair owner;
    private final DeviceQp qp;
    /** XRC_SEND: the SRC domain the transport requires of an SRC QP, its own (no SRQ ever names it). */
    private SrcDomain ownDomain;
    /**
     * Sends posted (written by the one posting thread: the ring has one producer) and released (by the
     * transport's thread): one writer each, so a post and a release cost a store rather than an atomic
     * read-modify-write on a shared counter; what is outstanding is their difference.
     */
    private final AtomicInteger sendsPosted = new AtomicInteger();
    private final AtomicInteger sendsReleased = new AtomicInteger();
    private final AtomicInteger receivesPosted = new AtomicInteger();
    /**
     * Where gathered and INLINE sends are staged: freed by the garbage collector once neither this QP
     * nor a post still in flight refers to it, never closed by destroy, since a post racing the
     * destroy on another thread may be copying into it, or the driver reading from it (issue 25 rule 6).
     */
    private MemorySegment staging;
    private final int[] freeStaging;
    private int freeStagingCount;
    /** Staging slots the dataplane thread gave back, for the posting thread to pick up. */
    private final AtomicIntegerArray returnedStaging;
    private final AtomicInteger returnedHead = new AtomicInteger();
    private int returnedRead;
    /** The straight path's gather list (an RC or SRC SEND or WRITE of several SGEs), made at its first use. */
    private GatherList gather;
    /** The request a post on the served path (the dataplane's lcore) is mapped into: reused. */
    private WorkRequest served;

    EmbeddedQp(EmbeddedProvider provider, QueuePair owner, XrcDomain xrcd, boolean management) {
        this.provider = provider;
        this.dataplane = provider.dataplane;
        this.owner = owner;
        this.freeStaging = new int[owner.maxSendWr];
        this.returnedStaging = new AtomicIntegerArray(Integer.highestOneBit(owner.maxSendWr) << 1);
        this.qp = dataplane.call(() -> management
            ? dataplane.transport.createManagementQp(owner.pd.id, owner.maxSendWr, owner.maxRecvWr, EmbeddedProvider.ring(owner.sendCq),
                EmbeddedProvider.ring(owner.recvCq))
            : create(xrcd));
        qp.onSendRelease(this::released);
        useCqs(1);
    }

    /** Counts this QP as a user of its CQs, which refuse to be destroyed while it lives (EBUSY; attached, the dataplane counts). */
    private void useCqs(int delta) {
        if (owner.sendCq != null) {
            owner.sendCq.users.addAndGet(delta);
        }
        if (owner.recvCq != null) {
            owner.recvCq.users.addAndGet(delta);
        }
    }

    /** On the dataplane thread: the transport's QP for this one. */
    private DeviceQp create(XrcDomain xrcd) {
        TransportDevice t = dataplane.transport;
        if (owner.xrcType == XrcQpType.XRC_SEND) {
            ownDomain = t.createSrcDomain();
            return t.createQp(new TransportQpAttributes(QpType.SRC).pd(owner.pd.id).sqDepth(owner.maxSendWr).srcDomain(ownDomain)
                .sendCq(EmbeddedProvider.ring(owner.sendCq)));
        }
        if (owner.xrcType == XrcQpType.XRC_RECV) {
            // No send queue: its CQ would only ever see completions of work nobody can post.
            return t.createQp(new TransportQpAttributes(QpType.SRC).pd(owner.pd.id).sqDepth(1).srcDomain(EmbeddedProvider.domain(xrcd))
                .sendCq(new io.srdnic.srd.api.CompletionQueue(1))); // fully qualified: the facade has one too
        }
        TransportQpAttributes attributes = new TransportQpAttributes(owner.type).pd(owner.pd.id).sqDepth(owner.maxSendWr)
            .sendCq(EmbeddedProvider.ring(owner.sendCq)).recvCq(EmbeddedProvider.ring(owner.recvCq));
        return t.createQp(owner.srq == null ? attributes.rqDepth(owner.maxRecvWr)
            : attributes.srq(EmbeddedProvider.transportSrq(owner.srq)));
    }

    @Override
    public int qpNum() {
        return qp.qpn();
    }

    /** The transport's QP (for {@link EmbeddedObjects}). */
    DeviceQp transportQp() {
        return qp;
    }

    @Override
    public void modify(QpState next, int qkey) {
        apply(() -> qp.modify(next, qkey));
    }

    @Override
    public void modify(QpAttributes complete) {
        apply(() -> qp.modify(complete));
    }

    private void apply(Runnable modify) {
        QpState now;
        try {
            now = dataplane.call(() -> {
                // Posts made before this modify reach the transport before it: a move to SQD then
                // drains them rather than refusing them.
                dataplane.runPostedFirst();
                modify.run();
                return qp.state();
            });
        } catch (IllegalStateException | IllegalArgumentException e) {
            throw new VerbsException(e.getMessage());
        }
        owner.state = now;
        if (now == QpState.RESET || now == QpState.ERROR) {
            receivesPosted.set(0);
        }
    }

    @Override
    public QpAttributes query() {
        return dataplane.call(() -> qp.query(new QpAttributes()));
    }

    @Override
    public void rnrRetry(int retries) {
        dataplane.call(() -> {
            qp.rnrRetry(retries);
            return null;
        });
    }

    @Override
    public int postSend(SendWr wr, int ah) {
        return postSend(wr, ah, false);
    }

    /**
     * {@code straight}: the caller is the transport's thread (the dataplane process's lcore, which
     * drives this context itself), and the checked post goes to the transport at once
     * ({@link TransportPost}), with no post slot; else through the context's driver.
     */
    int postSend(SendWr wr, int ah, boolean straight) {
        if (sendsPosted.getPlain() - sendsReleased.getAcquire() >= owner.maxSendWr) {
            return QueuePair.ENOMEM;
        }
        boolean connected = owner.type.connected();
        boolean signaled = owner.sqSigAll || (wr.flags & SendWr.SIGNALED) != 0;
        int total = wr.totalLength();
        boolean rdma = SendOpcode.isRdma(wr.opcode);
        boolean atomic = SendOpcode.isAtomic(wr.opcode);
        // Atomics are RC's alone: SRD delivers in any order and keeps no answer per request.
        if (!SendOpcode.isValid(wr.opcode) || (rdma && owner.type == QpType.UD) || (atomic && !connected)) {
            dataplane.completeLocally(qp, wr.wrId, WcStatus.LOCAL_QP_OPERATION_ERROR, total);
            return 0;
        }
        if (wr.lengthsOverflow()) {
            dataplane.completeLocally(qp, wr.wrId, WcStatus.LOCAL_LENGTH_ERROR, 0);
            return 0;
        }
        boolean read = wr.opcode == SendWr.OP_RDMA_READ;
        // An RC or SRC WRITE may gather (the transport walks its SGEs, rule 5 of issue 25).
        boolean oneSgeRdma = rdma && (read || !connected);
        if (wr.numSge > owner.maxSendSge || (atomic && wr.numSge != 1) || (oneSgeRdma && wr.numSge != (total == 0 ? wr.numSge : 1))) {
            // READs and atomics land in one registered buffer, SRD's RDMA goes from one: no gather or scatter here;
            // a zero-byte READ or WRITE may come with no SGE at all (IBTA C9-88).
            dataplane.completeLocally(qp, wr.wrId, WcStatus.LOCAL_QP_OPERATION_ERROR, total);
            return 0;
        }
        if (atomic) {
            return postAtomic(wr, total, signaled, straight);
        }
        boolean inline = (wr.flags & SendWr.INLINE) != 0;
        if (inline) {
            owner.checkInline(wr, total);
        }
        // Inline bytes are copied below, now, and name no region (verbs ignores an inline SGE's
        // lkey); the others must lie in a region of this QP's PD. A READ's response is written into its SGE.
        if (inline ? inlineRefused(wr, total) : sgeRefused(wr, read, total)) {
            return 0;
        }
        MemorySegment buffer;
        long offset;
        int mtu = provider.mtu();
        boolean gathers = connected && !inline && wr.numSge > 1;
        if ((wr.numSge == 1 && !inline) || gathers) {
            // One SGE goes from where it is; on RC and SRC so do several: the transport gathers them into its
            // packets, up to the maximum message size, as rxe's requester walks a WQE's SGE list.
            buffer = wr.sges[0].segment;
            offset = wr.sges[0].offset;
        } else if (total == 0 && rdma) {
            buffer = MemorySegment.NULL; // nothing to send from or read into
            offset = 0;
        } else if (total > mtu) {
            buffer = MemorySegment.NULL;
            offset = 0;
        } else {
            int slot = takeStaging();
            buffer = staging;
            offset = (long) slot * mtu;
            long at = offset;
            for (int i = 0; i < wr.numSge; i++) {
                Sge s = wr.sges[i];
                MemorySegment.copy(s.segment, s.offset, staging, at, s.length);
                at += s.length;
            }
        }
        sendsPosted.setRelease(sendsPosted.getPlain() + 1);
        return post(handOff(wr, ah, buffer, offset, total, signaled, gathers, straight), buffer, offset);
    }

    /** The checked post to the transport: at once ({@code straight}), or through the context's driver. A POST_* code. */
    private int handOff(SendWr wr, int ah, MemorySegment buffer, long offset, int length, boolean signaled, boolean gathers,
                        boolean straight) {
        if (!straight) {
            return dataplane.postSend(qp, wr, ah, buffer, offset, length, signaled, gathers);
        }
        if (gathers && gather == null) {
            gather = new GatherList(); // once per QP, at its first gathered post
        }
        if (served == null) {
            served = new WorkRequest(); // once per QP, at its first post on the served path
        }
        return TransportPost.send(dataplane.transport, qp, served, wr, ah, buffer, offset, length, signaled, gathers ? gather : null);
    }

    /**
     * An atomic checked as far as its opcode and SGE count: the rest of its checks, then the post.
     * Apart from {@link #postSend}, whose SEND path every round trip takes.
     */
    private int postAtomic(SendWr wr, int total, boolean signaled, boolean straight) {
        QueuePair.checkAtomic(wr);
        if (total != SendOpcode.ATOMIC_SIZE) {
            dataplane.completeLocally(qp, wr.wrId, WcStatus.LOCAL_LENGTH_ERROR, total);
            return 0;
        }
        if (sgeRefused(wr, true, total)) { // the original value is written into the SGE
            return 0;
        }
        Sge s = wr.sges[0];
        sendsPosted.setRelease(sendsPosted.getPlain() + 1);
        return post(handOff(wr, 0, s.segment, s.offset, SendOpcode.ATOMIC_SIZE, signaled, false, straight), s.segment, s.offset);
    }

    /**
     * Whether an SGE of {@code wr} lies outside a region of this QP's PD, or, where the response
     * {@code landsLocally}, in one without LOCAL_WRITE: then the request completes at once with
     * LOCAL_PROTECTION_ERROR.
     */
    private boolean sgeRefused(SendWr wr, boolean landsLocally, int total) {
        for (int i = 0; i < wr.numSge; i++) {
            Sge s = wr.sges[i];
            MemoryRegion mr = owner.context.region(s.lkey);
            if (mr == null || mr.pd != owner.pd || s.segment == null || !mr.covers(s.segment, s.offset, s.length)
                || (landsLocally && (mr.access & Access.LOCAL_WRITE) == 0)) {
                dataplane.completeLocally(qp, wr.wrId, WcStatus.LOCAL_PROTECTION_ERROR, total);
                return true;
            }
        }
        return false;
    }

    /** An inline SGE naming no memory, or bytes outside its segment: LOCAL_PROTECTION_ERROR, as a region check would. */
    private boolean inlineRefused(SendWr wr, int total) {
        for (int i = 0; i < wr.numSge; i++) {
            Sge s = wr.sges[i];
            if (s.segment == null || s.offset < 0 || s.length < 0 || s.offset > s.segment.byteSize() - s.length) {
                dataplane.completeLocally(qp, wr.wrId, WcStatus.LOCAL_PROTECTION_ERROR, total);
                return true;
            }
        }
        return false;
    }

    /** The transport's answer {@code rc} to a post counted in sendsPosted: 0, ENOMEM, or the misuse it names. */
    private int post(int rc, MemorySegment buffer, long offset) {
        if (rc == TransportDevice.POST_OK) {
            return 0;
        }
        unposted(buffer, offset);
        if (rc == TransportDevice.POST_SQ_FULL || rc == TransportDevice.POST_NO_RESOURCES) {
            return QueuePair.ENOMEM;
        }
        if (rc == TransportDevice.POST_BAD_QP_STATE) {
            owner.state = qp.state();
            throw new VerbsException("QP " + qpNum() + " is in " + owner.state + ": sends need RTS (in ERROR they are flushed)");
        }
        throw new VerbsException("post refused by the transport (code " + rc + ")");
    }

    @Override
    public int postRecv(RecvWr wr) {
        if (receivesPosted.get() >= owner.maxRecvWr) {
            return QueuePair.ENOMEM;
        }
        Sge s = wr.sge;
        receivesPosted.incrementAndGet();
        if (!dataplane.postRecv(qp, wr.wrId, s.segment, s.offset, s.length, s.lkey)) {
            receivesPosted.decrementAndGet();
            return QueuePair.ENOMEM;
        }
        return 0;
    }

    /** A receive of this QP's own queue completed and was polled (an SRQ's or an XRC QP's are counted elsewhere). */
    void receiveConsumed() {
        if (owner.srq == null && owner.xrcType == null) {
            receivesPosted.decrementAndGet();
        }
    }

    @Override
    public int sendsOutstanding() {
        int released = sendsReleased.getAcquire(); // first: every send released was posted before, so this is never negative
        return sendsPosted.getAcquire() - released;
    }

    @Override
    public void destroy() {
        owner.destroyed = true; // before the dataplane call: a post racing the destroy is refused, not lost
        dataplane.call(() -> {
            qp.destroy();
            if (ownDomain != null) {
                ownDomain.destroy();
            }
            return null;
        });
        provider.unregisterQp(this);
        useCqs(-1);
    }

    private int takeStaging() {
        if (staging == null) {
            staging = Arena.ofAuto().allocate((long) owner.maxSendWr * provider.mtu(), 64);
            for (int i = owner.maxSendWr - 1; i >= 0; i--) {
                freeStaging[freeStagingCount++] = i;
            }
        }
        int mask = returnedStaging.length() - 1;
        int head = returnedHead.get();
        while (returnedRead != head) {
            freeStaging[freeStagingCount++] = returnedStaging.get(returnedRead & mask);
            returnedRead++;
        }
        return freeStaging[--freeStagingCount];
    }

    /**
     * A post the transport refused: not counted, and its staging slot straight back on the free list.
     * The posting thread, which owns both (the dataplane thread's release path is not taken here, so
     * each counter and the returned-slot ring keep their one writer).
     */
    private void unposted(MemorySegment buffer, long offset) {
        sendsPosted.setRelease(sendsPosted.getPlain() - 1);
        if (staging != null && buffer == staging) {
            freeStaging[freeStagingCount++] = (int) (offset / provider.mtu());
        }
    }

    /** The transport is done with a send: count it off and recycle its staging slot. Dataplane thread. */
    private void released(MemorySegment buffer, long offset) {
        sendsReleased.setRelease(sendsReleased.getPlain() + 1);
        if (staging != null && buffer == staging) {
            int mask = returnedStaging.length() - 1;
            int h = returnedHead.get();
            returnedStaging.set(h & mask, (int) (offset / provider.mtu()));
            returnedHead.lazySet(h + 1);
        }
    }
}
