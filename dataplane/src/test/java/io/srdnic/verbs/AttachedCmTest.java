package io.srdnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.srdnic.dataplane.attach.AllowRule;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.verbs.cm.CmEvent;
import io.srdnic.verbs.cm.CmEventType;
import io.srdnic.verbs.cm.CmId;
import io.srdnic.verbs.cm.ConnParam;
import io.srdnic.verbs.cm.EventChannel;
import io.srdnic.verbs.cm.RejectReason;
import java.lang.foreign.Arena;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The connection manager on an attached context: the dataplane's CM (it owns the port's management
 * QP) makes the client's ids, drives its RC QP and sends it the events, with the unchanged
 * rdma_cm-shaped API. The peer is an embedded application on another host of the same simulated
 * world, run on the world's thread.
 */
class AttachedCmTest {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    static final int PORT = 7471;

    @TempDir
    Path dir;

    /** The embedded side: an RC listener and, once a request is accepted, its QP. Every method runs on the world's thread. */
    static final class EmbeddedPeer {
        final Context ctx;
        final Arena arena = Arena.ofShared();
        final EventChannel channel = new EventChannel();
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final MemoryRegion mr;
        final CmId listener;
        final WorkCompletion[] wcs = CompletionQueue.array(1);
        CmId child;

        EmbeddedPeer(Context ctx) {
            this.ctx = ctx;
            pd = ctx.allocPd();
            cq = ctx.createCq(64);
            mr = pd.registerMemory(arena.allocate(64 * 1024, 64), Access.LOCAL_WRITE);
            listener = CmId.create(channel, ctx);
            listener.bind(PORT);
            listener.listen(4);
        }

        /** Accepts the pending request with {@code reply} as private data, its QP's receives posted first. */
        void accept(CmId request, String reply) {
            child = request;
            QueuePair qp = request.createQp(pd, QpInitAttributes.builder(QpType.RC).cq(cq).maxSendWr(16).maxRecvWr(16).build());
            RecvWr r = new RecvWr();
            for (int i = 0; i < 4; i++) {
                r.wrId(i).sge().set(mr, 1024 + i * 256L, 256);
                qp.postRecv(r);
            }
            request.accept(new ConnParam().privateData(reply.getBytes(StandardCharsets.US_ASCII)));
        }

        void send(String text) {
            mr.segment().setString(0, text);
            SendWr wr = new SendWr().wrId(50).opcode(SendWr.OP_SEND);
            wr.sge(0).set(mr, 0, text.length() + 1);
            child.qp().postSend(wr.numSge(1));
        }
    }

