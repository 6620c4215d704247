package io.srdnic.nbd;

import io.srdnic.block.BlockDevice;
import io.srdnic.block.BlockSizes;
import io.srdnic.block.IoCompletion;
import java.nio.ByteBuffer;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A device that completes every operation of every connection on one thread of its own, as the
 * gateway's RNBD device does from its single RTRS/RNBD poll thread: whatever that thread does
 * inside a completion, it does for every client at once. The work itself is the inner device's.
 */
final class PollThreadDevice implements BlockDevice {
    private final BlockDevice inner;
    private final ExecutorService poll = Executors.newSingleThreadExecutor(r -> Thread.ofPlatform().daemon()
            .name("test-poll").unstarted(r));

    PollThreadDevice(BlockDevice inner) {
        this.inner = inner;
    }

    @Override
    public long size() {
        return inner.size();
    }

    @Override
    public BlockSizes blockSizes() {
        return inner.blockSizes();
    }

    @Override
    public boolean readOnly() {
        return inner.readOnly();
    }

    @Override
    public boolean multiConnSafe() {
        return inner.multiConnSafe();
    }

    @Override
    public void read(long offset, ByteBuffer dst, IoCompletion done) {
        poll.execute(() -> inner.read(offset, dst, done));
    }

    @Override
    public void write(long offset, ByteBuffer src, boolean fua, IoCompletion done) {
        poll.execute(() -> inner.write(offset, src, fua, done));
    }

    @Override
    public void flush(IoCompletion done) {
        poll.execute(() -> inner.flush(done));
    }

    @Override
    public void trim(long offset, long length, boolean fua, IoCompletion done) {
        poll.execute(() -> inner.trim(offset, length, fua, done));
    }

    @Override
    public void writeZeroes(long offset, long length, boolean fua, boolean mayPunch, IoCompletion done) {
        poll.execute(() -> inner.writeZeroes(offset, length, fua, mayPunch, done));
    }

    @Override
    public void close() {
        poll.shutdownNow();
        inner.close();
    }
}
