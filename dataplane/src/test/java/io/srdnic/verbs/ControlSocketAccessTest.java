package io.srdnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.srdnic.dataplane.attach.AllowRule;
import io.srdnic.dataplane.attach.AttachPolicy;
import io.srdnic.dataplane.attach.AttachServer;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Who may use the control socket and how much of it, as a local user would try: the socket's mode
 * and group are explicit; a client of a uid not allowed (nobody, run with setpriv) is refused by
 * the uid the kernel gives for it (SO_PEERCRED), and allowed when its gid is; connections beyond
 * the total and per-uid limits are told why and closed; one that never sends OPEN is closed when
 * its time is up. Root is needed to run a client as another uid (CI runs as root).
 */
class ControlSocketAccessTest {
    private static final int NOBODY = 65534;
    private Path dir;

    @BeforeEach
    void makeDir() throws IOException {
        // Not a @TempDir (0700): the client running as nobody must reach the socket inside.
        dir = Files.createTempDirectory(Path.of("/tmp"), "srdnic-access-",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    @AfterEach
    void removeDir() throws IOException {
        try (var files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    @Test
    void shouldGiveTheControlSocketMode0660() throws Exception {
        try (AttachedWorld w = new AttachedWorld(dir, 1, AllowRule.ownUidOrRoot())) {
            Path socket = dir.resolve(AttachServer.SOCKET);
            assertEquals("rw-rw----", PosixFilePermissions.toString(Files.getPosixFilePermissions(socket, LinkOption.NOFOLLOW_LINKS)),
                "the default: 0660 whatever the umask (the JVM's is 022 here)");
        }
    }

    @Test
    void shouldGiveTheControlSocketTheGroupAsked() throws Exception {
        try (AttachedWorld w = new AttachedWorld(dir, new AttachPolicy(AllowRule.ownUidOrRoot(), NOBODY, 8, 8, 5_000))) {
            Path socket = dir.resolve(AttachServer.SOCKET);
            assertEquals(NOBODY, (int) (Integer) Files.getAttribute(socket, "unix:gid", LinkOption.NOFOLLOW_LINKS));
            assertEquals("rw-rw----", PosixFilePermissions.toString(Files.getPosixFilePermissions(socket, LinkOption.NOFOLLOW_LINKS)));
        }
    }

    @Test
    void shouldRefuseAClientOfAnotherUidByTheUidTheKernelGives() throws Exception {
        assumeTrue(root(), "running a client as nobody (setpriv --reuid) needs root");
        List<String> lines = new CopyOnWriteArrayList<>();
        Handler h = collecting(lines);
        // The socket's group is nobody's so that nobody can connect at all: what refuses it is the allow rule.
        try (AttachedWorld w = new AttachedWorld(dir, new AttachPolicy(AllowRule.ownUidOrRoot(), NOBODY, 8, 8, 5_000))) {
            Child child = runAsNobody(rawClient(), dir.resolve(AttachServer.SOCKET).toString());
            String out = child.output();
            assertTrue(out.contains("closed by the dataplane") && out.contains("uid " + NOBODY + " (gid " + NOBODY
                    + ") may not attach"), out);
            assertTrue(out.contains("allowed: uid 0"), out);
            assertEquals(1, w.counter("clients_refused"));
            assertEquals(List.of("refused a connection of uid " + NOBODY + " pid " + child.pid() + ": uid " + NOBODY + " (gid " + NOBODY
                + ") may not attach to this dataplane (allowed: uid 0)"), lines, "logged with the uid and pid the kernel gives");
        } finally {
            Logger.getLogger(AttachServer.class.getName()).removeHandler(h);
        }
    }

    /**
     * A client of another uid that the dataplane allows by uid ({@code --allow-uid 65534}, which the
     * command makes this rule of) attaches in full as an application: OPEN, its memory passed by
     * descriptor and mapped, a PD, a CQ and a region written and read back. The run directory is
     * 0755 and the socket 0660 of nobody's group ({@code --group 65534}): what lets it reach the socket.
     */
    @Test
    void shouldAttachAClientOfAnotherUidAllowedByItsUid() throws Exception {
        assumeTrue(root(), "running a client as nobody (setpriv --reuid) needs root");
        attachAsNobody(AllowRule.of(Set.of(NOBODY), Set.of()));
    }

    /** As above, allowed by its gid ({@code --allow-group 65534}). */
    @Test
    void shouldAttachAClientOfAnotherUidAllowedByItsGroup() throws Exception {
        assumeTrue(root(), "running a client as nobody (setpriv --regid) needs root");
        attachAsNobody(AllowRule.of(Set.of(), Set.of(NOBODY)));
    }

    private void attachAsNobody(AllowRule allow) throws Exception {
        try (AttachedWorld w = new AttachedWorld(dir, new AttachPolicy(allow, NOBODY, 8, 8, 30_000), null)) {
            List<String> java = List.of("--enable-native-access=ALL-UNNAMED", "-cp", nobodyClasspath(),
                "-Dsrdnic.shim.path=/nonexistent/no-dpdk-needed-here.so", AttachAsAnotherUid.class.getName());
            String out = runAsNobody(java, dir.toString()).output();
            assertTrue(out.contains("attached uid " + NOBODY + " to ") && out.contains("reads back 0x5eedcafe"), out);
            assertEquals(1, w.counter("clients_attached"));
            assertEquals(0, w.counter("clients_refused"));
            assertEquals(1, w.counter("clients_closed"), "it closed its context in order");
        }
    }

    @Test
    void shouldLetAClientInByItsGroupAndCloseItWhenItNeverOpens() throws Exception {
        assumeTrue(root(), "running a client as nobody (setpriv --regid) needs root");
        AllowRule byGroup = AllowRule.of(Set.of(), Set.of(NOBODY));
        try (AttachedWorld w = new AttachedWorld(dir, new AttachPolicy(byGroup, NOBODY, 8, 8, 300))) {
            String out = runAsNobody(rawClient(), dir.resolve(AttachServer.SOCKET).toString()).output();
            assertTrue(out.contains("no OPEN within 300 ms"), "allowed in by its gid, then closed for never opening: " + out);
            assertEquals(0, w.counter("clients_refused"));
            assertEquals(1, w.counter("open_timeouts"));
        }
    }

    @Test
    void shouldCloseConnectionsBeyondThePerUidLimit() throws Exception {
        try (AttachedWorld w = new AttachedWorld(dir, new AttachPolicy(AllowRule.ownUidOrRoot(), -1, 100, 3, 60_000))) {
            List<SocketChannel> held = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                held.add(connect());
            }
            awaitCounter(w, "clients", 3);
            String refused = readUntilClosed(connect());
            assertTrue(refused.contains("has 3 control connections, its limit (--max-connections-per-uid)"), refused);
            assertEquals(1, w.counter("connections_refused"));
            assertEquals(3, w.counter("clients"), "the three within the limit stay");
            held.getFirst().close();
            awaitCounter(w, "clients", 2);
            held.set(0, connect()); // a slot freed is a slot to take again
            awaitCounter(w, "clients", 3);
            for (SocketChannel c : held) {
                c.close();
            }
        }
    }

    @Test
    void shouldCloseConnectionsBeyondTheTotalLimit() throws Exception {
        try (AttachedWorld w = new AttachedWorld(dir, new AttachPolicy(AllowRule.ownUidOrRoot(), -1, 2, 100, 60_000))) {
            SocketChannel a = connect();
            SocketChannel b = connect();
            awaitCounter(w, "clients", 2);
            String refused = readUntilClosed(connect());
            assertTrue(refused.contains("its limit (--max-connections)"), refused);
            a.close();
            b.close();
        }
    }

    @Test
    void shouldCloseAConnectionThatNeverSendsOpenByDefault() throws Exception {
        try (AttachedWorld w = new AttachedWorld(dir, 1, AllowRule.ownUidOrRoot())) {
            long start = System.nanoTime();
            String said = readUntilClosed(connect());
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(said.contains("no OPEN within " + AttachPolicy.DEFAULT_OPEN_TIMEOUT_MILLIS + " ms"), said);
            assertTrue(waited >= AttachPolicy.DEFAULT_OPEN_TIMEOUT_MILLIS, "not before its time: " + waited + " ms");
            assertEquals(1, w.counter("open_timeouts"));
            assertEquals(0, w.counter("clients"));
        }
    }

    @Test
    void shouldRefuseAConnectionFloodWithoutAllocatingDirectMemory() throws Exception {
        // A refused uid may connect() in a loop: each refusal must cost the dataplane's thread no
        // direct buffer (they are freed only by a GC, and count against the process's direct limit).
        BufferPoolMXBean direct = ManagementFactory
            .getPlatformMXBeans(BufferPoolMXBean.class).stream().filter(b -> b.getName().equals("direct")).findFirst()
            .orElseThrow();
        try (AttachedWorld w = new AttachedWorld(dir, AttachPolicy.of(AllowRule.nobody()))) {
            readUntilClosed(connect()); // the first refusal: what is made once is made
            long countBefore = direct.getCount();
            long bytesBefore = direct.getMemoryUsed();
            int floods = 200;
            for (int i = 0; i < floods; i++) {
                String said = readUntilClosed(connect());
                assertTrue(said.contains("may not attach"), said);
            }
            assertEquals(floods + 1, w.counter("clients_refused"));
            long grew = direct.getCount() - countBefore;
            long grewBytes = direct.getMemoryUsed() - bytesBefore;
            assertTrue(grew < floods / 10, floods + " refused connections made " + grew + " direct buffers (" + grewBytes + " bytes)");
            assertTrue(grewBytes < 64 * 1024, floods + " refused connections took " + grewBytes + " bytes of direct memory");
        }
    }

    /** A uid that floods connect() gets one WARNING line per second (with a count), not one per connection: all are counted. */
    @Test
    void shouldLogRefusedConnectionsAtMostOncePerSecond() throws Exception {
        List<String> lines = new CopyOnWriteArrayList<>();
        Handler h = collecting(lines);
        try (AttachedWorld w = new AttachedWorld(dir, AttachPolicy.of(AllowRule.nobody()))) {
            long start = System.nanoTime();
            int floods = 100;
            for (int i = 0; i < floods; i++) {
                readUntilClosed(connect());
            }
            long seconds = (System.nanoTime() - start) / 1_000_000_000L;
            assertEquals(floods, w.counter("clients_refused"), "every refusal counted");
            assertTrue(lines.size() <= seconds + 1, lines.size() + " lines in " + seconds + " s: " + lines);
            // A refusal logged, one right after it (not logged: within the second), then one a second
            // later, which says the one not logged (the flood above may have ended on a logged line).
            Thread.sleep(1100);
            readUntilClosed(connect());
            readUntilClosed(connect());
            Thread.sleep(1100);
            readUntilClosed(connect());
            String last = lines.get(lines.size() - 1);
            assertTrue(last.contains("more refused since the last such line"), "the count of those not logged: " + lines);
        } finally {
            Logger.getLogger(AttachServer.class.getName()).removeHandler(h);
        }
    }

    /** Collects the attach server's "refused a connection" log lines into {@code lines} until removed. */
    private static Handler collecting(List<String> lines) {
        Handler h = new Handler() {
            @Override
            public void publish(LogRecord r) {
                if (r.getMessage() != null && r.getMessage().startsWith("refused a connection")) {
                    lines.add(r.getMessage());
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger.getLogger(AttachServer.class.getName()).addHandler(h);
        return h;
    }

    private SocketChannel connect() throws IOException {
        SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
        ch.connect(UnixDomainSocketAddress.of(dir.resolve(AttachServer.SOCKET)));
        return ch;
    }

    /** What the dataplane sends before it closes {@code ch} (bounded by a read timeout of the test's own, 30 s). */
    private static String readUntilClosed(SocketChannel ch) throws Exception {
        ByteBuffer in = ByteBuffer.allocate(1 << 16);
        long deadline = System.currentTimeMillis() + 30_000;
        ch.configureBlocking(false);
        while (System.currentTimeMillis() < deadline) {
            if (ch.read(in) < 0) {
                ch.close();
                return new String(in.array(), 0, in.position(), StandardCharsets.ISO_8859_1);
            }
            Thread.sleep(10);
        }
        ch.close();
        throw new AssertionError("the dataplane did not close the connection within 30 s; it sent: "
            + new String(in.array(), 0, in.position(), StandardCharsets.ISO_8859_1));
    }

    private static void awaitCounter(AttachedWorld w, String name, long value) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 10_000;
        while (w.counter(name) != value) {
            if (System.currentTimeMillis() > deadline) {
                throw new AssertionError(name + " is " + w.counter(name) + ", not " + value);
            }
            Thread.sleep(5);
        }
    }

    /** A child's pid (setpriv execs the JVM: the pid the dataplane sees) and what it printed. */
    private record Child(long pid, String output) {
    }

    /** RawControlClient's source, readable by nobody, as the source launcher's arguments. */
    private List<String> rawClient() throws IOException {
        Path source = dir.resolve("RawControlClient.java");
        try (InputStream s = ControlSocketAccessTest.class.getResourceAsStream("/attach/RawControlClient.java")) {
            Files.write(source, s.readAllBytes());
        }
        Files.setPosixFilePermissions(source, PosixFilePermissions.fromString("rw-r--r--"));
        return List.of(source.toString());
    }

    /**
     * This test's class path as nobody can read it: the modules' class directories as they are
     * (world-readable), each jar copied into the 0755 temp dir (the local Maven repository is root's, 0750).
     */
    private String nobodyClasspath() throws IOException {
        Path lib = Files.createDirectory(dir.resolve("lib"), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(
            "rwxr-xr-x")));
        List<String> entries = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path p = Path.of(entry);
            if (Files.isRegularFile(p)) {
                Path copy = Files.copy(p, lib.resolve(entries.size() + "-" + p.getFileName()));
                Files.setPosixFilePermissions(copy, PosixFilePermissions.fromString("rw-r--r--"));
                entries.add(copy.toString());
            } else {
                entries.add(entry);
            }
        }
        return String.join(File.pathSeparator, entries);
    }

    /** Runs a JVM with {@code javaArgs} then {@code arg} as uid and gid nobody (no supplementary groups); its pid and output. */
    private static Child runAsNobody(List<String> javaArgs, String arg) throws Exception {
        List<String> command = new ArrayList<>(List.of("setpriv", "--reuid", Integer.toString(NOBODY), "--regid",
            Integer.toString(NOBODY), "--clear-groups", Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xshare:off", "-Duser.home=/tmp"));
        command.addAll(javaArgs);
        command.add(arg);
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the client as nobody ended");
        return new Child(p.pid(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    private static boolean root() {
        return "root".equals(System.getProperty("user.name"));
    }
}
