package io.srdnic.nbd;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;

/**
 * Reads a client's byte stream through one buffer, so that a burst of small requests costs one
 * read call, not one per header; payloads larger than what is buffered go straight into the
 * caller's buffer. Big-endian, as NBD is.
 */
final class WireReader {
    private final ReadableByteChannel channel;
    /** Unread bytes are between position and limit. */
    private final ByteBuffer buffer;

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

    /** Reads exactly dst's remaining bytes into it. */
    void readFully(ByteBuffer dst) throws IOException {
        int buffered = Math.min(buffer.remaining(), dst.remaining());
        dst.put(dst.position(), buffer, buffer.position(), buffered);
        dst.position(dst.position() + buffered);
        buffer.position(buffer.position() + buffered);
        while (dst.hasRemaining()) {
            if (channel.read(dst) < 0) {
                throw new EOFException("stream ended inside a payload");
            }
        }
    }

    /** Reads and drops {@code n} bytes (a payload refused before it was read). */
    void skip(long n) throws IOException {
        while (n > 0) {
            require(1);
            int step = (int) Math.min(n, buffer.remaining());
            buffer.position(buffer.position() + step);
            n -= step;
        }
    }
}
