package io.srdnic.verbs;

import io.srdnic.srd.api.AsyncEventQueue;
import io.srdnic.verbs.attach.CompletionRecord;
import io.srdnic.verbs.attach.RecvRecord;
import io.srdnic.verbs.attach.SendRecord;
import io.srdnic.verbs.attach.ShmRing;
import io.srdnic.verbs.attach.control.AllocPdRequest;
import io.srdnic.verbs.attach.control.CmEventMessage;
import io.srdnic.verbs.attach.control.CmRequest;
import io.srdnic.verbs.attach.control.CreateAhRequest;
import io.srdnic.verbs.attach.control.CreateCqRequest;
import io.srdnic.verbs.attach.control.CreateQpRequest;
import io.srdnic.verbs.attach.control.CreateSrqRequest;
import io.srdnic.verbs.attach.control.DestroyRequest;
import io.srdnic.verbs.attach.control.HandleReply;
import io.srdnic.verbs.attach.control.OpenXrcdRequest;
import io.srdnic.verbs.attach.control.RegisterMrRequest;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The provider of a context attached to a {@code srdnic dataplane} process: control verbs are
 * requests on its socket ({@link AttachedSession}), work requests and completions records in rings
 * of the shared file ({@link AttachedQp}, {@link AttachedCq}). The dataplane runs the duty cycle.
 */
final class AttachedProvider implements VerbsProvider {
    final AttachedSession session;

    AttachedProvider(Device device, ContextConfig config) {
        this.session = AttachedSession.open(device.attachDir, config.attachedPort, config.attachedPoolBytes, config.attachedRingBytes);
    }

