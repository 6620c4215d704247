package io.srdnic.cli.rnbd;

import io.srdnic.block.local.MemoryBlockDevice;
import io.srdnic.nbd.spec.Sizes;
import io.srdnic.rnbd.protocol.Rnbd;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;

/**
 * What nbd-local's RNBD server serves as device {@code name}, from {@code --size} and
 * {@code --backing}: memory of --size; or the backing file alone (never the rest of its
 * directory), made at --size when missing. An existing file is served at its own size: a --size
 * that differs is refused with both sizes rather than ignored (growing or cutting a disk image is
 * for qemu-img resize or truncate, not a side effect of starting a server).
 */
record LocalDevice(long bytes, List<String> serverArgs) {

    static LocalDevice of(String name, String size, Path backing) throws IOException {
        Long wanted = size == null ? null : Sizes.parse(size);
        if (wanted != null && (wanted <= 0 || wanted % Rnbd.SECTOR_SIZE != 0)) {
            throw new IllegalArgumentException("--size must be a positive multiple of 512: " + size);
        }
        if (backing == null) {
            if (wanted == null) {
                throw new IllegalArgumentException("give --size BYTES (a memory device) or --backing FILE");
            }
            MemoryBlockDevice.checkFits(wanted); // the child would refuse it; say so here, before starting it
            return new LocalDevice(wanted, List.of("--memory", name + "=" + wanted));
        }
        Path file = backing.toAbsolutePath();
        if (Files.isSymbolicLink(file)) {
            throw new IllegalArgumentException("--backing " + backing + " is a symbolic link: give the file itself");
        }
        if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
            if (wanted == null) {
                throw new IllegalArgumentException("--backing " + backing + " does not exist: give --size to make it");
            }
            try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
                f.setLength(wanted); // sparse: a hole of that size
            }
        }
        if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
            throw new IllegalArgumentException("--backing " + backing + " is not a regular file");
        }
        long actual = Files.size(file);
        if (wanted != null && wanted != actual) {
            throw new IllegalArgumentException("--size " + size + " (" + wanted + " bytes) differs from the size of --backing " + backing
                + " (" + actual + " bytes): leave out --size to serve the file at its size, or resize the file first (qemu-img resize, "
                        + "truncate -s)");
        }
        if (actual == 0 || actual % Rnbd.SECTOR_SIZE != 0) {
            throw new IllegalArgumentException("--backing " + backing + " is " + actual
                    + " bytes: a disk must be a positive multiple of 512");
        }
        return new LocalDevice(actual, List.of("--export-file", name + "=" + file));
    }
}
