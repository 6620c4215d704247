package io.srdnic.cli.rnbd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.cli.Srdnic;
import io.srdnic.rnbd.protocol.Rnbd;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad command lines of rnbd-server, nbd-local and rtrs are refused before anything starts; rnbd:// URIs parse or say why not. */
class RnbdArgumentsTest {
    @TempDir
    Path dir;

    @Test
    void shouldParseRnbdUris() {
        assertEquals(new RnbdUri(0x0A00_0001, "disks/a.img", Rnbd.ACCESS_RW), RnbdUri.parse("//10.0.0.1/disks/a.img"));
        assertEquals(Rnbd.ACCESS_RO, RnbdUri.parse("//10.0.0.1/a?mode=ro").accessMode());
        assertEquals(Rnbd.ACCESS_MIGRATION, RnbdUri.parse("//10.0.0.1/a?mode=migration").accessMode());
        assertThrows(IllegalArgumentException.class, () -> RnbdUri.parse("10.0.0.1/a"));
        assertThrows(IllegalArgumentException.class, () -> RnbdUri.parse("//10.0.0.1/"));
        assertThrows(IllegalArgumentException.class, () -> RnbdUri.parse("//host/a"), "an IPv4 address on the links");
        assertThrows(IllegalArgumentException.class, () -> RnbdUri.parse("//10.0.0.256/a"));
        assertThrows(IllegalArgumentException.class, () -> RnbdUri.parse("//10.0.0.1/a?mode=rx"));
    }

    @Test
    void shouldRefuseBadCommandLinesWithoutStartingAnything() {
        String sock = dir.resolve("s.sock").toString();
        assertEquals(1, Srdnic.run("nbd-local", "--socket", sock, "--size", "1M", "--transport", "srd"), "RTRS is RC only");
        assertEquals(1, Srdnic.run("nbd-local", "--socket", sock, "--size", "1000"), "not whole sectors");
        assertEquals(1, Srdnic.run("nbd-local", "--socket", sock, "--size", "1M", "--paths", "0"));
        assertEquals(1, Srdnic.run("nbd-local", "--socket", sock, "--size", "1M", "--io-connections", "0"), "at least one per path");
        assertEquals(1, Srdnic.run("nbd-local", "--socket", sock, "--size", "1M", "--io-connections", "65"));
        assertEquals(2, Srdnic.run("nbd-local", "--size", "1M"), "no --socket");
        assertTrue(Files.notExists(Path.of(sock)));
        assertEquals(1, Srdnic.run("rnbd-server", "--memif-socket", dir.resolve("m.sock").toString()), "nothing to export");
        assertEquals(1, Srdnic.run("rnbd-server", "--memory", "d=1M"), "no link");
        assertEquals(1, Srdnic.run("rnbd-server", "--memory", "d=1M", "--link", "tap", "--vdev", "x"), "an unknown link kind");
        assertEquals(1, Srdnic.run("nbd", "--export", "x=rnbd://10.0.0.1/p", "--socket", sock), "an rnbd export without links");
        assertEquals(1, Srdnic.run("rtrs", "stats", "--socket", sock), "no nbd-local there");
        assertEquals(2, Srdnic.run("rtrs", "path", "--socket", sock, "--down", "0", "--up", "0"), "down or up, not both");
    }

    @Test
    void shouldServeAnExistingBackingFileAloneAtItsSize() throws Exception {
        Path disk = Files.write(dir.resolve("disk.img"), new byte[1 << 20]);
        Files.write(dir.resolve("other.img"), new byte[4096]);
        LocalDevice d = LocalDevice.of("disk", null, disk);
        assertEquals(1 << 20, d.bytes(), "an existing file is served at its size");
        assertEquals(List.of("--export-file", "disk=" + disk.toAbsolutePath()), d.serverArgs(), "that file alone, not its directory");
        assertEquals(1 << 20, LocalDevice.of("disk", "1M", disk).bytes(), "a --size that matches is fine");
    }

    @Test
    void shouldRefuseASizeThatDiffersFromTheBackingFile() throws Exception {
        Path disk = Files.write(dir.resolve("disk.img"), new byte[1 << 20]);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LocalDevice.of("disk", "2M", disk));
        assertTrue(e.getMessage().contains("2097152") && e.getMessage().contains("1048576"), e.getMessage());
        String sock = dir.resolve("s.sock").toString();
        assertEquals(1, Srdnic.run("nbd-local", "--socket", sock, "--size", "2M", "--backing", disk.toString()), "refused, not ignored");
        assertTrue(Files.notExists(Path.of(sock)));
    }

    @Test
    void shouldMakeAMissingBackingFileAtTheSizeGiven() throws Exception {
        Path made = dir.resolve("new.img");
        assertEquals(4L << 20, LocalDevice.of("disk", "4M", made).bytes());
        assertEquals(4L << 20, Files.size(made), "a missing file is made at --size");
    }

    @Test
    void shouldRefuseADeviceWhoseSizeIsNowhere() throws Exception {
        assertThrows(IllegalArgumentException.class, () -> LocalDevice.of("disk", null, dir.resolve("missing.img")), "missing and no size");
        assertThrows(IllegalArgumentException.class, () -> LocalDevice.of("disk", null, null), "neither size nor file");
        String sock = dir.resolve("s.sock").toString();
        assertEquals(1, Srdnic.run("nbd-local", "--socket", sock), "no size and no backing");
        assertTrue(Files.notExists(Path.of(sock)));
    }

    @Test
    void shouldBackADeviceWithoutAFileByMemoryTheMachineHas() throws Exception {
        assertEquals(List.of("--memory", "disk=1048576"), LocalDevice.of("disk", "1M", null).serverArgs());
        IllegalArgumentException tooBig = assertThrows(IllegalArgumentException.class, () -> LocalDevice.of("disk", "1024T", null));
        assertTrue(tooBig.getMessage().contains("does not fit in memory"), tooBig.getMessage());
    }
}
