package io.srdnic.rtrs.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.Eal;
import io.srdnic.pmd.EalConfig;
import io.srdnic.pmd.MbufPool;
import io.srdnic.pmd.PortConfig;
import io.srdnic.pmd.RingLink;
import io.srdnic.rtrs.client.ClientConfig;
import io.srdnic.rtrs.client.PathAddress;
import io.srdnic.rtrs.client.Permit;
import io.srdnic.rtrs.client.RtrsClient;
import io.srdnic.rtrs.server.RtrsServer;
import io.srdnic.rtrs.server.ServerConfig;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.ContextConfig;
import io.srdnic.verbs.Device;
import io.srdnic.verbs.ThreadingMode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Locale;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A session on real DPDK: client and server contexts on a net_ring pair in this JVM (INVOKER: the
 * test thread drives both), Linux's 128 KiB chunks. Establishment, a write of the biggest IO and
 * its read back, then a rough IO rate (printed, not asserted: the machine is shared).
 */
class RtrsRingTest {
    static Eal eal;
    static RingLink link;
    static MbufPool pool;

    @BeforeAll
    static void start() {
        eal = Eal.start(new EalConfig());
        link = RingLink.create(1024);
        pool = MbufPool.create("rtrs", 16383, 4096 + 256);
        link.a().configure(PortConfig.DEFAULT, pool).start();
        link.b().configure(PortConfig.DEFAULT, pool).start();
    }

    @AfterAll
    static void stop() {
        eal.close();
    }

    private static boolean run(RtrsClient c, RtrsServer s, BooleanSupplier done, long nanos) {
        long end = System.nanoTime() + nanos;
        while (!done.getAsBoolean()) {
            if (System.nanoTime() - end > 0) {
                return false;
            }
            c.poll();
            s.poll();
        }
        return true;
    }

    @Test
    void shouldMoveTheBiggestIoBothWaysOverRealDpdk() {
        Context client = Context.open(Device.dpdk(link.a(), pool), new ContextConfig().mode(ThreadingMode.INVOKER).ip(0x0A000001));
        Context server = Context.open(Device.dpdk(link.b(), pool), new ContextConfig().mode(ThreadingMode.INVOKER).ip(0x0A000002));
        MemoryDisk disk = new MemoryDisk(8 << 20);
        try (RtrsServer s = RtrsServer.open(new ServerConfig().queueDepth(64), List.of(server), disk);
             RtrsClient c = RtrsClient.open(new ClientConfig().sessionName("ring").ioConnections(2),
                 List.of(new PathAddress(client, server.ip())))) {
            assertTrue(run(c, s, c::connected, 10_000_000_000L), "connected");
            assertEquals(128 * 1024 - 4096, c.maxIoSize());
            Permit p = c.permit();
            assertNotNull(p);
            int size = c.maxIoSize();
            for (int i = 0; i < size; i += 8) {
                p.data().set(ValueLayout.JAVA_LONG_UNALIGNED, i, i * 0x9E37_79B9_7F4A_7C15L);
            }
            MemorySegment header = Arena.ofAuto().allocate(MemoryDisk.HEADER);
            int[] result = {-1};
            assertEquals(0, c.write(p, header, 0, MemoryDisk.HEADER, size, (x, e) -> result[0] = e));
            assertTrue(run(c, s, () -> result[0] >= 0, 5_000_000_000L));
            assertEquals(0, result[0]);
            MemorySegment written = Arena.ofAuto().allocate(size);
            MemorySegment.copy(p.data(), 0, written, 0, size);
            p.data().fill((byte) 0);
            result[0] = -1;
            assertEquals(0, c.read(p, header, 0, MemoryDisk.HEADER, size, (x, e) -> result[0] = e));
            assertTrue(run(c, s, () -> result[0] >= 0, 5_000_000_000L));
            assertEquals(0, result[0]);
            assertEquals(-1, written.mismatch(p.data()), "124 KiB out and back through the server's chunk");
            c.release(p);
            rate(c, s, 4096);
            rate(c, s, size);
            client.counters().forEach((k, v) -> {
                if (v != 0 && (k.contains("rnr") || k.contains("retrans") || k.contains("timeout") || k.contains("drop"))) {
                    System.out.println("RTRS-RING client " + k + "=" + v);
                }
            });
            server.counters().forEach((k, v) -> {
                if (v != 0 && (k.contains("rnr") || k.contains("retrans") || k.contains("timeout") || k.contains("drop"))) {
                    System.out.println("RTRS-RING server " + k + "=" + v);
                }
            });
        } finally {
            client.close();
            server.close();
        }
    }

    /** Writes of {@code size} bytes on every permit for about a second; prints IOPS and the mean time per IO. */
    private static void rate(RtrsClient c, RtrsServer s, int size) {
        RtrsAllocationTest.Loop loop = new RtrsAllocationTest.Loop(c);
        loop.size = size;
        loop.writesOnly = true;
        loop.start();
        long t0 = System.nanoTime();
        long n0 = loop.completed;
        run(c, s, () -> System.nanoTime() - t0 > 1_000_000_000L, 2_000_000_000L);
        long ios = loop.completed - n0;
        double seconds = (System.nanoTime() - t0) / 1e9;
        loop.stop = true;
        run(c, s, () -> loop.outstanding() == 0, 5_000_000_000L);
        System.out.println(String.format(Locale.ROOT, "RTRS-RING size=%d ios=%d iops=%.0f MB/s=%.1f depth=%d", size, ios, ios / seconds,
            ios * (double) size / seconds / 1e6, c.queueDepth()));
        assertEquals(0, loop.errors);
    }
}
