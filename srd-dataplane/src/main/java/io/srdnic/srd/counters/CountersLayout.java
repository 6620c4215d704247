package io.srdnic.srd.counters;

/**
 * The byte layout of a counters file (docs/counters.md), after Aeron's CountersManager: a header,
 * then a metadata area of fixed-size records (state, type, key, label), then a values area with one
 * value per cache line, so that writers on different cores never share a line. Little-endian.
 * <pre>
 * header (HEADER_LENGTH bytes)
 *   0  magic "SRDC" (int)          4  version (int)
 *   8  writer pid (long)          16  start time, epoch ms (long)
 *  24  heartbeat, epoch ms (long): the writer's last export
 *  32  writer state (int): LIVE, CLOSED      36  capacity: counters the file holds (int)
 *  40  counters refused for want of room (long)
 *  48  writer name length (int)   52  writer name, ASCII, up to NAME_MAX bytes
 * metadata record i at METADATA_OFFSET + i * METADATA_LENGTH
 *   0  state (int): UNUSED, ALLOCATED, FREED; ALLOCATED is stored last, with release
 *   4  type (int): COUNTER (only grows) or GAUGE
 *   8  key (long): what the writer numbers the thing by (a QPN, a path index)
 *  16  free-to-reuse deadline, epoch ms (long)
 *  24  label length (int)         28  label, ASCII, up to LABEL_MAX bytes: "scope name",
 *      the scope "k=v,k=v" (device=sim-1,peer=10.0.0.2:4791,path=3), the name [a-z0-9_]+
 * value i at valuesOffset(capacity) + i * VALUE_LENGTH: one long, stored opaque
 * </pre>
 */
public final class CountersLayout {
    public static final int MAGIC = 0x4344_5253; // "SRDC" read as little-endian bytes
    public static final int VERSION = 1;

    public static final int MAGIC_OFFSET = 0;
    public static final int VERSION_OFFSET = 4;
    public static final int PID_OFFSET = 8;
    public static final int START_TIME_OFFSET = 16;
    public static final int HEARTBEAT_OFFSET = 24;
    public static final int WRITER_STATE_OFFSET = 32;
    public static final int CAPACITY_OFFSET = 36;
    public static final int REFUSED_OFFSET = 40;
    public static final int NAME_LENGTH_OFFSET = 48;
    public static final int NAME_OFFSET = 52;
    public static final int NAME_MAX = 200;
    public static final int HEADER_LENGTH = 256;

    public static final int WRITER_LIVE = 1;
    public static final int WRITER_CLOSED = 2;

    public static final int METADATA_OFFSET = HEADER_LENGTH;
    public static final int METADATA_LENGTH = 128;
    public static final int STATE_OFFSET = 0;
    public static final int TYPE_OFFSET = 4;
    public static final int KEY_OFFSET = 8;
    public static final int REUSE_DEADLINE_OFFSET = 16;
    public static final int LABEL_LENGTH_OFFSET = 24;
    public static final int LABEL_OFFSET = 28;
    public static final int LABEL_MAX = METADATA_LENGTH - LABEL_OFFSET;

    public static final int UNUSED = 0;
    public static final int ALLOCATED = 1;
    public static final int FREED = 2;

    /** A count that only grows (Prometheus: a counter). */
    public static final int COUNTER = 0;
    /** A level that goes up and down (an RTT, a window, an occupancy). */
    public static final int GAUGE = 1;

    /** A cache line: no two values share one. */
    public static final int VALUE_LENGTH = 64;

    /** The file name suffix {@code srdnic stat} looks for in its directory. */
    public static final String FILE_SUFFIX = ".counters";

    private CountersLayout() {
    }

    public static long metadataOffset(int id) {
        return METADATA_OFFSET + (long) id * METADATA_LENGTH;
    }

    /** The values area starts on a cache line after the metadata area. */
    public static long valuesOffset(int capacity) {
        long end = METADATA_OFFSET + (long) capacity * METADATA_LENGTH;
        return (end + VALUE_LENGTH - 1) / VALUE_LENGTH * VALUE_LENGTH;
    }

    public static long fileLength(int capacity) {
        return valuesOffset(capacity) + (long) capacity * VALUE_LENGTH;
    }
}
