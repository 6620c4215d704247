package io.srdnic.srd.counters;

import static io.srdnic.srd.counters.CountersLayout.ALLOCATED;
import static io.srdnic.srd.counters.CountersLayout.CAPACITY_OFFSET;
import static io.srdnic.srd.counters.CountersLayout.FREED;
import static io.srdnic.srd.counters.CountersLayout.HEARTBEAT_OFFSET;
import static io.srdnic.srd.counters.CountersLayout.KEY_OFFSET;
import static io.srdnic.srd.counters.CountersLayout.LABEL_LENGTH_OFFSET;
import static io.srdnic.srd.counters.CountersLayout.LABEL_MAX;
import static io.srdnic.srd.counters.CountersLayout.LABEL_OFFSET;
import static io.srdnic.srd.counters.CountersLayout.MAGIC;
import static io.srdnic.srd.counters.CountersLayout.MAGIC_OFFSET;
import static io.srdnic.srd.counters.CountersLayout.NAME_LENGTH_OFFSET;
import static io.srdnic.srd.counters.CountersLayout.NAME_MAX;
import static io.srdnic.srd.counters.CountersLayout.NAME_OFFSET;
import static io.srdnic.srd.counters.CountersLayout.PID_OFFSET;
import static io.srdnic.srd.counters.CountersLayout.REFUSED_OFFSET;
import static io.srdnic.srd.counters.CountersLayout.REUSE_DEADLINE_OFFSET;
import static io.srdnic.srd.counters.CountersLayout.START_TIME_OFFSET;
import static io.srdnic.srd.counters.CountersLayout.STATE_OFFSET;
import static io.srdnic.srd.counters.CountersLayout.TYPE_OFFSET;
import static io.srdnic.srd.counters.CountersLayout.VALUE_LENGTH;
import static io.srdnic.srd.counters.CountersLayout.VERSION;
import static io.srdnic.srd.counters.CountersLayout.VERSION_OFFSET;
import static io.srdnic.srd.counters.CountersLayout.WRITER_CLOSED;
import static io.srdnic.srd.counters.CountersLayout.WRITER_LIVE;
import static io.srdnic.srd.counters.CountersLayout.WRITER_STATE_OFFSET;
import static io.srdnic.srd.counters.CountersLayout.fileLength;
import static io.srdnic.srd.counters.CountersLayout.metadataOffset;
import static io.srdnic.srd.counters.CountersLayout.valuesOffset;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Writes a counters file ({@link CountersLayout}): allocates and frees counters on the control path
 * and stores their values on the data path, one opaque store each — no lock, no allocation, nothing
 * but the store. One thread writes a given counter; readers in other processes see each value
 * whole (an aligned long) and a record's label before its ALLOCATED state (release store).
 * A freed record is reused only a while later ({@link #REUSE_DELAY_MS}), so a reader that took its
 * label just before the free does not pair it with a new counter's value.
 */
public final class CountersWriter implements AutoCloseable {
    public static final long REUSE_DELAY_MS = 1_000;
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

    private final Path file;
    /** Shared: the writer may be made on one thread and written on the dataplane's. */
    private final Arena arena;
    private final MemorySegment map;
    private final int capacity;
    private final long valuesOffset;
    /** Records never used so far start here. */
    private int nextUnused;
    /** Freed records, oldest first, each reusable after its deadline (in its metadata). */
    private final int[] freed;
    private int freedHead;
    private int freedCount;
    private long refused;

    private CountersWriter(Path file, Arena arena, MemorySegment map, int capacity) {
        this.file = file;
        this.arena = arena;
        this.map = map;
        this.capacity = capacity;
        this.valuesOffset = valuesOffset(capacity);
        this.freed = new int[capacity];
    }

    /** The mode every counters file gets, whatever the umask: its writer's uid writes, its group (operators, a metrics exporter) reads. */
    public static final String MODE = "rw-r-----";

    /**
     * Creates (or replaces) {@code file} holding up to {@code capacity} counters, its header naming
     * this process and {@code writerName}; the directory is created if need be. The file is made
     * under a temporary name, exclusively and without following a link there (O_CREAT|O_EXCL|
     * O_NOFOLLOW: a link planted at that name is refused, its target never written), given mode
     * {@link #MODE} on the open file, and renamed over {@code file} (a rename replaces a link
     * there; it never writes through it).
     */
    public static CountersWriter create(Path file, String writerName, int capacity) {
        if (capacity < 1 || capacity > 1 << 20) {
            throw new IllegalArgumentException("a counters file holds 1..1M counters, not " + capacity);
        }
        byte[] name = ascii(writerName, NAME_MAX);
        try {
            if (file.getParent() != null) {
                Files.createDirectories(file.getParent());
            }
            // Made under a temporary name and moved into place whole: a reader never maps a file
            // that is being truncated under it (a fault), nor one without its header.
            Path made = file.resolveSibling(file.getFileName() + ".tmp-" + ProcessHandle.current().pid());
            long length = fileLength(capacity);
            Arena arena = Arena.ofShared();
            MemorySegment map;
            Files.deleteIfExists(made); // our own pid's half-made copy (a link there is removed, not followed)
            try (FileChannel channel = FileChannel.open(made, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                    StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS)) {
                // By name but without following (the JDK opens it O_NOFOLLOW and fchmods the descriptor): the umask plays no part.
                Files.getFileAttributeView(made, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                    .setPermissions(PosixFilePermissions.fromString(MODE));
                channel.write(ByteBuffer.allocate(1), length - 1); // the file's full length, zero-filled (sparse)
                map = channel.map(FileChannel.MapMode.READ_WRITE, 0, length, arena);
            }
            long now = System.currentTimeMillis();
            map.set(ValueLayout.JAVA_INT, VERSION_OFFSET, VERSION);
            map.set(ValueLayout.JAVA_LONG, PID_OFFSET, ProcessHandle.current().pid());
            map.set(ValueLayout.JAVA_LONG, START_TIME_OFFSET, now);
            map.set(ValueLayout.JAVA_LONG, HEARTBEAT_OFFSET, now);
            map.set(ValueLayout.JAVA_INT, WRITER_STATE_OFFSET, WRITER_LIVE);
            map.set(ValueLayout.JAVA_INT, CAPACITY_OFFSET, capacity);
            map.set(ValueLayout.JAVA_INT, NAME_LENGTH_OFFSET, name.length);
            MemorySegment.copy(name, 0, map, ValueLayout.JAVA_BYTE, NAME_OFFSET, name.length);
            INT.setRelease(map, (long) MAGIC_OFFSET, MAGIC); // last: a reader that sees the magic sees the header
            Files.move(made, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            return new CountersWriter(file, arena, map, capacity);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the counters file " + file + ": " + e.getMessage()
                + " (is the directory writable? choose another with countersDir / --dir)", e);
        }
    }

    public Path file() {
        return file;
    }

    public int capacity() {
        return capacity;
    }

    /**
     * A new counter of {@code type} ({@link CountersLayout#COUNTER} or {@link CountersLayout#GAUGE})
     * with value 0; returns its id, or -1 when the file is full (counted in the header: the writer
     * carries on without it, and {@link #set} ignores -1).
     */
    public int allocate(int type, String label, long key) {
        byte[] bytes = ascii(label, LABEL_MAX);
        int id = takeRecord();
        if (id < 0) {
            map.set(ValueLayout.JAVA_LONG, REFUSED_OFFSET, ++refused);
            return -1;
        }
        long m = metadataOffset(id);
        LONG.setOpaque(map, valueOffset(id), 0L);
        map.set(ValueLayout.JAVA_INT, m + TYPE_OFFSET, type);
        map.set(ValueLayout.JAVA_LONG, m + KEY_OFFSET, key);
        map.set(ValueLayout.JAVA_INT, m + LABEL_LENGTH_OFFSET, bytes.length);
        MemorySegment.copy(bytes, 0, map, ValueLayout.JAVA_BYTE, m + LABEL_OFFSET, bytes.length);
        INT.setRelease(map, m + STATE_OFFSET, ALLOCATED);
        return id;
    }

    private int takeRecord() {
        if (freedCount > 0) {
            int id = freed[freedHead];
            long deadline = map.get(ValueLayout.JAVA_LONG, metadataOffset(id) + REUSE_DEADLINE_OFFSET);
            if (System.currentTimeMillis() - deadline >= 0 || nextUnused == capacity) {
                freedHead = freedHead + 1 == capacity ? 0 : freedHead + 1;
                freedCount--;
                return id;
            }
        }
        return nextUnused < capacity ? nextUnused++ : -1;
    }

    /** Frees counter {@code id} (-1: nothing); its record is reused after {@link #REUSE_DELAY_MS}. */
    public void free(int id) {
        if (id < 0) {
            return;
        }
        long m = metadataOffset(id);
        map.set(ValueLayout.JAVA_LONG, m + REUSE_DEADLINE_OFFSET, System.currentTimeMillis() + REUSE_DELAY_MS);
        INT.setRelease(map, m + STATE_OFFSET, FREED);
        freed[(freedHead + freedCount++) % capacity] = id;
    }

    /** Stores counter {@code id}'s value (-1: a counter that did not fit, ignored). The data-path call: one opaque store. */
    public void set(int id, long value) {
        if (id >= 0) {
            LONG.setOpaque(map, valueOffset(id), value);
        }
    }

    public long get(int id) {
        return id < 0 ? 0 : (long) LONG.getOpaque(map, valueOffset(id));
    }

    /** Tells readers the writer is alive as of {@code epochMillis} (called with each export). */
    public void heartbeat(long epochMillis) {
        LONG.setOpaque(map, (long) HEARTBEAT_OFFSET, epochMillis);
    }

    private long valueOffset(int id) {
        return valuesOffset + (long) id * VALUE_LENGTH;
    }

    /** Marks the file CLOSED (its values stay for readers: the final counts of the run) and unmaps it. */
    @Override
    public void close() {
        if (!arena.scope().isAlive()) {
            return;
        }
        heartbeat(System.currentTimeMillis());
        INT.setRelease(map, (long) WRITER_STATE_OFFSET, WRITER_CLOSED);
        arena.close();
    }

    static byte[] ascii(String s, int max) {
        byte[] bytes = s.getBytes(StandardCharsets.US_ASCII);
        if (bytes.length > max) {
            throw new IllegalArgumentException("longer than " + max + " bytes: " + s);
        }
        return bytes;
    }
}
