package io.srdnic.ffm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The libc calls against the real kernel: flags that are right on this architecture, errno text, a descriptor passed over a socket. */
class LibcTest {
    @TempDir
    Path dir;

    @Test
    void shouldDescribeAnErrnoByItsCNameWithItsMeaning() {
        assertEquals("ENOSPC (No space left on device)", Libc.describe(Libc.ENOSPC));
        assertEquals("ELOOP (Too many levels of symbolic links)", Libc.describe(Libc.ELOOP));
        assertEquals("errno 200 (Unknown error 200)", Libc.describe(200));
    }

    /** O_NOFOLLOW differs between x86-64 and aarch64: the value used here must make the kernel refuse a link. */
    @Test
    void shouldRefuseToOpenThroughALinkWithNoFollow() throws IOException {
        Path target = Files.writeString(dir.resolve("target"), "x");
        Path link = Files.createSymbolicLink(dir.resolve("link"), target);
        int fd = Libc.open(link.toString(), Libc.O_RDONLY | Libc.O_NOFOLLOW | Libc.O_CLOEXEC, 0);
        assertEquals(-1, fd);
        assertEquals(Libc.ELOOP, Libc.errno());
        int ok = Libc.open(target.toString(), Libc.O_RDONLY | Libc.O_NOFOLLOW | Libc.O_CLOEXEC, 0);
        assertTrue(ok >= 0, Libc.describe(Libc.errno()));
        Libc.close(ok);
    }

    /** A memfd sent with SCM_RIGHTS arrives as a descriptor of the receiver's own, of the same memory. */
    @Test
    void shouldPassAMemfdOverAUnixSocket() throws IOException {
        try (Arena a = Arena.ofConfined(); SocketPair p = new SocketPair(a)) {
            int memfd = Libc.memfdCreate("libc-test", Libc.MFD_CLOEXEC);
            assertEquals(0, Libc.fallocate(memfd, 0, 0, 1 << 16), Libc.describe(Libc.errno()));
            MemorySegment payload = a.allocateFrom("hello");
            assertEquals(6, Libc.sendWithFd(p.server, payload, 6, memfd, Libc.MSG_NOSIGNAL));

            MemorySegment into = a.allocate(64);
            int[] fd = {-1};
            assertEquals(6, Libc.recvWithFd(p.client, into, 64, 0, fd));
            assertEquals("hello", into.getString(0));
            assertTrue(fd[0] >= 0 && fd[0] != memfd, "a descriptor of the receiver's own: " + fd[0]);
            try (Arena shared = Arena.ofShared()) {
                MemorySegment sent = Libc.mapShared(memfd, 1 << 16, shared);
                MemorySegment got = Libc.mapShared(fd[0], 1 << 16, shared);
                sent.set(ValueLayout.JAVA_LONG, 4096, 0x5eed_cafeL);
                assertEquals(0x5eed_cafeL, got.get(ValueLayout.JAVA_LONG, 4096), "the same memory");
            }

            int[] none = {-1};
            assertEquals(1, Libc.send(p.server, payload, 1, Libc.MSG_NOSIGNAL));
            assertEquals(1, Libc.recvWithFd(p.client, into, 64, 0, none));
            assertEquals(-1, none[0], "no descriptor when none was sent");
            assertEquals(0, Libc.close(memfd));
            assertEquals(0, Libc.close(fd[0]));
        }
    }

    /** Unmapping by closing the arena removes a memfd's mappings at once, not when the GC gets to them. */
    @Test
    void shouldUnmapASharedMappingWhenItsArenaCloses() throws IOException {
        int memfd = Libc.memfdCreate("libc-unmap-test", Libc.MFD_CLOEXEC);
        assertEquals(0, Libc.fallocate(memfd, 0, 0, 1 << 16), Libc.describe(Libc.errno()));
        Arena shared = Arena.ofShared();
        Libc.mapShared(memfd, 1 << 16, shared);
        Libc.mapShared(memfd, 1 << 16, shared);
        assertEquals(2, mappingsNamed("libc-unmap-test"));
        shared.close();
        assertEquals(0, mappingsNamed("libc-unmap-test"), "closing the arena unmapped both at once");
        assertEquals(0, Libc.close(memfd));
    }

    /** A connected pair of Unix stream sockets at a path in the test's directory. */
    private final class SocketPair implements AutoCloseable {
        final int listener;
        final int client;
        final int server;

        SocketPair(Arena a) {
            byte[] path = dir.resolve("s").toString().getBytes(StandardCharsets.UTF_8);
            listener = Libc.socket(Libc.AF_UNIX, Libc.SOCK_STREAM | Libc.SOCK_CLOEXEC, 0);
            assertEquals(0, Libc.bind(listener, Libc.unixAddress(a, path), Libc.unixAddressLength(path)), Libc.describe(Libc.errno()));
            assertEquals(0, Libc.listen(listener, 1));
            client = Libc.socket(Libc.AF_UNIX, Libc.SOCK_STREAM | Libc.SOCK_CLOEXEC, 0);
            assertEquals(0, Libc.connect(client, Libc.unixAddress(a, path), Libc.unixAddressLength(path)), Libc.describe(Libc.errno()));
            server = Libc.accept4(listener, Libc.SOCK_CLOEXEC);
            assertTrue(server >= 0);
        }

        @Override
        public void close() {
            for (int f : new int[] {server, client, listener}) {
                assertEquals(0, Libc.close(f));
            }
        }
    }

    private static long mappingsNamed(String name) throws IOException {
        try (Stream<String> lines = Files.lines(Path.of("/proc/self/maps"))) {
            return lines.filter(l -> l.contains("/memfd:" + name)).count();
        }
    }
}
