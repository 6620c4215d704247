package io.srdnic.rnbd.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.srdnic.rnbd.protocol.RnbdErrno;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A device name never leads out of the export directory: not by '..', not by an absolute path, not by a symbolic link. */
class ExportDirectoryTest {
    @TempDir
    Path tmp;

    private int refusal(ExportDirectory d, String name) {
        return assertThrows(ExportDirectory.Refused.class, () -> d.resolve(name), name).errno;
    }

    /** exports/sub/a.img, exports/inside.img (a link to it), exports/link.img (a link out to secret.img). */
    private Path exports() throws Exception {
        Path root = Files.createDirectories(tmp.resolve("exports"));
        Files.createDirectories(root.resolve("sub"));
        Files.write(root.resolve("sub/a.img"), new byte[4096]);
        Files.write(tmp.resolve("secret.img"), new byte[4096]);
        Files.createSymbolicLink(root.resolve("link.img"), tmp.resolve("secret.img"));
        Files.createSymbolicLink(root.resolve("inside.img"), root.resolve("sub/a.img"));
        return root;
    }

    @Test
    void shouldResolveFilesInside() throws Exception {
        Path root = exports();
        ExportDirectory d = new ExportDirectory(root);
        assertEquals(root.toRealPath().resolve("sub/a.img"), d.resolve("sub/a.img"));
        assertEquals(root.toRealPath().resolve("sub/a.img"), d.resolve("inside.img"), "a link that stays inside is fine");
    }

    @Test
    void shouldRefuseEveryEscape() throws Exception {
        ExportDirectory d = new ExportDirectory(exports());
        assertEquals(RnbdErrno.EINVAL, refusal(d, "../secret.img"));
        assertEquals(RnbdErrno.EINVAL, refusal(d, "sub/../../secret.img"));
        assertEquals(RnbdErrno.EINVAL, refusal(d, "sub/./a.img"));
        assertEquals(RnbdErrno.EINVAL, refusal(d, "sub//a.img"));
        assertEquals(RnbdErrno.EINVAL, refusal(d, tmp.resolve("secret.img").toString()), "absolute");
        assertEquals(RnbdErrno.EINVAL, refusal(d, "link.img"), "a symbolic link out of the directory");
        assertEquals(RnbdErrno.ENOENT, refusal(d, "nothing.img"));
        assertEquals(RnbdErrno.ENOENT, refusal(d, "sub"), "a directory is no device");
    }

    @Test
    void shouldServeMemoryDevicesWithoutADirectory() throws Exception {
        ExportDirectory d = new ExportDirectory(null).memory("m", 1 << 20);
        assertEquals(1 << 20, d.open("m").size());
        assertEquals(RnbdErrno.ENOENT, assertThrows(ExportDirectory.Refused.class, () -> d.open("file.img")).errno);
        assertThrows(IllegalArgumentException.class, () -> d.memory("odd", 1000));
    }

    @Test
    void shouldServeANamedFileButNothingElseOfItsDirectory() throws Exception {
        Path disk = Files.write(tmp.resolve("disk.img"), new byte[8192]);
        Files.write(tmp.resolve("neighbour.img"), new byte[4096]);
        ExportDirectory d = new ExportDirectory(null).file("disk", disk);
        try (var device = d.open("disk")) {
            assertEquals(8192, device.size());
        }
        assertEquals(RnbdErrno.ENOENT, assertThrows(ExportDirectory.Refused.class, () -> d.open("neighbour.img")).errno);
        assertEquals(RnbdErrno.ENOENT, assertThrows(ExportDirectory.Refused.class, () -> d.open("disk.img")).errno);
    }

    @Test
    void shouldRefuseToNameALinkOrAFileOfPartSectors() throws Exception {
        Path disk = Files.write(tmp.resolve("disk.img"), new byte[8192]);
        Files.createSymbolicLink(tmp.resolve("link.img"), disk);
        assertThrows(IllegalArgumentException.class, () -> new ExportDirectory(null).file("l", tmp.resolve("link.img")), "a link");
        Path odd = Files.write(tmp.resolve("odd.img"), new byte[1000]);
        assertThrows(IllegalArgumentException.class, () -> new ExportDirectory(null).file("o", odd), "not whole sectors");
    }
}
