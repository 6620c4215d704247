package io.srdnic.nbd;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;

/**
 * Reads a client's byte stream through one buffer, so that a burst of small requests costs one
 * read call, not one per header; payloads larger than what is buffered go straight into the
 * caller's buffer. Big-endian, as NBD is.
 *
 * <p>A payload is read {@link WireWriter#CHUNK} bytes at a time and the time each chunk started is
 * kept, as the writer does for its calls: a client that sends the header of a large write and then
 * goes quiet holds a slot and one of the server's large buffers, so a chunk not complete after the
 * reply timeout makes the server's watchdog hang up (see {@link #payloadStalled}).
 */
final class WireReader {
    private final ReadableByteChannel channel;
    /** Unread bytes are between position and limit. */
    private final ByteBuffer buffer;
    /** System.nanoTime() when the payload chunk being read started (never 0 then), 0 outside payloads. */
    private volatile long chunkStarted;

    WireReader(ReadableByteChannel channel, int capacity) {
        this.channel = channel;
        this.buffer = ByteBuffer.allocateDirect(capacity).flip();
    }

    /**
     * Buffers at least {@code n} bytes. Returns false if the stream ends before any byte of them
     * (a clean end between messages); throws EOFException if it ends inside them.
     */
    boolean fill(int n) throws IOException {
        if (buffer.remaining() >= n) {
            return true;
        }
        buffer.compact();
        try {
            while (buffer.position() < n) {
                if (channel.read(buffer) < 0) {
                    if (buffer.position() == 0) {
                        return false;
                    }
                    throw new EOFException("stream ended inside a message");
                }
            }
        } finally {
            buffer.flip();
        }
        return true;
    }

    /** Like {@link #fill} but the end of the stream is an error. */
    void require(int n) throws IOException {
        if (!fill(n)) {
            throw new EOFException("stream ended");
        }
    }

    /** Bytes already read from the channel and not yet consumed. */
    int buffered() {
        return buffer.remaining();
    }

    int getInt() {
        return buffer.getInt();
    }

    long getLong() {
        return buffer.getLong();
    }

    int getUnsignedShort() {
        return buffer.getShort() & 0xFFFF;
    }

    /** Reads exactly dst's remaining bytes into it (a payload: timed, see {@link #payloadStalled}). */
    void readFully(ByteBuffer dst) throws IOException {
        int buffered = Math.min(buffer.remaining(), dst.remaining());
        dst.put(dst.position(), buffer, buffer.position(), buffered);
        dst.position(dst.position() + buffered);
        buffer.position(buffer.position() + buffered);
        int limit = dst.limit();
        try {
            while (dst.hasRemaining()) {
                chunkStarted = started();
                dst.limit(dst.position() + Math.min(dst.remaining(), WireWriter.CHUNK));
                while (dst.hasRemaining()) {
                    if (channel.read(dst) < 0) {
                        throw new EOFException("stream ended inside a payload");
                    }
                }
                dst.limit(limit);
            }
        } finally {
            chunkStarted = 0;
            dst.limit(limit);
        }
    }

    /** Reads and drops {@code n} bytes (a payload refused before it was read: timed as {@link #readFully} is). */
    void skip(long n) throws IOException {
        try {
            long chunkLeft = 0;
            while (n > 0) {
                if (chunkLeft == 0) {
                    chunkStarted = started();
                    chunkLeft = WireWriter.CHUNK;
                }
                require(1);
                int step = (int) Math.min(Math.min(n, chunkLeft), buffer.remaining());
                buffer.position(buffer.position() + step);
                n -= step;
                chunkLeft -= step;
            }
        } finally {
            chunkStarted = 0;
        }
    }

    private static long started() {
        long now = System.nanoTime();
        return now == 0 ? 1 : now;
    }

    /**
     * Whether a payload chunk has been incomplete for longer than {@code timeoutNanos} at
     * {@code now}: the client has stopped sending in the middle of a request. Any thread may ask.
     */
    boolean payloadStalled(long now, long timeoutNanos) {
        long started = chunkStarted;
        return started != 0 && now - started > timeoutNanos && chunkStarted == started;
    }
}
