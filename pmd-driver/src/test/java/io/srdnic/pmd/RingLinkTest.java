package io.srdnic.pmd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Real DPDK: a net_ring pair in this JVM moves a million frames, every payload checked. */
class RingLinkTest {
    static Eal eal;
    static Path runtimeDir;

    @BeforeAll
    static void startEal() {
        eal = Eal.start(new EalConfig());
        runtimeDir = eal.runtimeDir();
    }

    @AfterAll
    static void stopEal() {
        eal.close();
        assertFalse(Files.exists(runtimeDir), "EAL runtime directory must be removed: " + runtimeDir);
        assertFalse(Eal.isRunning());
    }

    @Test
    void shouldRefuseASecondEalInTheSameProcess() {
        assertThrows(IllegalStateException.class, () -> Eal.start(new EalConfig()));
        assertTrue(Files.isDirectory(runtimeDir));
    }

    @Test
    void shouldMoveAMillionFramesWithEveryPayloadIntact() {
        final int frames = 1_000_000;
        final int length = 128;
        try (Arena arena = Arena.ofConfined();
             RingLink link = RingLink.create(1024);
             MbufPool pool = MbufPool.create("ringtest", 8191, 2048)) {
            link.a().configure(PortConfig.DEFAULT, pool).start();
            link.b().configure(PortConfig.DEFAULT, pool).start();
            PacketIo tx = new EthPacketIo(link.a(), 0, pool);
            PacketIo rx = new EthPacketIo(link.b(), 0, pool);
            MbufBatch out = new MbufBatch(arena);
            MbufBatch in = new MbufBatch(arena);
            long sent = 0;
            long received = 0;
            long corrupted = 0;
            long outOfOrder = 0;
            long expected = 0;
            while (received < frames) {
                if (sent < frames) {
                    int n = (int) Math.min(out.capacity(), frames - sent);
                    if (tx.allocate(out, n) == n) {
                        for (int i = 0; i < n; i++) {
                            FrameStamp.write(out.get(i), sent + i, length);
                        }
                        sent += tx.transmit(out);
                    }
                }
                int got = rx.receive(in);
                for (int i = 0; i < got; i++) {
                    Mbuf m = in.get(i);
                    long seq = FrameStamp.read(m, length);
                    if (seq < 0) {
                        corrupted++;
                    } else if (seq != expected) {
                        outOfOrder++;
                    }
                    expected = seq + 1;
                }
                received += got;
                rx.free(in);
            }
            assertEquals(frames, sent);
            assertEquals(0, tx.txDropped());
            assertEquals(frames, received);
            assertEquals(0, corrupted);
            assertEquals(0, outOfOrder);
            assertEquals(frames, link.b().stats().rxPackets());
            assertEquals(0, pool.inUse(), "every mbuf must be back in the pool");
        }
    }

    @Test
    void shouldFreeFramesTheTxRingCannotTakeCountingThem() {
        try (Arena arena = Arena.ofConfined();
             RingLink link = RingLink.create(64);
             MbufPool pool = MbufPool.create("droptest", 1023, 256)) {
            link.a().configure(PortConfig.DEFAULT, pool).start();
            link.b().configure(PortConfig.DEFAULT, pool).start();
            TxQueue tx = link.a().txQueue(0);
            MbufBatch out = new MbufBatch(arena);
            long sent = 0;
            for (int burst = 0; burst < 4; burst++) {
                assertEquals(32, pool.allocate(out, 32));
                for (int i = 0; i < 32; i++) {
                    out.get(i).frameLength(60);
                }
                sent += tx.burst(out);
            }
            assertEquals(63, sent, "a 64-slot ring holds 63 frames");
            assertEquals(128 - 63, tx.dropped());
            assertEquals(63, pool.inUse(), "the dropped mbufs were freed");
            MbufBatch in = new MbufBatch(arena);
            RxQueue rx = link.b().rxQueue(0);
            while (rx.burst(in) > 0) {
                MbufPool.free(in);
            }
            assertEquals(0, pool.inUse());
        }
    }

    @Test
    void shouldNameTheMissingPortOrTheTooSmallPool() {
        DpdkException noPort = assertThrows(DpdkException.class, () -> EthPort.byName("net_nosuch0"));
        assertTrue(noPort.getMessage().contains("net_nosuch0"), noPort.getMessage());
        DpdkException badVdev = assertThrows(DpdkException.class, () -> EthPort.attach("net_nosuchpmd0"));
        assertTrue(badVdev.getMessage().contains("PMD"), badVdev.getMessage());
        // the cause as every srdnic error names one, in one line: "...: ENODEV (No such device) — advice"
        assertTrue(badVdev.getMessage().matches("[^\n]*: E[A-Z0-9]+ \\([^)]+\\)[^\n]*"), badVdev.getMessage());
        assertThrows(IllegalArgumentException.class, () -> MbufPool.create("tiny", 8, 2048));
        DpdkException huge = assertThrows(DpdkException.class, () -> MbufPool.create("huge", 4_000_000, 60000));
        assertTrue(huge.getMessage().contains("memory"), huge.getMessage());
        assertTrue(huge.getMessage().matches("[^\n]*: E[A-Z0-9]+ \\([^)]+\\)[^\n]*"), huge.getMessage());
    }
}
