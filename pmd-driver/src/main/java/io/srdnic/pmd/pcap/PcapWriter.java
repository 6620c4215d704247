package io.srdnic.pmd.pcap;

import io.srdnic.pmd.Mbuf;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Writes frames to a classic libpcap file that Wireshark, tshark and tcpdump read: nanosecond
 * timestamps (magic {@code 0xa1b23c4d}), LINKTYPE_ETHERNET, snaplen 65535, little-endian.
 * <pre>
 *  file header (24 bytes)                     record header (16 bytes), then incl_len bytes of frame
 *  +-------+-------+-------+-------+-------+   +--------+---------+----------+----------+---------
 *  | magic | 2 | 4 | zone=0| sigfigs=0     |   | ts sec | ts nsec | incl_len | orig_len | frame...
 *  | snaplen=65535 | linktype=1 (Ethernet) |   +--------+---------+----------+----------+---------
 *  +-------+-------+-------+-------+-------+
 * </pre>
 * A frame is taken from an {@link Mbuf}, walking a chain of segments ({@link Mbuf#next()}, at most
 * {@link Mbuf#segmentCount()} of them); a frame longer than the snaplen is cut to it, with its
 * original length kept in {@code orig_len}. The timestamp is the caller's, in nanoseconds since the
 * epoch of whatever clock it reads (virtual time on the simulator, so a simulated run starts at
 * 1970-01-01 00:00:00).
 * <p>
 * Records are staged in one direct buffer, made at construction and written out when it is full,
 * on {@link #flush()} and on {@link #close()}: writing a frame allocates nothing. An I/O error does
 * not throw on the data path: the writer stops, counts every later frame in {@link #framesLost()},
 * and {@link #flush()} or {@link #close()} throws the error. Methods are synchronized, so ports
 * polled by different threads may share one writer (a capture is a debugging aid: the uncontended
 * lock is cheap next to the copy).
 */
public final class PcapWriter implements AutoCloseable {
    /** Classic pcap magic for nanosecond-resolution timestamps. */
    public static final int MAGIC_NANOSECONDS = 0xA1B2_3C4D;
    public static final int VERSION_MAJOR = 2;
    public static final int VERSION_MINOR = 4;
    /** Largest number of bytes of one frame kept in the file. */
    public static final int SNAPLEN = 65535;
    /** LINKTYPE_ETHERNET: frames start with the Ethernet header (no preamble, no FCS). */
    public static final int LINKTYPE_ETHERNET = 1;
    public static final int FILE_HEADER_LENGTH = 24;
    public static final int RECORD_HEADER_LENGTH = 16;
    /** Staging buffer size by default: 1 MiB. */
    public static final int DEFAULT_BUFFER_SIZE = 1 << 20;
    /** The smallest staging buffer: one record of a snaplen-long frame. */
    public static final int MIN_BUFFER_SIZE = RECORD_HEADER_LENGTH + SNAPLEN;

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private final Path path;
    private final FileChannel channel;
    private final ByteBuffer buffer;
    private final MemorySegment staging;
    private final Mbuf segment = new Mbuf();
    private long framesWritten;
    private long framesLost;
    private IOException failure;
    private boolean closed;

    /** Creates (or truncates) {@code path} and writes the file header, with a {@link #DEFAULT_BUFFER_SIZE} buffer. */
    public PcapWriter(Path path) throws IOException {
        this(path, DEFAULT_BUFFER_SIZE);
    }

    /** Creates (or truncates) {@code path} and writes the file header; records are staged in {@code bufferSize} bytes. */
    public PcapWriter(Path path, int bufferSize) throws IOException {
        if (bufferSize < MIN_BUFFER_SIZE) {
            throw new IllegalArgumentException("pcap buffer must hold one snaplen frame and its record header ("
                + MIN_BUFFER_SIZE + " bytes), was " + bufferSize);
        }
        this.path = path;
        this.buffer = ByteBuffer.allocateDirect(bufferSize).order(ByteOrder.LITTLE_ENDIAN);
        this.staging = MemorySegment.ofBuffer(buffer);
        this.channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING);
        buffer.putInt(MAGIC_NANOSECONDS)
            .putShort((short) VERSION_MAJOR)
            .putShort((short) VERSION_MINOR)
            .putInt(0)              // thiszone: timestamps are UTC
            .putInt(0)              // sigfigs
            .putInt(SNAPLEN)
            .putInt(LINKTYPE_ETHERNET);
    }

    /**
     * Appends the frame in {@code frame} (and the segments chained to it) stamped with
     * {@code timestampNanos}; returns false, counting it in {@link #framesLost()}, when the writer
     * is closed or has failed.
     */
    public synchronized boolean write(Mbuf frame, long timestampNanos) {
        if (closed || failure != null) {
            framesLost++;
            return false;
        }
        int segments = Math.max(1, frame.segmentCount());
        long total = 0;
        segment.wrap(frame.address());
        for (int s = 1; ; s++) {
            total += segment.dataLength();
            long next = segment.next();
            if (s >= segments || next == 0) {
                break;
            }
            segment.wrap(next);
        }
        int captured = (int) Math.min(total, SNAPLEN);
        if (buffer.remaining() < RECORD_HEADER_LENGTH + captured && !drain()) {
            framesLost++;
            return false;
        }
        buffer.putInt((int) Math.floorDiv(timestampNanos, NANOS_PER_SECOND))
            .putInt((int) Math.floorMod(timestampNanos, NANOS_PER_SECOND))
            .putInt(captured)
            .putInt((int) Math.min(total, 0xFFFF_FFFFL));
        int at = buffer.position();
        int left = captured;
        segment.wrap(frame.address());
        for (int s = 1; left > 0; s++) {
            int n = Math.min(left, segment.dataLength());
            segment.copyTo(0, staging, at, n);
            at += n;
            left -= n;
            long next = segment.next();
            if (s >= segments || next == 0) {
                break;
            }
            segment.wrap(next);
        }
        buffer.position(at);
        framesWritten++;
        return true;
    }

    /** Writes every staged record to the file; throws the I/O error that stopped this writer, if any. */
    public synchronized void flush() throws IOException {
        if (!closed) {
            drain();
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** Frames written (staged or in the file). */
    public synchronized long framesWritten() {
        return framesWritten;
    }

    /** Frames not written because the writer was closed or had failed. */
    public synchronized long framesLost() {
        return framesLost;
    }

    public Path path() {
        return path;
    }

    /** Flushes and closes the file; throws the I/O error that stopped this writer, if any. Idempotent. */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (failure == null) {
                drain();
            }
        } finally {
            try {
                channel.close();
            } catch (IOException e) {
                if (failure == null) {
                    failure = e;
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** Writes the staged bytes out and empties the buffer; false (remembering why) when the file refused them. */
    private boolean drain() {
        if (failure != null) {
            return false;
        }
        buffer.flip();
        try {
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
            return true;
        } catch (IOException e) {
            failure = e;
            return false;
        } finally {
            buffer.clear();
        }
    }

    @Override
    public String toString() {
        return "PcapWriter[" + path + ", frames=" + framesWritten + ", lost=" + framesLost + "]";
    }
}
