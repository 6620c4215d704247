package io.srdnic.nbd.fuzz;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;

/** A client in memory: the server reads the given bytes (then the end of the stream) and its output is kept. */
final class MemoryChannel implements ByteChannel {
    private final ByteBuffer input;
    private final ByteArrayOutputStream output = new ByteArrayOutputStream();
    private boolean open = true;

    MemoryChannel(byte[] input) {
        this.input = ByteBuffer.wrap(input);
    }

    @Override
    public int read(ByteBuffer dst) {
        if (!input.hasRemaining()) {
            return -1;
        }
        int n = Math.min(dst.remaining(), input.remaining());
        dst.put(input.slice(input.position(), n));
        input.position(input.position() + n);
        return n;
    }

    @Override
    public int write(ByteBuffer src) {
        int n = src.remaining();
        byte[] bytes = new byte[n];
        src.get(bytes);
        output.write(bytes, 0, n);
        return n;
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
