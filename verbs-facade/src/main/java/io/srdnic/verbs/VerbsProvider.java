package io.srdnic.verbs;

import io.srdnic.srd.api.AsyncEventQueue;
import io.srdnic.srd.api.QpAttributes;
import io.srdnic.srd.api.QpState;
import io.srdnic.verbs.attach.control.CmEventMessage;
import io.srdnic.verbs.attach.control.CmRequest;
import io.srdnic.verbs.attach.control.HandleReply;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * What a device context does underneath the verbs objects, as rdma-core's {@code ibv_context_ops}
 * ({@code qp->context->ops.post_send}): chosen once when the {@link Context} opens — the
 * {@link EmbeddedProvider} (the transport runs in this JVM) or the {@link AttachedProvider} (a
 * {@code srdnic dataplane} process runs it; this side writes its shared rings and control socket).
 * The public classes check what verbs checks whatever the provider, then delegate without asking
 * which one they have. Each object a provider makes carries its own ops ({@link Qp}, {@link Cq},
 * {@link Srq}, {@link Xrcd}); a provider reaches its own kind of object behind another's (the
 * transport QP behind a CQ, say) by casting, as a provider library's {@code to_mqp()} does.
 */
interface VerbsProvider {
    /** The device's capabilities ({@code ibv_query_device}). */
    DeviceAttributes queryDevice(String deviceName);

    int mtu();

    int ip();

    long mac();

    int udpPort();

    /** A new protection domain's number. */
    int allocPd();

    void destroyPd(int pd);

    AsyncEventQueue.AsyncEvent pollAsyncEvent();

    /** Waits a little for the dataplane, or makes progress itself (INVOKER). */
    void idle(int spins);

    int progress();

    Map<String, Long> counters();

    /** The live counters file, or null. */
    Path countersFile();

    List<String> contextReport();

    ThreadingMode threadingMode();

    /** Attached: every event the dead dataplane sent is queued; embedded: never (closing the context ends them). */
    boolean eventsEnded();

    /** Attached: the dataplane died; embedded: never. */
    boolean isDead();

    /** Throws when the device is gone under the context (attached: its dataplane died). */
    void checkAlive();

    /** Throws for {@code what} this provider does not serve; {@code what} names it. */
    void refuseUnserved(String what);

    /** Registers {@code segment} at {@code iova} in PD {@code pd}: the key, which is the lkey and the rkey. */
    int registerMr(int pd, MemorySegment segment, long iova, int access);

    /** Deregisters at once: the next packet naming the key is refused, in-flight requests included. */
    void deregisterMr(int key);

    /** {@code size} bytes of memory the dataplane can reach, living as long as the context. */
    MemorySegment allocate(long size);

    int createAh(int pd, long mac, int ip, int udpPort);

    void destroyAh(int ah);

    Cq createCq(CompletionQueue cq, int depth);

    /** The transport's QP for {@code qp} (whose fields say its type, queues and caps); {@code management}: the device's management QP. */
    Qp createQp(QueuePair qp, XrcDomain xrcd, boolean management);

    Srq createSrq(SharedReceiveQueue srq, int maxWr, int maxSge, int limit);

    Srq createXrcSrq(SharedReceiveQueue srq, XrcDomain xrcd, CompletionQueue cq, int maxWr, int maxSge, int limit);

    Xrcd openXrcd();

    /** A call on the dataplane process's connection manager (attached only). */
    HandleReply cmCall(CmRequest request);

    /** The oldest CM event the dataplane process sent, or null (attached only). */
    CmEventMessage pollCmEvent();

    boolean isAttached();

    /** Stops the dataplane (embedded) or leaves it (attached); after the context's close hooks ran. */
    void close();

    /** A completion queue's ops. */
    interface Cq {
        /** Polls up to {@code max} completions into {@code out} (max is at most out.length). */
        int poll(WorkCompletion[] out, int max);

        /** Completions already made, running no duty cycle (embedded only). */
        int pollCompleted(WorkCompletion[] out, int max);

        void destroy();

        long overruns();
    }

    /** A queue pair's ops: what is left of a verb once the facade has checked what verbs checks. */
    interface Qp {
        int qpNum();

        /** Moves the QP; sets its facade state to what the transport answered. */
        void modify(QpState next, int qkey);

        void modify(QpAttributes complete);

        QpAttributes query();

        void rnrRetry(int retries);

        /** 0 or ENOMEM; {@code ah}: the address handle's number, 0 for a connected QP. */
        int postSend(SendWr wr, int ah);

        int postRecv(RecvWr wr);

        int sendsOutstanding();

        void destroy();
    }

    /** A shared receive queue's ops. */
    interface Srq {
        int srqNum();

        /** An XRC SRQ's number for remote senders. */
        int xrcNumber();

        int limit();

        int receivesPosted();

        /** 0 or ENOMEM; the SGE was checked. */
        int postRecv(RecvWr wr);

        void modify(int limit);

        void destroy();
    }

    /** An XRC domain's ops. */
    interface Xrcd {
        int number();

        void close();
    }
}
