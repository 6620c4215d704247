package io.srdnic.nbd.fuzz;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.GatheringByteChannel;

/**
 * A client in memory: the server reads the given bytes (then the end of the stream) and its output
 * is kept. Reads hand out at most {@code maxRead} bytes and writes take at most {@code maxWrite},
 * as a socket may, so the server's loops over short reads and writes run too.
 */
final class MemoryChannel implements ByteChannel, GatheringByteChannel {
    private final ByteBuffer input;
    private final ByteArrayOutputStream output = new ByteArrayOutputStream();
    private final int maxRead;
    private final int maxWrite;
    private boolean open = true;

    MemoryChannel(byte[] input, int maxRead, int maxWrite) {
        this.input = ByteBuffer.wrap(input);
        this.maxRead = maxRead;
        this.maxWrite = maxWrite;
    }

    @Override
    public int read(ByteBuffer dst) {
        if (!input.hasRemaining()) {
            return -1;
        }
        int n = Math.min(maxRead, Math.min(dst.remaining(), input.remaining()));
        dst.put(input.slice(input.position(), n));
        input.position(input.position() + n);
        return n;
    }

    @Override
    public int write(ByteBuffer src) {
        int n = Math.min(maxWrite, src.remaining());
        byte[] bytes = new byte[n];
        src.get(bytes);
        output.write(bytes, 0, n);
        return n;
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) {
        long total = 0;
        for (int i = offset; i < offset + length && total < maxWrite; i++) {
            int n = (int) Math.min(maxWrite - total, srcs[i].remaining());
            byte[] bytes = new byte[n];
            srcs[i].get(bytes);
            output.write(bytes, 0, n);
            total += n;
        }
        return total;
    }

    @Override
    public long write(ByteBuffer[] srcs) {
        return write(srcs, 0, srcs.length);
    }

    ByteBuffer output() {
        return ByteBuffer.wrap(output.toByteArray());
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public void close() {
        open = false;
    }
}
