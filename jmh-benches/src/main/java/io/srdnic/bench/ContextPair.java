package io.srdnic.bench;

import io.srdnic.pmd.Eal;
import io.srdnic.pmd.EalConfig;
import io.srdnic.pmd.MbufPool;
import io.srdnic.pmd.PortConfig;
import io.srdnic.pmd.RingLink;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.ContextConfig;
import io.srdnic.verbs.Device;
import io.srdnic.verbs.SimWorld;
import java.util.function.UnaryOperator;

/**
 * Two verbs contexts, A and B, for the benchmarks' {@code @Param link}: {@code sim}, two hosts of a
 * simulated network (CPU only: the wire takes virtual time); {@code ring}, a real net_ring pair in
 * this JVM with one pool of 8191 mbufs of 4 KiB, both contexts INVOKER (one thread drives both).
 * Closing it closes both contexts and then the network, or EAL.
 */
final class ContextPair implements AutoCloseable {
    final Context a;
    final Context b;
    private final SimWorld world;
    private final Eal eal;

    private ContextPair(Context a, Context b, SimWorld world, Eal eal) {
        this.a = a;
        this.b = b;
        this.world = world;
        this.eal = eal;
    }

    static ContextPair open(String link) {
        return open(link, c -> c);
    }

    /** As {@link #open(String)}, each context's configuration adjusted by {@code tune} (counters on, say). */
    static ContextPair open(String link, UnaryOperator<ContextConfig> tune) {
        return switch (link) {
            case "sim" -> {
                SimWorld world = new SimWorld(1);
                yield new ContextPair(Context.open(Device.sim(world), tune.apply(new ContextConfig())),
                    Context.open(Device.sim(world), tune.apply(new ContextConfig())), world, null);
            }
            case "ring" -> {
                Eal eal = Eal.start(new EalConfig());
                RingLink ring = RingLink.create(1024);
                MbufPool pool = MbufPool.create("bench", 8191, 4096 + 256);
                ring.a().configure(PortConfig.DEFAULT, pool).start();
                ring.b().configure(PortConfig.DEFAULT, pool).start();
                yield new ContextPair(Context.open(Device.dpdk(ring.a(), pool), tune.apply(new ContextConfig().ip(0x0A000001))),
                    Context.open(Device.dpdk(ring.b(), pool), tune.apply(new ContextConfig().ip(0x0A000002))), null, eal);
            }
            default -> throw new IllegalArgumentException("link is sim or ring, not " + link);
        };
    }

    @Override
    public void close() {
        a.close();
        b.close();
        if (world != null) {
            world.close();
        } else {
            eal.close();
        }
    }
}
