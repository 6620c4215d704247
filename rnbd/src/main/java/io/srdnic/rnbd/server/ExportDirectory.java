package io.srdnic.rnbd.server;

import io.srdnic.block.BlockDevice;
import io.srdnic.block.local.FileBlockDevice;
import io.srdnic.block.local.MemoryBlockDevice;
import io.srdnic.rnbd.protocol.Rnbd;
import io.srdnic.rnbd.protocol.RnbdErrno;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a server may export (Linux's rnbd_server dev_search_path): memory devices by name, single
 * files by the name given to each, and the regular files under one directory by their path
 * relative to it. A name never leaves the
 * directory: absolute names, {@code ..} and {@code .} segments are refused before the file system
 * is asked, and the real path (symbolic links followed) must still lie inside the real directory.
 */
public final class ExportDirectory {
    /** Why a name does not open. */
    public static final class Refused extends Exception {
        public final int errno;

        Refused(int errno, String message) {
            super(message);
            this.errno = errno;
        }
    }

    private final Path root;
    private final Map<String, MemoryBlockDevice> memory = new LinkedHashMap<>();
    private final Map<String, Path> files = new LinkedHashMap<>();
    /** Devices the caller made (opened once, never closed by the server), run on the IO workers: they may block. */
    private final Map<String, BlockDevice> given = new LinkedHashMap<>();

    /** {@code root} null: memory devices and single files only. */
    public ExportDirectory(Path root) throws IOException {
        this.root = root == null ? null : root.toRealPath();
    }

    /** A memory-backed device named {@code name}, of {@code size} bytes (a multiple of 512). */
    public ExportDirectory memory(String name, long size) {
        if (size <= 0 || size % Rnbd.SECTOR_SIZE != 0) {
            throw new IllegalArgumentException("memory device " + name + ": size must be a positive multiple of 512, was " + size);
        }
        memory.put(name, new MemoryBlockDevice(size, false));
        return this;
    }

    /**
     * One regular file served under {@code name} and nothing else of its directory (what nbd-local's
     * --backing asks for). The path must name a regular file, not a symbolic link to one.
     */
    public ExportDirectory file(String name, Path path) throws IOException {
        if (name.isEmpty() || memory.containsKey(name) || files.containsKey(name)) {
            throw new IllegalArgumentException("export file " + name + ": the name is empty or taken");
        }
        if (Files.isSymbolicLink(path) || !Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS)) {
            throw new IllegalArgumentException("export file " + name + "=" + path
                    + ": not a regular file (symbolic links are refused: give the real path)");
        }
        long size = Files.size(path);
        if (size % Rnbd.SECTOR_SIZE != 0) {
            throw new IllegalArgumentException("export file " + path + ": its size, " + size
                    + " bytes, is not a multiple of 512 (RNBD counts sectors)");
        }
        files.put(name, path.toAbsolutePath());
        return this;
    }

    /**
     * A device the caller made, exported as {@code name}: opened once, never closed by the server,
     * and, as a file, run on the server's IO workers (it may block).
     */
    public ExportDirectory device(String name, BlockDevice device) {
        if (name.isEmpty() || memory.containsKey(name) || files.containsKey(name) || given.containsKey(name)) {
            throw new IllegalArgumentException("device " + name + ": empty or already exported");
        }
        given.put(name, device);
        return this;
    }

    /** Whether {@code name} is opened once and never closed while the server runs (a memory device, a given one). */
    boolean isMemory(String name) {
        return memory.containsKey(name) || given.containsKey(name);
    }

    /** Whether IO on {@code name} may wait (a file, a given device): it then runs off the poll thread. A memory device is a memcpy. */
    boolean mayBlock(String name) {
        return !memory.containsKey(name);
    }

    /** Opens {@code name}: a memory device, or a regular file under the directory. */
    BlockDevice open(String name) throws Refused {
        MemoryBlockDevice m = memory.get(name);
        if (m != null) {
            return m;
        }
        BlockDevice g = given.get(name);
        if (g != null) {
            return g;
        }
        Path single = files.get(name);
        if (single != null) {
            try {
                return new FileBlockDevice(single, false);
            } catch (IOException e) {
                throw new Refused(RnbdErrno.EIO, "cannot open " + single + ": " + e.getMessage());
            }
        }
        if (root == null) {
            throw new Refused(RnbdErrno.ENOENT, "no device " + name);
        }
        Path file = resolve(name);
        try {
            return new FileBlockDevice(file, false);
        } catch (IOException e) {
            throw new Refused(RnbdErrno.EIO, "cannot open " + file + ": " + e.getMessage());
        }
    }

    /** The real path of {@code name} inside the directory, or Refused (EINVAL: escapes; ENOENT: not there). */
    Path resolve(String name) throws Refused {
        if (name.isEmpty() || name.startsWith("/") || name.indexOf('\\') >= 0) {
            throw new Refused(RnbdErrno.EINVAL, "device name must be relative: " + name);
        }
        for (String segment : name.split("/", -1)) {
            if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
                throw new Refused(RnbdErrno.EINVAL, "device name has an empty, . or .. segment: " + name);
            }
        }
        Path real;
        try {
            real = root.resolve(name).toRealPath();
        } catch (NoSuchFileException e) {
            throw new Refused(RnbdErrno.ENOENT, "no device " + name);
        } catch (IOException e) {
            throw new Refused(RnbdErrno.EIO, "cannot resolve " + name + ": " + e.getMessage());
        }
        if (!real.startsWith(root)) {
            throw new Refused(RnbdErrno.EINVAL, "device " + name + " leads out of the export directory");
        }
        if (!Files.isRegularFile(real)) {
            throw new Refused(RnbdErrno.ENOENT, "device " + name + " is not a regular file");
        }
        return real;
    }
}
