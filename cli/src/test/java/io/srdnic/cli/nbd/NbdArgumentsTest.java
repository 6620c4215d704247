package io.srdnic.cli.nbd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.cli.Srdnic;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** srdnic nbd refuses what it cannot serve, with status 1 (2 for picocli's own usage errors), before listening. */
class NbdArgumentsTest {
    @TempDir
    Path dir;

    @Test
    void shouldRefuseBadCommandLinesWithoutListening() throws IOException {
        String sock = dir.resolve("s.sock").toString();
        assertEquals(2, Srdnic.run("nbd", "--socket", sock), "no --export");
        assertEquals(1, Srdnic.run("nbd", "--export", "x=mem:1M"), "neither --socket nor --port");
        assertEquals(1, Srdnic.run("nbd", "--export", "x=mem:lots", "--socket", sock));
        assertEquals(1, Srdnic.run("nbd", "--export", "x=mem:1M", "--export", "x=mem:2M", "--socket", sock), "two exports named x");
        assertEquals(1, Srdnic.run("nbd", "--export", "x=file:" + dir.resolve("missing.img"), "--socket", sock));
        assertEquals(1, Srdnic.run("nbd", "--export", "x=rnbd://h/p", "--socket", sock));
        assertTrue(Files.notExists(Path.of(sock)), "nothing listened");
        Path taken = Files.writeString(dir.resolve("taken"), "not a socket");
        assertEquals(1, Srdnic.run("nbd", "--export", "x=mem:1M", "--socket", taken.toString()), "an existing path");
        assertEquals("not a socket", Files.readString(taken), "and it is left alone");
    }
}
