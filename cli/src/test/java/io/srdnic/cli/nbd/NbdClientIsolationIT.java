package io.srdnic.cli.nbd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.nbd.Nbd;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * No NBD client can stall another or leak what it held, in the packaged {@code srdnic nbd} and
 * through the gateway ({@code srdnic nbd-local}: replies are completed on its single RTRS/RNBD poll
 * thread): a client that stops reading, clients that leave mid-write, concurrent writes at the
 * advertised maximum size with little direct memory. Misbehaving clients are raw sockets
 * ({@link MisbehavingClient}); the well-behaved one is nbdcopy.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class NbdClientIsolationIT {
    private static final int DISCONNECTS = 100;
    /** Thread count noise allowed in the server process (the JIT's compiler threads come and go). */
    private static final int THREAD_SLACK = 6;

    @TempDir
    Path dir;

    private NbdServerProcess nbdLocal(String... extra) throws IOException {
        Path socket = dir.resolve("nbd.sock");
        List<String> args = new ArrayList<>(List.of("--socket", socket.toString(), "--size", "64M", "--paths", "1"));
        args.addAll(List.of(extra));
        return NbdServerProcess.startCommand("nbd-local", socket, dir.resolve("server.err"), args.toArray(String[]::new));
    }

    private NbdServerProcess nbd(List<String> jvmOptions, String... extra) throws IOException {
        Path socket = dir.resolve("nbd.sock");
        List<String> args = new ArrayList<>(List.of("--socket", socket.toString()));
        args.addAll(List.of(extra));
        return NbdServerProcess.startWith(Map.of(), null, jvmOptions, "nbd", socket, dir.resolve("server.err"),
                args.toArray(String[]::new));
    }

    private static int threads(Process p) throws IOException {
        try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(p.pid()), "task"))) {
            return (int) tasks.count();
        }
    }

    @Test
    void midWriteDisconnectsShouldLeaveNoThreadInSrdnicNbd() throws Exception {
        try (NbdServerProcess server = nbd(List.of(), "--export", "disk=mem:64M")) {
            assertNoThreadLeft(server);
        }
    }

    @Test
    void midWriteDisconnectsShouldLeaveNoThreadInTheGateway() throws Exception {
        try (NbdServerProcess server = nbdLocal()) {
            assertNoThreadLeft(server);
        }
    }

    /** 100 clients that send a write's header and a third of its payload, then leave; the server's threads come back to what they were. */
    private void assertNoThreadLeft(NbdServerProcess server) throws Exception {
        int[] lengths = {64 << 10, 1 << 20, 4096};
        for (int warm = 0; warm < 3; warm++) {
            try (MisbehavingClient c = MisbehavingClient.open(server.socket, "disk")) {
                c.send(MisbehavingClient.header(ByteBuffer.allocate(28 + 4096), Nbd.CMD_WRITE, 1, 0, 4096).position(28 + 4096).flip());
                assertEquals(0, c.reply(1, 0));
            }
        }
        Thread.sleep(500);
        int before = threads(server.process);
        for (int i = 0; i < DISCONNECTS; i++) {
            int length = lengths[i % lengths.length];
            try (MisbehavingClient c = MisbehavingClient.open(server.socket, "disk")) {
                ByteBuffer b = MisbehavingClient.header(ByteBuffer.allocate(28 + length / 3), Nbd.CMD_WRITE, i, 4096L * i, length);
                c.send(b.position(b.capacity()).flip());
            }
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        int after = threads(server.process);
        while (after > before + THREAD_SLACK && System.nanoTime() < deadline) {
            Thread.sleep(100);
            after = threads(server.process);
        }
        System.out.println("server threads before " + DISCONNECTS + " mid-write disconnects: " + before + ", after: " + after);
        assertTrue(after <= before + THREAD_SLACK, "server threads before " + before + ", after " + DISCONNECTS
                + " mid-write disconnects " + after);
        try (MisbehavingClient c = MisbehavingClient.open(server.socket, "disk")) { // and it still serves
            c.send(MisbehavingClient.header(ByteBuffer.allocate(28), Nbd.CMD_READ, 7, 0, 4096).flip());
            assertEquals(0, c.reply(7, 4096));
        }
    }

    /**
     * Four connections each write two 32 MiB blocks (the advertised maximum) at once into a server
     * with 64 MiB of direct memory: every write is answered, and succeeds (they wait for the
     * server's large buffer in turn), and the data is there.
     */
    @Test
    void concurrentMaxSizeWritesShouldAllBeAnsweredWithLittleDirectMemory() throws Exception {
        Tools.require("nbdcopy");
        try (NbdServerProcess server = nbd(List.of("-XX:MaxDirectMemorySize=64m"), "--export", "disk=mem:256M")) {
            assertMaxSizeWritesAnswered(server, 2);
        }
    }

    /** The same through the gateway (64 MiB of direct memory for the nbd-local process), one block per connection. */
    @Test
    void concurrentMaxSizeWritesThroughTheGatewayShouldAllBeAnsweredWithLittleDirectMemory() throws Exception {
        Tools.require("nbdcopy");
        Path socket = dir.resolve("nbd.sock");
        try (NbdServerProcess server = NbdServerProcess.startWith(Map.of(), null, List.of("-XX:MaxDirectMemorySize=64m"),
                "nbd-local", socket,
            dir.resolve("server.err"), "--socket", socket.toString(), "--size", "128M", "--paths", "1")) {
            assertMaxSizeWritesAnswered(server, 1);
        }
    }

    /** Four connections write {@code perConnection} blocks of 32 MiB each at once; all answered 0 within 120 s and read back. */
    private void assertMaxSizeWritesAnswered(NbdServerProcess server, int perConnection) throws Exception {
        int max = 32 << 20;
        int connections = 4;
        byte[][] blocks = new byte[connections * perConnection][];
        ExecutorService pool = Executors.newFixedThreadPool(connections);
        List<Future<int[]>> results = new ArrayList<>();
        for (int c = 0; c < connections; c++) {
            int conn = c;
            results.add(pool.submit(() -> {
                try (MisbehavingClient client = MisbehavingClient.open(server.socket, "disk")) {
                    for (int k = 0; k < perConnection; k++) {
                        int index = conn * perConnection + k;
                        byte[] data = new byte[max];
                        new Random(index).nextBytes(data);
                        blocks[index] = data;
                        ByteBuffer header = MisbehavingClient.header(ByteBuffer.allocate(28), Nbd.CMD_WRITE, index,
                                (long) index * max, max);
                        client.send(header.flip());
                        client.send(ByteBuffer.wrap(data));
                    }
                    int[] errors = new int[perConnection];
                    for (int k = 0; k < perConnection; k++) {
                        errors[k] = client.reply(conn * perConnection + k, 0);
                    }
                    return errors;
                }
            }));
        }
        pool.shutdown();
        assertTrue(pool.awaitTermination(120, TimeUnit.SECONDS), "every max-size write answered within 120 s; server log: "
            + NbdServerProcess.read(dir.resolve("server.err")));
        for (Future<int[]> f : results) {
            assertArrayEquals(new int[perConnection], f.get(), "every write succeeded (errno 0)");
        }
        Path back = dir.resolve("back.img");
        Tools.run(dir, 120, "nbdcopy", server.uri("disk"), back.toString());
        byte[] all = Files.readAllBytes(back);
        for (int i = 0; i < blocks.length; i++) {
            assertTrue(Arrays.equals(blocks[i], 0, max, all, i * max, (i + 1) * max), "block " + i + " read back as written");
        }
    }

    /**
     * With 4 MiB of direct memory, 20 clients that stay connected each write 256 KiB (a buffer of
     * their own, kept by their connection) and then 32 MiB: what finds no memory is answered
     * ENOMEM (12) — nothing is left unanswered (or, when not even the connection's read buffer can
     * be had, the client is hung up on before the greeting) — it is logged, and the server goes
     * on serving.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void requestsWithoutDirectMemoryShouldBeAnsweredEnomemNotLost() throws Exception {
        int small = 256 << 10;
        int clients = 20;
        try (NbdServerProcess server = nbd(List.of("-XX:MaxDirectMemorySize=4m"), "--export", "disk=mem:64M")) {
            List<MisbehavingClient> open = new ArrayList<>();
            int ok = 0;
            int enomem = 0;
            int hungUp = 0;
            try {
                for (int i = 0; i < clients; i++) {
                    MisbehavingClient c;
                    try {
                        c = MisbehavingClient.open(server.socket, "disk");
                    } catch (EOFException e) {
                        hungUp++;
                        continue;
                    }
                    open.add(c);
                    c.send(MisbehavingClient.header(ByteBuffer.allocate(28), Nbd.CMD_WRITE, i, (long) i * small, small).flip());
                    c.send(ByteBuffer.allocate(small));
                    int error = c.reply(i, 0);
                    assertTrue(error == 0 || error == 12, "client " + i + ": errno " + error);
                    ok += error == 0 ? 1 : 0;
                    enomem += error == 12 ? 1 : 0;
                }
                MisbehavingClient first = open.get(0);
                first.send(MisbehavingClient.header(ByteBuffer.allocate(28), Nbd.CMD_WRITE, 100, 32L << 20, 32 << 20).flip());
                first.send(ByteBuffer.allocate(32 << 20));
                assertEquals(12, first.reply(100, 0), "no memory for a 32 MiB buffer: ENOMEM");
            } finally {
                for (MisbehavingClient c : open) {
                    c.close();
                }
            }
            System.out.println("4 MiB of direct memory, " + clients + " clients writing 256 KiB: " + ok + " ok, " + enomem + " ENOMEM, "
                + hungUp + " hung up on before the greeting; then a 32 MiB write: ENOMEM");
            assertTrue(enomem > 0, "some 256 KiB writes found no memory: " + ok + " ok, " + hungUp + " hung up on");
            assertTrue(NbdServerProcess.read(dir.resolve("server.err")).contains("direct memory exhausted"), "logged");
            Thread.sleep(1000); // the closed connections' buffers are garbage now
            try (MisbehavingClient c = MisbehavingClient.open(server.socket, "disk")) {
                c.send(MisbehavingClient.header(ByteBuffer.allocate(28 + 4096), Nbd.CMD_WRITE, 1, 0, 4096).position(28 + 4096).flip());
                assertEquals(0, c.reply(1, 0), "the server still serves");
            }
        }
    }

    /**
     * Through the gateway: a client with 16 MiB of unread read replies must not delay nbdcopy
     * (4 MiB in and out, bit-identical, within 15 s; it hangs for ever when the poll thread blocks
     * on the stalled socket), and is hung up on after --reply-timeout (20 s), not before: logged.
     */
    @Test
    void aClientThatStopsReadingShouldNotDelayAnotherThroughTheGateway() throws Exception {
        Tools.require("nbdcopy");
        Path source = Tools.randomImage(dir, "source.img", 4 << 20, 11);
        try (NbdServerProcess server = nbdLocal("--reply-timeout", "20")) {
            MisbehavingClient stalled = MisbehavingClient.open(server.socket, "disk");
            ByteBuffer reads = ByteBuffer.allocate(64 * 28);
            for (int i = 0; i < 64; i++) {
                MisbehavingClient.header(reads, Nbd.CMD_READ, i, (long) i * (256 << 10), 256 << 10);
            }
            long stalledAt = System.nanoTime();
            stalled.send(reads.flip());
            Thread.sleep(2000); // its replies fill the socket; the poll thread would be blocked on it by now
            Path back = dir.resolve("back.img");
            long start = System.nanoTime();
            Tools.run(dir, 15, "nbdcopy", "--flush", source.toString(), server.uri("disk"));
            Tools.run(dir, 15, "nbdcopy", server.uri("disk"), back.toString());
            long copyMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertArrayEquals(Files.readAllBytes(source), Arrays.copyOf(Files.readAllBytes(back), 4 << 20));
            System.out.println("nbdcopy 4 MiB in and out while another client stalled: " + copyMillis + " ms");
            Path log = dir.resolve("server.err");
            assertFalse(NbdServerProcess.read(log).contains("not reading"), "not hung up on before the timeout");
            long deadline = stalledAt + TimeUnit.SECONDS.toNanos(20 + 15);
            while (!NbdServerProcess.read(log).contains("not reading") && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
            long hungUpAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stalledAt);
            assertTrue(NbdServerProcess.read(log).contains("not reading"), "hung up on after the timeout, and logged: "
                    + NbdServerProcess.read(log));
            assertTrue(hungUpAfter >= 20_000, "not before the timeout: " + hungUpAfter + " ms");
            System.out.println("stalled client hung up on after " + hungUpAfter + " ms (--reply-timeout 20)");
            long received = 0;
            byte[] drain = new byte[1 << 16];
            for (int n; (n = stalled.in.read(drain)) >= 0; ) {
                received += n;
            }
            assertTrue(received < 64L * ((256 << 10) + 16), "its stream ended before all its replies: " + received + " bytes");
            stalled.close();
        }
    }
}
