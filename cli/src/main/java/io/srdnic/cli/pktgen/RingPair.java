package io.srdnic.cli.pktgen;

import io.srdnic.pmd.EthPacketIo;
import io.srdnic.pmd.MbufPool;
import io.srdnic.pmd.PacketIo;
import io.srdnic.pmd.PortConfig;
import io.srdnic.pmd.RingLink;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A net_ring pair in this process with one pool for both ends, started; for the pktgen modes that
 * run both sides on one thread. The process's EAL must be running (pktgen uses Eal.startOrGet, so
 * a run may follow other runs in one JVM). The pool's name is unique: several pairs may live at once.
 */
final class RingPair implements AutoCloseable {
    private final RingLink ring;
    private final MbufPool pool;
    final PacketIo a;
    final PacketIo b;

    RingPair(int frameRoom) {
        ring = RingLink.create(1024);
        try {
            pool = MbufPool.create("pktgen" + ThreadLocalRandom.current().nextInt(1 << 30), 8191, frameRoom);
        } catch (RuntimeException e) {
            ring.close();
            throw e;
        }
        ring.a().configure(PortConfig.DEFAULT, pool).start();
        ring.b().configure(PortConfig.DEFAULT, pool).start();
        a = new EthPacketIo(ring.a(), 0, pool);
        b = new EthPacketIo(ring.b(), 0, pool);
    }

    RingLink link() {
        return ring;
    }

    @Override
    public void close() {
        try (RingLink r = ring; MbufPool p = pool) {
            // closed newest first: the pool, then the ring
        }
    }
}