    @Override
    public DeviceAttributes queryDevice(String deviceName) {
        int[] a = session.info.attributes();
        return new DeviceAttributes(session.info.deviceName(), a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10] != 0,
            a[11] != 0, a[12] != 0, a[13], a[14], a[15], a[16], a[17]);
    }

    @Override
    public int mtu() {
        return session.info.attributes()[7];
    }

    @Override
    public int ip() {
        return session.info.ip();
    }

    @Override
    public long mac() {
        return session.info.mac();
    }

    @Override
    public int udpPort() {
        return session.info.udpPort();
    }

    @Override
    public int allocPd() {
        return session.request(new AllocPdRequest()).handle();
    }

    @Override
    public void destroyPd(int pd) {
        session.request(new DestroyRequest(DestroyRequest.PD, pd));
    }

    @Override
    public AsyncEventQueue.AsyncEvent pollAsyncEvent() {
        return session.pollEvent();
    }

    @Override
    public void idle(int spins) {
        ContextDriver.await(spins);
    }

    @Override
    public int progress() {
        session.checkAlive(); // the dataplane process runs the duty cycle
        return 0;
    }

    @Override
    public Map<String, Long> counters() {
        return Map.of(); // the dataplane's own counters are its to show (srdnic stat)
    }

    @Override
    public Path countersFile() {
        return null; // the dataplane process publishes its own
    }

    @Override
    public List<String> contextReport() {
        return List.of();
    }

    @Override
    public ThreadingMode threadingMode() {
        return ThreadingMode.DEDICATED;
    }

    @Override
    public boolean eventsEnded() {
        return session.eventsEnded();
    }

    @Override
    public boolean isDead() {
        return session.isDead();
    }

    @Override
    public void checkAlive() {
        session.checkAlive();
    }

    @Override
    public void refuseUnserved(String what) {
        throw new VerbsException(what + " are not served on an attached context yet (docs/dataplane.md): open the device embedded");
    }

    /**
     * The dataplane registers the same bytes of its own mapping of the pool, which is all it can
     * reach of this process's memory (it sends from and receives into the region without a copy
     * into its own address space: at most one copy, between the region and an mbuf). Peers name
     * the region by this process's address of it ({@code iova}), which the dataplane, mapping the
     * pool elsewhere, registers as the region's virtual base.
     */
    @Override
    public int registerMr(int pd, MemorySegment segment, long iova, int access) {
        long at = session.poolOffset(segment, 0, segment.byteSize());
        if (at < 0) {
            throw new VerbsException("an attached context registers only memory of its shared pool, which the dataplane process"
                + " maps too: allocate it with ProtectionDomain.allocateRegion");
        }
        return session.request(new RegisterMrRequest(pd, at, segment.byteSize(), iova, access)).handle();
    }

    @Override
    public void deregisterMr(int key) {
        session.request(new DestroyRequest(DestroyRequest.MR, key));
    }

    @Override
    public MemorySegment allocate(long size) {
        return session.allocate(size);
    }

    @Override
    public int createAh(int pd, long mac, int ip, int udpPort) {
        return session.request(new CreateAhRequest(pd, mac, ip, udpPort)).handle();
    }

    @Override
    public void destroyAh(int ah) {
        session.request(new DestroyRequest(DestroyRequest.AH, ah));
    }

    @Override
    public Cq createCq(CompletionQueue cq, int depth) {
        HandleReply r = session.request(new CreateCqRequest(depth));
        return new AttachedCq(session, r.handle(), ring(r.firstRing(), r.firstCapacity(), CompletionRecord.BYTES));
    }

    /** Asks the dataplane for the QP and finds its rings in the shared file. */
    @Override
    public Qp createQp(QueuePair qp, XrcDomain xrcd, boolean management) {
        HandleReply r = session.request(new CreateQpRequest(qp.pd.id, qp.type.ordinal(), handle(qp.sendCq), handle(qp.recvCq),
            qp.maxSendWr, qp.maxRecvWr, qp.maxSendSge, qp.maxInlineData, qp.srq == null ? 0 : qp.srq.srqNum(),
            qp.xrcType == null ? -1 : qp.xrcType.ordinal(), handle(xrcd)));
        return new AttachedQp(session, qp, r.handle(), ring(r.firstRing(), r.firstCapacity(), SendRecord.BYTES),
            ring(r.secondRing(), r.secondCapacity(), RecvRecord.BYTES));
    }

    @Override
    public Srq createSrq(SharedReceiveQueue srq, int maxWr, int maxSge, int limit) {
        return srq(session.request(new CreateSrqRequest(srq.pd.id, 0, 0, maxWr, maxSge, limit)), 0);
    }

    @Override
    public Srq createXrcSrq(SharedReceiveQueue srq, XrcDomain xrcd, CompletionQueue cq, int maxWr, int maxSge, int limit) {
        HandleReply r = session.request(new CreateSrqRequest(srq.pd.id, handle(xrcd), handle(cq), maxWr, maxSge, limit));
        return srq(r, r.state());
    }

    /** The SRQ the dataplane answered with: its receive ring, posted as a QP's receive ring is. */
    private Srq srq(HandleReply r, int xrcNumber) {
        return new AttachedSrq(session, r.handle(), xrcNumber,
            new AttachedQp(session, null, r.handle(), null, ring(r.firstRing(), r.firstCapacity(), RecvRecord.BYTES)));
    }

    @Override
    public Xrcd openXrcd() {
        HandleReply r = session.request(new OpenXrcdRequest());
        return new AttachedXrcd(session, r.handle(), r.state());
    }

    @Override
    public HandleReply cmCall(CmRequest request) {
        return session.request(request);
    }

    @Override
    public CmEventMessage pollCmEvent() {
        return session.pollCmEvent();
    }

    @Override
    public boolean isAttached() {
        return true;
    }

    @Override
    public void close() {
        session.close();
    }

    private ShmRing ring(long at, int capacity, int recordBytes) {
        return new ShmRing(session.rings.asSlice(at, ShmRing.bytes(capacity, recordBytes)), capacity, recordBytes);
    }

    /** The dataplane's handle of a CQ this provider made; 0 for none. */
    private static int handle(CompletionQueue cq) {
        return cq == null ? 0 : ((AttachedCq) cq.ops).handle;
    }

    /** The dataplane's handle of an XRC domain this provider opened; 0 for none. */
    private static int handle(XrcDomain xrcd) {
        return xrcd == null ? 0 : ((AttachedXrcd) xrcd.ops).handle();
    }

    /** An XRC domain: the dataplane's handle of it and its number. */
    private record AttachedXrcd(AttachedSession session, int handle, int number) implements Xrcd {
        @Override
        public void close() {
            session.request(new DestroyRequest(DestroyRequest.XRCD, handle));
        }
    }
}
