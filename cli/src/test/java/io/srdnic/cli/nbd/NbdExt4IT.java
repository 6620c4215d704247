package io.srdnic.cli.nbd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The storage operator's proof: ext4 on the whole block path. {@code srdnic nbd-local} with two
 * paths (an RNBD server process with a memory device, RTRS over two memif links, the NBD gateway)
 * is exposed as a file by nbdfuse and as a block device by a loop device; mkfs.ext4, files
 * written and checksummed, some deleted and {@code fstrim}med (TRIM through every layer), unmounted,
 * {@code e2fsck -f -n} clean; then the loop device and the
 * FUSE mount are taken down and made anew (so nothing is read from a cache above the gateway),
 * mounted again and every file's checksum compared. Root: loop devices and mounts need it; skipped
 * with the reason when /dev/fuse or /dev/loop-control is missing.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class NbdExt4IT {
    @TempDir
    Path dir;

    private final List<Runnable> cleanups = new ArrayList<>();

    @Test
    void ext4ShouldBeCleanAndKeepEveryFileThroughNbdLocalNbdfuseAndALoopDevice() throws Exception {
        assumeTrue(Files.exists(Path.of("/dev/fuse")),
                "no /dev/fuse: FUSE is not available in this kernel or container, nbdfuse cannot run");
        assumeTrue(Files.exists(Path.of("/dev/loop-control")), "no /dev/loop-control: loop devices are not available here");
        assumeTrue("root".equals(System.getProperty("user.name")), "losetup and mount need root (CI runs as root)");
        for (String tool : new String[] {"nbdfuse", "losetup", "mkfs.ext4", "e2fsck", "mount", "umount", "fstrim"}) {
            Tools.require(tool);
        }
        Path socket = dir.resolve("nbd.sock");
        Path fuse = Files.createDirectories(dir.resolve("fuse"));
        Path mnt = Files.createDirectories(dir.resolve("mnt"));
        try (NbdServerProcess server = NbdServerProcess.startCommand("nbd-local", socket, dir.resolve("nbd-local.err"),
            "--socket", socket.toString(), "--size", "256M", "--paths", "2")) {
            try {
                String loop = attach(server, fuse);
                Tools.run(dir, 120, "mkfs.ext4", "-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0", loop);
                int empty = inodesInUse(Tools.run(dir, 120, "e2fsck", "-f", "-n", loop));
                Tools.run(dir, 60, "mount", loop, mnt.toString());
                Map<String, String> written = writeFiles(mnt);
                for (String top : written.keySet().stream().filter(n -> !n.contains("/")).toList()) {
                    Files.delete(mnt.resolve(top)); // freed blocks for fstrim: TRIM through loop, FUSE, NBD, RNBD to the device
                    written.remove(top);
                }
                String trimmed = Tools.run(dir, 120, "fstrim", "-v", mnt.toString());
                Matcher bytes = Pattern.compile("\\((\\d+) bytes\\) trimmed").matcher(trimmed);
                assertTrue(bytes.find() && Long.parseLong(bytes.group(1)) > 0, "fstrim discarded the freed blocks: " + trimmed);
                Tools.run(dir, 120, "umount", mnt.toString());
                String fsck = Tools.run(dir, 120, "e2fsck", "-f", "-n", loop);
                assertTrue(inodesInUse(fsck) >= empty + written.size() + 2,
                        "e2fsck finds at least our 16 files and 2 directories more than on the empty ext4: " + fsck);
                detach(fuse, loop);
                loop = attach(server, fuse);
                Tools.run(dir, 60, "mount", "-o", "ro", loop, mnt.toString());
                for (Map.Entry<String, String> e : written.entrySet()) {
                    assertEquals(e.getValue(), sha256(Files.readAllBytes(mnt.resolve(e.getKey()))), e.getKey() + " after remount");
                }
                Tools.run(dir, 60, "umount", mnt.toString());
                detach(fuse, loop);
            } finally {
                for (int i = cleanups.size() - 1; i >= 0; i--) {
                    cleanups.get(i).run();
                }
                quietly("umount", mnt.toString());
            }
            assertTrue(server.process.isAlive(), "nbd-local served it all: " + NbdServerProcess.read(dir.resolve("nbd-local.err")));
        }
    }

    /** The inodes in use that e2fsck reports ("N/M files"). */
    private static int inodesInUse(String fsck) {
        Matcher m = Pattern.compile("(\\d+)/\\d+ files").matcher(fsck);
        assertTrue(m.find(), fsck);
        return Integer.parseInt(m.group(1));
    }

    /** nbdfuse exposes the export as FUSE/disk (waits for its pid file: the mount is up), losetup makes it a block device. */
    private String attach(NbdServerProcess server, Path fuse) throws Exception {
        Path pid = dir.resolve("nbdfuse.pid");
        Files.deleteIfExists(pid);
        Process nbdfuse = new ProcessBuilder("nbdfuse", "-P", pid.toString(), fuse.resolve("disk").toString(), server.uri("disk"))
            .redirectErrorStream(true).redirectOutput(dir.resolve("nbdfuse.log").toFile()).start();
        cleanups.add(() -> {
            quietly("umount", fuse.toString());
            nbdfuse.destroy();
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!Files.exists(pid) && nbdfuse.isAlive() && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertTrue(Files.exists(pid), "nbdfuse mounted: " + NbdServerProcess.read(dir.resolve("nbdfuse.log")));
        assertEquals(256L << 20, Files.size(fuse.resolve("disk")));
        String loop = Tools.run(dir, 30, "losetup", "--find", "--show", fuse.resolve("disk").toString()).strip();
        assertTrue(loop.startsWith("/dev/loop"), loop);
        cleanups.add(() -> quietly("losetup", "-d", loop));
        return loop;
    }

    /** Loop device and FUSE mount gone; nbdfuse exits once its mount is. */
    private void detach(Path fuse, String loop) throws Exception {
        Tools.run(dir, 30, "losetup", "-d", loop);
        Tools.run(dir, 30, "umount", fuse.toString());
    }

    /** Sixteen files of 64 KiB to 8 MiB of random bytes, two levels deep, synced; their SHA-256 by relative path. */
    private static Map<String, String> writeFiles(Path mnt) throws Exception {
        Map<String, String> sums = new LinkedHashMap<>();
        Random random = new Random(27);
        Files.createDirectories(mnt.resolve("a/b"));
        for (int i = 0; i < 16; i++) {
            byte[] data = new byte[(64 << 10) << random.nextInt(8)];
            random.nextBytes(data);
            String name = (i % 3 == 0 ? "a/b/" : i % 3 == 1 ? "a/" : "") + "file-" + i;
            Files.write(mnt.resolve(name), data);
            sums.put(name, sha256(data));
        }
        Tools.run(mnt, 60, "sync", "-f", mnt.toString());
        return sums;
    }

    private static String sha256(byte[] data) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
    }

    private void quietly(String... command) {
        try {
            new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(dir.resolve("cleanup.log").toFile()).start()
                .waitFor(30, TimeUnit.SECONDS);
        } catch (IOException | InterruptedException e) {
            // cleaning up after a failure: the failure is what counts
        }
    }
}
