package io.srdnic.cli;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.srdnic.cli.pktgen.PeerProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The README's one-machine example (PingPong attached to a {@code srdnic dataplane} that serves
 * both ends over two ports joined by one memif socket) run by another user, uid and gid 65534
 * (setpriv, no supplementary groups), against the dataplane's real options: refused by default,
 * naming the uid; served in full with {@code --allow-uid 65534}, and with {@code --allow-group
 * 65534}. The socket's group is 65534 ({@code --group}) and the run directory 0755 under /tmp,
 * which is what lets that user reach the socket at all. Root: to run a process as another uid and
 * to give the socket another group (CI runs as root).
 */
class DataplaneOtherUidIT {
    private static final int NOBODY = 65534;

    @ParameterizedTest
    @CsvSource({"default,,false", "allow-uid,--allow-uid,true", "allow-group,--allow-group,true"})
    void shouldServeAnotherUidOnlyWhenItsUidOrGroupIsAllowed(String name, String option, boolean served) throws Exception {
        assumeTrue(CliRun.root(), "running a client as uid 65534 (setpriv) and giving the socket its group need root");
        Path dir = Files.createTempDirectory(Path.of("/tmp"), "srdnic-otheruid-",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x")); // whatever the umask
        String socket = dir.resolve("pp.sock").toString();
        List<String> args = new ArrayList<>(List.of("dataplane", "--dir", dir.toString(), "--ip", "10.0.0.1", "--log-level", "WARNING",
            "--port", "net_memif0,role=server,id=0,socket=" + socket, "--port", "net_memif1,role=client,id=0,socket=" + socket,
            "--group", Integer.toString(NOBODY)));
        if (option != null) {
            args.addAll(List.of(option, Integer.toString(NOBODY)));
        }
        try (PeerProcess plane = PeerProcess.start("dataplane (" + name + ")", null, args)) {
            awaitLines(plane, List.of("ready", "link up 0", "link up 1"));
            String out = pingPongAsNobody(dir);
            if (served) {
                assertTrue(out.contains("exit 0") && out.contains("b got: ping 2") && out.contains("a got: pong 2"), out);
            } else {
                assertTrue(out.contains("uid " + NOBODY + " (gid " + NOBODY + ") may not attach to this dataplane"), out);
                assertFalse(out.contains("exit 0"), out);
            }
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    /** Waits (90 s) for each of {@code wanted} among the dataplane's stdout lines, in any order (a link may come up before ready). */
    private static void awaitLines(PeerProcess plane, List<String> wanted) {
        Set<String> left = new HashSet<>(wanted);
        List<String> seen = new ArrayList<>();
        long deadline = System.currentTimeMillis() + 90_000;
        while (!left.isEmpty() && System.currentTimeMillis() < deadline) {
            String line = plane.next(Math.max(1, deadline - System.currentTimeMillis()));
            if (line == null || line.equals(PeerProcess.END)) {
                break;
            }
            seen.add(line);
            left.remove(line.strip());
        }
        assertTrue(left.isEmpty(), "the dataplane did not print " + left + "; it printed " + seen);
    }

    /** PingPong 3 --attached DIR, as the README runs it, as uid and gid 65534; its output and "exit N". */
    private static String pingPongAsNobody(Path dir) throws Exception {
        String classpath = System.getProperty("srdnic.jar") + ":" + Path.of("..", "verbs-facade", "target", "test-classes").toAbsolutePath()
            .normalize();
        Process p = new ProcessBuilder("setpriv", "--reuid", Integer.toString(NOBODY), "--regid", Integer.toString(NOBODY),
            "--clear-groups", Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xshare:off", "-Duser.home=/tmp",
            "--enable-native-access=ALL-UNNAMED", "-cp", classpath, "io.srdnic.examples.PingPong", "3", "--attached", dir.toString())
            .redirectErrorStream(true).start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "PingPong as uid 65534 ended");
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return out + "\nexit " + p.exitValue();
    }
}
