package io.srdnic.cli.nbd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * nbd-local as an operator meets it after a crash: the RNBD server process killed under it (it
 * must say so and exit, not answer EIO for ever), a restart over the sockets a SIGKILL left, and a
 * second start on a socket a live one holds (refused, the live one untouched).
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class NbdLocalSupervisionIT {
    @TempDir
    Path dir;

    private NbdServerProcess start(Path socket, String err) throws IOException {
        return NbdServerProcess.startCommand("nbd-local", socket, dir.resolve(err), "--socket", socket.toString(), "--size", "16M",
            "--paths", "2");
    }

    /** The RNBD server child of nbd-local {@code p}. */
    static ProcessHandle serverChild(Process p) {
        return p.children().filter(c -> c.info().arguments().map(a -> List.of(a).contains("rnbd-server")).orElse(false)).findFirst()
            .orElseThrow(() -> new AssertionError("nbd-local has no rnbd-server child"));
    }

    @Test
    void shouldExitNonZeroAndSayWhyWhenTheServerProcessIsKilled() throws Exception {
        Tools.require("nbdinfo");
        Path socket = dir.resolve("nbd.sock");
        NbdServerProcess local = start(socket, "nbd-local.err");
        try {
            Tools.run(dir, 30, "nbdinfo", "--size", local.uri("disk"));
            ProcessHandle child = serverChild(local.process);
            new ProcessBuilder("kill", "-9", Long.toString(child.pid())).start().waitFor();
            long killed = System.nanoTime();
            assertTrue(local.process.waitFor(15, TimeUnit.SECONDS), "nbd-local exits once its server is gone; stderr: "
                + NbdServerProcess.read(dir.resolve("nbd-local.err")));
            long tookMs = (System.nanoTime() - killed) / 1_000_000;
            String err = NbdServerProcess.read(dir.resolve("nbd-local.err"));
            assertEquals(3, local.process.exitValue(), err);
            assertTrue(err.contains("the RNBD server process (pid " + child.pid() + ") exited with status 137 (killed by SIGKILL)"), err);
            assertFalse(Files.exists(socket), "the NBD socket is closed and removed: no client gets EIO for ever");
            System.out.println("nbd-local exited " + tookMs + " ms after its server was killed");
        } finally {
            local.process.destroyForcibly().waitFor();
        }
    }

    @Test
    void shouldStartCleanlyOverTheSocketsAKilledNbdLocalLeft() throws Exception {
        Tools.require("nbdinfo");
        Path socket = dir.resolve("nbd.sock");
        NbdServerProcess first = start(socket, "first.err");
        ProcessHandle child = serverChild(first.process);
        first.process.destroyForcibly().waitFor(); // kill -9: no shutdown hook, the sockets stay
        assertTrue(child.onExit().get(30, TimeUnit.SECONDS) != null, "its server ends when its stdin closes");
        assertTrue(Files.exists(socket) && Files.exists(Path.of(socket + ".ctl")), "kill -9 left the sockets behind");
        try (NbdServerProcess second = start(socket, "second.err")) {
            String size = Tools.run(dir, 30, "nbdinfo", "--size", second.uri("disk"));
            assertEquals(16L << 20, Long.parseLong(size.strip()));
            String err = NbdServerProcess.read(dir.resolve("second.err"));
            assertTrue(err.contains("removed a stale --socket " + socket), err);
            assertTrue(err.contains("removed a stale control socket " + socket + ".ctl"), err);
        }
    }

    @Test
    void shouldRefuseASocketALiveServerListensOnAndLeaveThatServerServing() throws Exception {
        Tools.require("nbdinfo");
        Path socket = dir.resolve("nbd.sock");
        try (NbdServerProcess live = start(socket, "live.err")) {
            Process second = new ProcessBuilder(System.getProperty("java.home") + "/bin/java", "--enable-native-access=ALL-UNNAMED", "-jar",
                System.getProperty("srdnic.jar"), "nbd-local", "--socket", socket.toString(), "--size", "16M").redirectErrorStream(true)
                .start();
            assertTrue(second.waitFor(60, TimeUnit.SECONDS), "the second start ends at once");
            String said = new String(second.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertNotEquals(0, second.exitValue(), said);
            assertTrue(said.contains("--socket " + socket + " is in use: a running server listens on it"), said);
            assertEquals(16L << 20, Long.parseLong(Tools.run(dir, 30, "nbdinfo", "--size", live.uri("disk")).strip()),
                "the live one still serves");
        }
    }

    @Test
    void rnbdServerShouldReplaceAStaleMemifSocketAndRefuseAFile() throws Exception {
        Path stale = dir.resolve("p0.sock");
        try (ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            s.bind(UnixDomainSocketAddress.of(stale)); // closed without unlinking: what a SIGKILL leaves
        }
        assertTrue(Files.exists(stale));
        Process server = new ProcessBuilder(System.getProperty("java.home") + "/bin/java", "--enable-native-access=ALL-UNNAMED", "-jar",
            System.getProperty("srdnic.jar"), "rnbd-server", "--memory", "d=1M", "--link", "memif", "--memif-socket", stale.toString(),
            "--exit-on-stdin-eof").redirectError(dir.resolve("server.err").toFile()).start();
        try {
            String first = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8))
                .readLine();
            String err = NbdServerProcess.read(dir.resolve("server.err"));
            assertEquals("ready", first, err);
            assertTrue(err.contains("removed a stale memif socket " + stale), err);
        } finally {
            server.getOutputStream().close();
            if (!server.waitFor(30, TimeUnit.SECONDS)) {
                server.destroyForcibly();
            }
        }
        Path file = Files.writeString(dir.resolve("notasocket"), "x");
        Process refused = new ProcessBuilder(System.getProperty("java.home") + "/bin/java", "--enable-native-access=ALL-UNNAMED", "-jar",
            System.getProperty("srdnic.jar"), "rnbd-server", "--memory", "d=1M", "--link", "memif", "--memif-socket", file.toString())
            .redirectErrorStream(true).start();
        assertTrue(refused.waitFor(60, TimeUnit.SECONDS));
        String said = new String(refused.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertNotEquals(0, refused.exitValue(), said);
        assertTrue(said.contains("exists and is not a socket"), said);
        assertEquals("x", Files.readString(file), "a file in the way is never removed");
    }
}
