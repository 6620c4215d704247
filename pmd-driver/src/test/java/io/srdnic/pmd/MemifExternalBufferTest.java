package io.srdnic.pmd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Real DPDK, net_memif in this JVM: frames whose payload is an external buffer (our memory, attached
 * with {@link Mbuf#attachExternal}, not copied) arrive whole in one segment, and the driver's free
 * runs the shim's callback, whose mark releases every ticket — the mbufs back in the pool, none
 * leaked, no upcall into Java.
 */
class MemifExternalBufferTest {
    static Eal eal;

    @BeforeAll
    static void startEal() {
        eal = Eal.start(new EalConfig().memoryMb(256).logLevel("error"));
    }

    @AfterAll
    static void stopEal() {
        eal.close();
    }

    @Test
    void shouldSendAttachedMemoryWholeAndReleaseEveryTicketThroughTheShimCallback() throws Exception {
        Path dir = Files.createTempDirectory("srdnic-extbuf");
        String socket = dir.resolve("x.sock").toString();
        int frames = 20_000;
        int headers = 64;
        try (Arena arena = Arena.ofConfined();
             MbufPool pool = MbufPool.create("extbuf", 4095, 8192 + 128);
             EthPort server = EthPort.attach("net_memif90,role=server,id=0,bsize=8192,socket=" + socket);
             EthPort client = EthPort.attach("net_memif91,role=client,id=0,bsize=8192,socket=" + socket)) {
            server.configure(PortConfig.DEFAULT, pool).start();
            client.configure(PortConfig.DEFAULT, pool).start();
            MemifPairCloser.awaitLink(server, client);
            EthPacketIo tx = new EthPacketIo(client, 0, pool);
            EthPacketIo rx = new EthPacketIo(server, 0, pool);
            assertTrue(tx.transmitsExternalBuffers(), "net_memif copies chains at transmit");
            int inUseBefore = pool.inUse();
            ExternalBuffers tickets = new ExternalBuffers(arena, 256, tx.externalBufferFreeCallback());
            int[] released = new int[1];
            ExternalBuffers.Released count = owner -> released[0]++;
            // 64 distinct payloads of 4096 bytes in "registered" memory
            MemorySegment memory = arena.allocate(64L * 4096, 64);
            for (long i = 0; i < memory.byteSize(); i++) {
                memory.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 13 + (i >>> 12)));
            }
            MbufBatch out = new MbufBatch(arena, 32);
            MbufBatch in = new MbufBatch(arena, 32);
            Mbuf view = new Mbuf();
            int sent = 0;
            int received = 0;
            int bad = 0;
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (received < frames && System.nanoTime() - deadline < 0) {
                if (sent < frames && tickets.outstanding() < 128 && tx.allocate(out, 2) == 2) {
                    int length = 256 + (sent % 16) * 240; // 256..3856 bytes of payload
                    int slot = sent % 64;
                    long tail = out.removeAt(1);
                    Mbuf head = out.get(0);
                    head.frameLength(headers);
                    head.putIntBE(0, sent).putIntBE(4, length).putIntBE(8, slot);
                    long from = memory.address() + slot * 4096L;
                    view.wrap(tail).attachExternal(from, length, tickets.acquire(sent, from, length));
                    head.chain(tail);
                    sent += tx.transmit(out);
                }
                tickets.poll(count);
                int got = rx.receive(in);
                for (int i = 0; i < got; i++) {
                    Mbuf m = in.get(i);
                    int length = m.getIntBE(4);
                    long from = m.getIntBE(8) * 4096L;
                    boolean whole = m.segmentCount() == 1 && m.dataLength() == headers + length;
                    for (int b = 0; whole && b < length; b += 61) {
                        whole = m.getByte(headers + b) == memory.get(ValueLayout.JAVA_BYTE, from + b);
                    }
                    if (!whole) {
                        bad++;
                    }
                }
                received += got;
                rx.free(in);
            }
            tickets.poll(count);
            assertEquals(frames, received, "frames received");
            assertEquals(0, bad, "frames not whole");
            assertEquals(frames, released[0], "every ticket released by the driver's free");
            assertEquals(0, tickets.outstanding());
            assertEquals(inUseBefore, pool.inUse(), "every mbuf, the attached ones included, back in the pool");
        } finally {
            Files.deleteIfExists(Path.of(socket));
            Files.deleteIfExists(dir);
        }
        assertFalse(Files.exists(dir));
    }
}
