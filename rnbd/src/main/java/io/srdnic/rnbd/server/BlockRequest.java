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
 *
 * <p>On a device that may block (a file), the request runs on one of the server's {@link IoWorkers}
 * and its answer is given on the poll thread when the workers hand it back ({@link #respond});
 * on a memory device (a memcpy) it runs and answers on the poll thread at once.
 */
final class BlockRequest implements IoCompletion {
    private final ServerIo io;
    private final ByteBuffer chunk;
    private BlockDevice device;
    private IoWorkers workers;
    /** The device a worker runs this request on: closed only once its last such request is answered. */
    private ServedDevice served;
    private int op;
    private int flags;
    private long offset;
    private int length;
    private boolean flushing;
    /** The device's answer, from the worker's completion to {@link #respond} on the poll thread. */
    private int error;

    BlockRequest(ServerIo io) {
        this.io = io;
        this.chunk = io.chunk().asByteBuffer();
    }

    /** Runs a checked operation on {@code s}'s device: on a worker when it may block and {@code workers} has room, else here. */
    void start(ServedDevice s, IoWorkers workers, int op, int flags, long offset, int length) {
        this.device = s.device;
        this.op = op;
        this.flags = flags;
        this.offset = offset;
        this.length = length;
        this.workers = s.mayBlock ? workers : null;
        if (this.workers != null && this.workers.submit(this)) {
            served = s;
            s.inFlight++;
            return;
        }
        this.workers = null;
        begin();
    }

    /** On a worker thread: the whole operation, its PREFLUSH included. */
    void runOnWorker() {
        begin();
    }

    private void begin() {
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
        if (workers != null) {
            this.error = error;
            workers.finished(this); // answered on the poll thread, in respond()
            return;
        }
        io.respond(error);
    }

    /** On the poll thread: the answer of a request a worker ran. */
    void respond() {
        workers = null;
        ServedDevice s = served;
        served = null;
        if (--s.inFlight == 0 && s.closeWhenIdle) {
            s.device.close(); // its last opener closed it while this request was on a worker
        }
        io.respond(error);
    }
}
