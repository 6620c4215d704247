package io.srdnic.bench;

import io.srdnic.pmd.Eal;
import io.srdnic.pmd.EalConfig;
import io.srdnic.pmd.EthPort;
import io.srdnic.pmd.MbufPool;
import io.srdnic.pmd.PortConfig;
import io.srdnic.pmd.RingLink;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.ContextConfig;
import io.srdnic.verbs.Device;
import io.srdnic.verbs.SimWorld;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.UnaryOperator;

/**
 * Two verbs contexts, A and B, for the benchmarks' {@code @Param link}: {@code sim}, two hosts of a
 * simulated network (CPU only: the wire takes virtual time); {@code ring}, a real net_ring pair in
 * this JVM with one pool of 8191 mbufs of 4 KiB, both contexts INVOKER (one thread drives both);
 * {@code memif}, the same over a real net_memif pair (its socket in a temporary directory), whose
 * driver copies every frame into its ring and so takes zero-copy transmit's external buffers.
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
            case "memif" -> {
                Eal eal = Eal.start(new EalConfig().memoryMb(512).logLevel("error"));
                String socket = tempSocket();
                EthPort server = EthPort.attach("net_memif80,role=server,id=0,bsize=8192,socket=" + socket);
                EthPort client = EthPort.attach("net_memif81,role=client,id=0,bsize=8192,socket=" + socket);
                MbufPool pool = MbufPool.create("bench", 8191, 4096 + 256);
                server.configure(PortConfig.DEFAULT, pool).start();
                client.configure(PortConfig.DEFAULT, pool).start();
                long deadline = System.nanoTime() + 5_000_000_000L;
                while (!(server.link().up() && client.link().up()) && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
                yield new ContextPair(Context.open(Device.dpdk(client, pool), tune.apply(new ContextConfig().ip(0x0A000001))),
                    Context.open(Device.dpdk(server, pool), tune.apply(new ContextConfig().ip(0x0A000002))), null, eal);
            }
            default -> throw new IllegalArgumentException("link is sim, ring or memif, not " + link);
        };
    }

    /** A path for memif's socket in a fresh temporary directory (memif's default is under /run, root's). */
    private static String tempSocket() {
        try {
            Path dir = Files.createTempDirectory("srdnic-bench-memif");
            dir.toFile().deleteOnExit();
            return dir.resolve("memif.sock").toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
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