    /** Polls the embedded peer's channel on the loop until an event of {@code type} (others are acked and skipped), for up to 5 s. */
    static CmEvent awaitOnLoop(AttachedWorld w, EmbeddedPeer peer, CmEventType type) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < deadline) {
            CmEvent e = w.onLoop(peer.channel::poll);
            if (e != null && e.type() == type) {
                return e;
            }
            if (e != null) {
                w.onLoop(() -> {
                    peer.channel.ack(e);
                    return null;
                });
            }
        }
        throw new AssertionError("no " + type + " at the embedded peer within 5 s");
    }

    /** The client connects to the peer's listener, which accepts: ESTABLISHED taken. */
    static void connect(AttachedWorld w, EmbeddedPeer peer, Client c) {
        c.id.connect(new ConnParam());
        CmEvent request = awaitOnLoop(w, peer, CmEventType.CONNECT_REQUEST);
        w.onLoop(() -> {
            peer.accept(request.id(), "");
            peer.channel.ack(request);
            return null;
        });
        c.channel.ack(await(c.channel, CmEventType.ESTABLISHED));
    }

    static CmEvent await(EventChannel channel, CmEventType type) {
        CmEvent e = channel.await(5, TimeUnit.SECONDS);
        assertNotNull(e, "no event within 5 s, waiting for " + type);
        assertEquals(type, e.type(), e.toString());
        return e;
    }

    /** The attached application: an RC QP connected through the CM to the embedded peer's listener. */
    static final class Client implements AutoCloseable {
        final Context ctx;
        final EventChannel channel = new EventChannel();
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final MemoryRegion mr;
        final CmId id;
        final QueuePair qp;
        final WorkCompletion[] wcs = CompletionQueue.array(1);

        Client(Path dir, int peerIp) {
            ctx = Context.open(Device.attached(dir), new ContextConfig().attachedPoolBytes(1 << 20).attachedRingBytes(1 << 20));
            pd = ctx.allocPd();
            cq = ctx.createCq(64);
            mr = pd.allocateRegion(64 * 1024, Access.LOCAL_WRITE);
            id = CmId.create(channel, ctx);
            id.resolveAddr(peerIp, PORT);
            channel.ack(await(channel, CmEventType.ADDR_RESOLVED));
            id.resolveRoute();
            channel.ack(await(channel, CmEventType.ROUTE_RESOLVED));
            qp = id.createQp(pd, QpInitAttributes.builder(QpType.RC).cq(cq).maxSendWr(16).maxRecvWr(16).build());
            assertEquals(QpState.INIT, qp.state(), "the dataplane's CM took it to INIT");
            RecvWr r = new RecvWr();
            for (int i = 0; i < 4; i++) {
                r.wrId(i).sge().set(mr, 1024 + i * 256L, 256);
                assertEquals(0, qp.postRecv(r));
            }
        }

        @Override
        public void close() {
            ctx.close();
        }
    }

    @Test
    void shouldExchangeDataOverAnAttachedRcQpTheCmConnectedToAnEmbeddedPeer() {
        try (AttachedWorld w = new AttachedWorld(dir, 1, 1, AllowRule.ownUidOrRoot())) {
            EmbeddedPeer peer = w.onLoop(() -> new EmbeddedPeer(w.embedded(0)));
            try (Client c = new Client(dir, w.onLoop(() -> peer.ctx.ip()))) {
                c.id.connect(new ConnParam().privateData("hello".getBytes(StandardCharsets.US_ASCII)));
                CmEvent request = awaitOnLoop(w, peer, CmEventType.CONNECT_REQUEST);
                assertEquals("hello", new String(request.privateData(), 0, request.privateDataLength(), StandardCharsets.US_ASCII));
                w.onLoop(() -> {
                    peer.accept(request.id(), "welcome");
                    peer.channel.ack(request);
                    return null;
                });
                CmEvent established = await(c.channel, CmEventType.ESTABLISHED);
                assertEquals("welcome", new String(established.privateData(), 0, established.privateDataLength(),
                        StandardCharsets.US_ASCII));
                c.channel.ack(established);
                assertEquals(QpState.RTS, c.qp.state(), "the client sees the QP the dataplane's CM took to RTS");
                assertEquals(QpType.RC, c.qp.type());

                c.mr.segment().setString(0, "ping");
                SendWr wr = new SendWr().wrId(9).opcode(SendWr.OP_SEND);
                wr.sge(0).set(c.mr, 0, 5);
                assertEquals(0, c.qp.postSend(wr.numSge(1)));
                assertEquals(1, c.cq.await(c.wcs, 5, TimeUnit.SECONDS));
                assertEquals(WcStatus.SUCCESS, c.wcs[0].status());
                String got = null;
                for (int i = 0; i < 5000 && got == null; i++) {
                    got = w.onLoop(() -> peer.cq.poll(peer.wcs) == 1 && peer.wcs[0].ok()
                        ? peer.mr.segment().getString(1024 + peer.wcs[0].wrId() * 256) : null);
                }
                assertEquals("ping", got);
                w.onLoop(() -> {
                    peer.send("pong");
                    return null;
                });
                // the peer's send completion and the client's receive
                assertEquals(1, c.cq.await(c.wcs, 5, TimeUnit.SECONDS));
                assertEquals(WcStatus.SUCCESS, c.wcs[0].status());
                assertEquals("pong", c.mr.segment().getString(1024 + c.wcs[0].wrId() * 256));

                c.id.disconnect();
                assertEquals(QpState.ERROR, c.qp.state(), "disconnect moved the QP to ERROR");
                awaitOnLoop(w, peer, CmEventType.DISCONNECTED);
                c.channel.ack(await(c.channel, CmEventType.DISCONNECTED));
            }
        }
    }

    @Test
    void shouldTellTheEmbeddedPeerWhenTheAttachedClientIsKilled() {
        try (AttachedWorld w = new AttachedWorld(dir, 1, 1, AllowRule.ownUidOrRoot())) {
            EmbeddedPeer peer = w.onLoop(() -> new EmbeddedPeer(w.embedded(0)));
            Client c = new Client(dir, w.onLoop(() -> peer.ctx.ip()));
            connect(w, peer, c);
            c.ctx.session().dieForTest();
            awaitOnLoop(w, peer, CmEventType.DISCONNECTED); // the dataplane destroyed the dead client's id: its DREQ
            assertEquals(QpState.ERROR, w.onLoop(() -> peer.child.qp().query().state()));
            assertEquals(5, w.counter("objects_reclaimed"), "its CM id, QP, MR, CQ and PD");
        }
    }

    /** rdma_cm tells every id DEVICE_REMOVAL when its device goes: so does an attached context when its dataplane dies. */
    @Test
    void shouldTellTheAttachedClientsIdsDeviceRemovalWhenTheDataplaneDies() {
        AttachedWorld w = new AttachedWorld(dir, 1, 1, AllowRule.ownUidOrRoot());
        EmbeddedPeer peer = w.onLoop(() -> new EmbeddedPeer(w.embedded(0)));
        try (Client c = new Client(dir, w.onLoop(() -> peer.ctx.ip()))) {
            connect(w, peer, c);
            w.close(); // the dataplane is gone: its socket closes
            CmEvent removal = await(c.channel, CmEventType.DEVICE_REMOVAL);
            assertEquals(c.id, removal.id());
            c.channel.ack(removal);
            assertNull(c.channel.poll(), "once");
            c.id.destroy(); // as rdma_destroy_id after DEVICE_REMOVAL: it must work with the device gone
        }
    }

    /** The dataplane runs each port's CM whether or not a client holds an id: a request to a port nobody listens on is refused. */
    @Test
    void shouldAnswerARequestToAServedPortNobodyListensOn() {
        try (AttachedWorld w = new AttachedWorld(dir, 1, 1, AllowRule.ownUidOrRoot());
             Context client = Context.open(Device.attached(dir), new ContextConfig().attachedPoolBytes(1 << 16)
                     .attachedRingBytes(1 << 16))) {
            int servedIp = client.ip();
            EventChannel channel = new EventChannel();
            CmId id = w.onLoop(() -> {
                Context peer = w.embedded(0);
                CmId made = CmId.create(channel, peer);
                made.resolveAddr(servedIp, PORT);
                made.resolveRoute();
                made.createQp(peer.allocPd(), QpInitAttributes.builder(QpType.RC).cq(peer.createCq(8)).maxSendWr(4).maxRecvWr(4).build());
                made.connect(new ConnParam());
                return made;
            });
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            CmEvent rejected = null;
            while (rejected == null && System.nanoTime() < deadline) {
                CmEvent e = w.onLoop(channel::poll);
                if (e != null && e.type() == CmEventType.REJECTED) {
                    rejected = e;
                }
            }
            assertNotNull(rejected, "REJECTED within 5 s (not UNREACHABLE after the retries)");
            assertEquals(RejectReason.NO_LISTENER, rejected.status(), rejected.toString());
            assertEquals(id, rejected.id());
        }
    }
}
