package io.srdnic.rnbd.server;

import io.srdnic.block.BlockDevice;
import io.srdnic.block.IoCompletion;
import io.srdnic.rnbd.protocol.Rnbd;
import io.srdnic.rtrs.server.ServerIo;
import java.nio.ByteBuffer;

/**
 * An IO on one RTRS chunk, made once per chunk and reused: the chunk as a ByteBuffer for the
 * backing device, and the completion that answers the client. A PREFLUSH runs a flush first and the
 * operation when it succeeds; the answer goes only when the backing device says the operation (a
 * FUA write on stable storage) is done.
 */
final class BlockRequest implements IoCompletion {
    private final ServerIo io;
    private final ByteBuffer chunk;
    private BlockDevice device;
    private int op;
    private int flags;
    private long offset;
    private int length;
    private boolean flushing;

    BlockRequest(ServerIo io) {
        this.io = io;
        this.chunk = io.chunk().asByteBuffer();
    }

    /** Runs a checked operation on {@code device}. */
    void start(BlockDevice device, int op, int flags, long offset, int length) {
        this.device = device;
        this.op = op;
        this.flags = flags;
        this.offset = offset;
        this.length = length;
        if ((flags & Rnbd.F_PREFLUSH) != 0 && op != Rnbd.OP_FLUSH) {
            flushing = true;
            device.flush(this);
            return;
        }
        run();
    }

    private void run() {
        boolean fua = (flags & Rnbd.F_FUA) != 0;
        switch (op) {
            case Rnbd.OP_READ -> {
                chunk.clear().limit(length);
                device.read(offset, chunk, this);
            }
            case Rnbd.OP_WRITE -> {
                chunk.clear().limit(length);
                device.write(offset, chunk, fua, this);
            }
            case Rnbd.OP_FLUSH -> device.flush(this);
            case Rnbd.OP_DISCARD -> device.trim(offset, length, fua, this);
            case Rnbd.OP_WRITE_ZEROES -> device.writeZeroes(offset, length, fua, (flags & Rnbd.F_NOUNMAP) == 0, this);
            default -> throw new IllegalStateException("unchecked op " + op);
        }
    }

    @Override
    public void complete(int error) {
        if (flushing) {
            flushing = false;
            if (error == 0) {
                run();
                return;
            }
        }
        io.respond(error);
    }
}
