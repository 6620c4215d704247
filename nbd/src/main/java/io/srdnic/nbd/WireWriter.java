package io.srdnic.nbd;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.GatheringByteChannel;
import java.nio.channels.WritableByteChannel;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Writes whole messages to a client. Replies come from whichever thread completes an IO, so each
 * message goes out under one lock, never interleaved with another. Once a write fails the client
 * is gone: later messages are dropped (their IOs still complete and free their slots).
 */
final class WireWriter {
    private final WritableByteChannel channel;
    private final ReentrantLock lock = new ReentrantLock();
    private volatile boolean broken;

    WireWriter(WritableByteChannel channel) {
        this.channel = channel;
    }

    /** Writes the buffer's remaining bytes; false if the client is gone. */
    boolean write(ByteBuffer message) {
        lock.lock();
        try {
            while (!broken && message.hasRemaining()) {
                channel.write(message);
            }
        } catch (IOException e) {
            broken = true;
        } finally {
            lock.unlock();
        }
        return !broken;
    }

    /** Writes the first {@code count} messages, with one gathering write where the channel has one. */
    boolean write(ByteBuffer[] messages, int count) {
        lock.lock();
        try {
            if (channel instanceof GatheringByteChannel gathering) {
                int first = 0;
                while (!broken && first < count) {
                    gathering.write(messages, first, count - first);
                    while (first < count && !messages[first].hasRemaining()) {
                        first++;
                    }
                }
            } else {
                for (int i = 0; i < count && !broken; i++) {
                    while (messages[i].hasRemaining()) {
                        channel.write(messages[i]);
                    }
                }
            }
        } catch (IOException e) {
            broken = true;
        } finally {
            lock.unlock();
        }
        return !broken;
    }

    boolean broken() {
        return broken;
    }
}
