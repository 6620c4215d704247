package io.srdnic.srd.counters;

import static io.srdnic.srd.counters.CountersLayout.ALLOCATED;
import static io.srdnic.srd.counters.CountersLayout.CAPACITY_OFFSET;
import static io.srdnic.srd.counters.CountersLayout.HEADER_LENGTH;
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
import static io.srdnic.srd.counters.CountersLayout.START_TIME_OFFSET;
import static io.srdnic.srd.counters.CountersLayout.STATE_OFFSET;
import static io.srdnic.srd.counters.CountersLayout.TYPE_OFFSET;
import static io.srdnic.srd.counters.CountersLayout.UNUSED;
import static io.srdnic.srd.counters.CountersLayout.VALUE_LENGTH;
import static io.srdnic.srd.counters.CountersLayout.VERSION;
import static io.srdnic.srd.counters.CountersLayout.VERSION_OFFSET;
import static io.srdnic.srd.counters.CountersLayout.WRITER_CLOSED;
import static io.srdnic.srd.counters.CountersLayout.WRITER_STATE_OFFSET;
import static io.srdnic.srd.counters.CountersLayout.fileLength;
import static io.srdnic.srd.counters.CountersLayout.metadataOffset;
import static io.srdnic.srd.counters.CountersLayout.valuesOffset;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads a counters file another process writes ({@link CountersLayout}), without locks: each value
 * is read whole, and a record counts only if it was ALLOCATED both before its label was read and
 * after its value was (records are reused only a second after they are freed). The mapping stays
 * valid when the writer's file is deleted or replaced: {@link #open} again for the new one.
 */
public final class CountersReader implements AutoCloseable {
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

    private final Path file;
    private final Arena arena;
    private final MemorySegment map;
    private final int capacity;
    private final long valuesOffset;

    private CountersReader(Path file, Arena arena, MemorySegment map, int capacity) {
        this.file = file;
        this.arena = arena;
        this.map = map;
        this.capacity = capacity;
        this.valuesOffset = valuesOffset(capacity);
    }

    /**
     * Maps {@code file} for reading; empty if it is gone, not (yet) a counters file, of another
     * version or shorter than its header says (a writer still making it, or not ours).
     */
    public static Optional<CountersReader> open(Path file) {
        Arena arena = Arena.ofShared();
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = channel.size();
            if (size < HEADER_LENGTH) {
                arena.close();
                return Optional.empty();
            }
            MemorySegment map = channel.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
            int magic = (int) INT.getAcquire(map, (long) MAGIC_OFFSET);
            int capacity = map.get(ValueLayout.JAVA_INT, CAPACITY_OFFSET);
            if (magic != MAGIC || map.get(ValueLayout.JAVA_INT, VERSION_OFFSET) != VERSION || capacity < 1 || fileLength(capacity) > size) {
                arena.close();
                return Optional.empty();
            }
            return Optional.of(new CountersReader(file, arena, map, capacity));
        } catch (IOException | RuntimeException e) {
            arena.close();
            return Optional.empty();
        }
    }

    public Path file() {
        return file;
    }

    public long pid() {
        return map.get(ValueLayout.JAVA_LONG, PID_OFFSET);
    }

    public long startTimeMillis() {
        return map.get(ValueLayout.JAVA_LONG, START_TIME_OFFSET);
    }

    public long heartbeatMillis() {
        return (long) LONG.getOpaque(map, (long) HEARTBEAT_OFFSET);
    }

    /** Whether the writer closed the file (its values are the final ones). */
    public boolean closed() {
        return (int) INT.getAcquire(map, (long) WRITER_STATE_OFFSET) == WRITER_CLOSED;
    }

    /** Whether the writer's process is still running (a crashed writer leaves its file LIVE). */
    public boolean writerRunning() {
        return ProcessHandle.of(pid()).map(ProcessHandle::isAlive).orElse(false);
    }

    /** "live", "closed", or "stale" (the writer died without closing). */
    public String status() {
        return closed() ? "closed" : writerRunning() ? "live" : "stale";
    }

    public String writerName() {
        int n = Math.clamp(map.get(ValueLayout.JAVA_INT, NAME_LENGTH_OFFSET), 0, NAME_MAX);
        return new String(map.asSlice(NAME_OFFSET, n).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.US_ASCII);
    }

    /** Counters the writer could not allocate for want of room. */
    public long refused() {
        return map.get(ValueLayout.JAVA_LONG, REFUSED_OFFSET);
    }

    /** The allocated counters now, by record order. */
    public List<Counter> counters() {
        List<Counter> out = new ArrayList<>();
        for (int id = 0; id < capacity; id++) {
            long m = metadataOffset(id);
            int state = (int) INT.getAcquire(map, m + STATE_OFFSET);
            if (state == UNUSED) {
                break; // records are taken in order: none after the first never used
            }
            if (state != ALLOCATED) {
                continue;
            }
            int type = map.get(ValueLayout.JAVA_INT, m + TYPE_OFFSET);
            long key = map.get(ValueLayout.JAVA_LONG, m + KEY_OFFSET);
            int length = map.get(ValueLayout.JAVA_INT, m + LABEL_LENGTH_OFFSET);
            if (length < 0 || length > LABEL_MAX) {
                continue;
            }
            String label = new String(map.asSlice(m + LABEL_OFFSET, length).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.US_ASCII);
            long value = (long) LONG.getOpaque(map, valuesOffset + (long) id * VALUE_LENGTH);
            VarHandle.loadLoadFence();
            if ((int) INT.getAcquire(map, m + STATE_OFFSET) == ALLOCATED) {
                out.add(new Counter(id, type, key, label, value));
            }
        }
        return out;
    }

    @Override
    public void close() {
        if (arena.scope().isAlive()) {
            arena.close();
        }
    }
}
