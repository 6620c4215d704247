package io.srdnic.verbs.cm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.verbs.Access;
import io.srdnic.verbs.CompletionQueue;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.Device;
import io.srdnic.verbs.MemoryRegion;
import io.srdnic.verbs.ProtectionDomain;
import io.srdnic.verbs.QpInitAttributes;
import io.srdnic.verbs.QueuePair;
import io.srdnic.verbs.RecvWr;
import io.srdnic.verbs.SimWorld;
import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;

/**
 * Test fixture: hosts on a simulated network, each a context with its own event channel. Waiting
 * for an event on one channel runs every host's connection manager (as each host's own poll loop
 * would) without taking the others' events.
 */
final class CmSim implements AutoCloseable {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    static final long MS = 1_000_000L;
    final SimWorld world;
    final Arena arena = Arena.ofShared();
    final List<Host> hosts = new ArrayList<>();

    /** One host: context, channel, a PD and CQ for its QPs, a registered buffer. */
    static final class Host {
        Context context;
        EventChannel channel;
        ProtectionDomain pd;
        CompletionQueue cq;
        MemoryRegion mr;
        ConnectionManager cm;
    }

    CmSim(long seed, LinkConfig fabric, CmConfig config) {
        this.world = new SimWorld(seed, 4, fabric);
        this.config = config;
    }

    CmSim(long seed) {
        this(seed, LinkConfig.DEFAULT, new CmConfig());
    }

    private final CmConfig config;

    Host host() {
        Host h = new Host();
        h.context = Context.open(Device.sim(world));
        h.channel = new EventChannel(8);
        h.cm = ConnectionManager.of(h.context, config);
        h.channel.use(h.cm);
        h.pd = h.context.allocPd();
        h.cq = h.context.createCq(256);
        h.mr = h.pd.registerMemory(arena.allocate(64 * 1024, 64), Access.LOCAL_WRITE);
        hosts.add(h);
        return h;
    }

    /** An RC QP for {@code id} with 8 receives of 1 KiB posted. */
    static QueuePair qp(Host h, CmId id) {
        QueuePair qp = id.createQp(h.pd, QpInitAttributes.builder(QpType.RC).cq(h.cq).maxSendWr(64).maxRecvWr(64).build());
        assertEquals(QpState.INIT, qp.state(), "rdma_create_qp leaves the QP in INIT: receives can be posted");
        RecvWr r = new RecvWr();
        for (int i = 0; i < 8; i++) {
            r.wrId(i).sge().set(h.mr, (long) i * 1024, 1024);
            qp.postRecv(r);
        }
        return qp;
    }

    /** The next event on {@code h}'s channel within {@code virtualNanos}, or null; every host's CM runs meanwhile. */
    CmEvent next(Host h, long virtualNanos) {
        long end = h.context.now() + virtualNanos;
        while (true) {
            boolean anyOpen = false;
            for (Host other : hosts) {
                anyOpen |= !other.context.isClosed();
                if (other != h) {
                    other.cm.progress();
                }
            }
            CmEvent e = h.channel.poll();
            if (e != null || h.context.now() - end >= 0 || !anyOpen) {
                return e;
            }
        }
    }

    /**
     * The next event on {@code h}'s channel, which must be of {@code type}. Acked already: read its
     * fields before the next event is awaited, which may reuse it.
     */
    CmEvent expect(Host h, CmEventType type) {
        CmEvent e = next(h, 2_000 * MS);
        assertNotNull(e, "no event; expected " + type);
        assertEquals(type, e.type(), e.toString());
        h.channel.ack(e);
        return e;
    }

    /** Runs every host's CM for {@code virtualNanos} and asserts no event came to {@code h}. */
    void quiet(Host h, long virtualNanos) {
        CmEvent e = next(h, virtualNanos);
        assertEquals(null, e, () -> "unexpected event " + e);
    }

    static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed + i * 7);
        }
        return b;
    }

    @Override
    public void close() {
        for (Host h : hosts) {
            h.context.close();
        }
        world.close();
        arena.close();
    }
}
