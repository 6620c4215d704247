package io.srdnic.nbd;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.GatheringByteChannel;
import java.nio.channels.WritableByteChannel;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Writes whole messages to a client. Replies come from the connection's reader and its reply
 * writer, so each message goes out under one lock, never interleaved with another. Once a write
 * fails the client is gone: later messages are dropped (their IOs still complete and free their
 * slots).
 *
 * <p>No write call carries more than {@link #CHUNK} bytes, and the time each one started is kept:
 * a call that has not returned after the reply timeout means the client took less than a chunk
 * in that time — it has stopped reading — and {@link #hangUpIfStalled} closes the channel, which
 * ends the blocked call (and the connection's blocked read) at once.
 */
final class WireWriter {
    /** The most one write call carries: a client that reads slowly still shows progress. */
    static final int CHUNK = 1 << 20;

    private final WritableByteChannel channel;
    private final ReentrantLock lock = new ReentrantLock();
    private volatile boolean broken;
    /** System.nanoTime() when the write call in progress started (never 0 then), 0 between calls. */
    private volatile long callStarted;

    WireWriter(WritableByteChannel channel) {
        this.channel = channel;
    }

    /** Writes the buffer's remaining bytes; false if the client is gone. */
    boolean write(ByteBuffer message) {
        lock.lock();
        try {
            writeChunked(message);
        } catch (IOException e) {
            broken = true;
        } finally {
            lock.unlock();
        }
        return !broken;
    }

    /** Writes the first {@code count} messages, with gathering writes where the channel has them. */
    boolean write(ByteBuffer[] messages, int count) {
        lock.lock();
        try {
            if (channel instanceof GatheringByteChannel gathering) {
                writeGathering(gathering, messages, count);
            } else {
                for (int i = 0; i < count; i++) {
                    writeChunked(messages[i]);
                }
            }
        } catch (IOException e) {
            broken = true;
        } finally {
            lock.unlock();
        }
        return !broken;
    }

    /** As many whole messages per call as fit in a chunk; a message larger than a chunk alone, a chunk at a time. */
    private void writeGathering(GatheringByteChannel gathering, ByteBuffer[] messages, int count) throws IOException {
        int first = 0;
        while (!broken && first < count) {
            long bytes = 0;
            int end = first;
            while (end < count && bytes + messages[end].remaining() <= CHUNK) {
                bytes += messages[end++].remaining();
            }
            if (end == first) {
                writeChunked(messages[first++]);
                continue;
            }
            callStarted = started();
            try {
                gathering.write(messages, first, end - first);
            } finally {
                callStarted = 0;
            }
            while (first < count && !messages[first].hasRemaining()) {
                first++;
            }
        }
    }

    private void writeChunked(ByteBuffer message) throws IOException {
        while (!broken && message.hasRemaining()) {
            int limit = message.limit();
            if (message.remaining() > CHUNK) {
                message.limit(message.position() + CHUNK);
            }
            callStarted = started();
            try {
                channel.write(message);
            } finally {
                callStarted = 0;
                message.limit(limit);
            }
        }
    }

    private static long started() {
        long now = System.nanoTime();
        return now == 0 ? 1 : now;
    }

    boolean broken() {
        return broken;
    }

    /**
     * Closes the channel if a write call has been blocked for longer than {@code timeoutNanos}:
     * the client has stopped reading. Returns whether it did. Called by the server's watchdog.
     */
    boolean hangUpIfStalled(long now, long timeoutNanos) {
        long started = callStarted;
        if (started == 0 || now - started <= timeoutNanos || broken || callStarted != started) {
            return false; // (the last check: the call has just returned, the client is reading after all)
        }
        return hangUp();
    }

    /**
     * Closes the channel (the blocked write and the reader's read end with
     * AsynchronousCloseException); later messages are dropped. False if it was already broken.
     */
    boolean hangUp() {
        if (broken) {
            return false;
        }
        broken = true;
        try {
            channel.close();
        } catch (IOException e) {
            // closed all the same
        }
        return true;
    }
}
