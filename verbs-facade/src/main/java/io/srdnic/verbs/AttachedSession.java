package io.srdnic.verbs;

import io.srdnic.srd.api.AsyncEventQueue;
import io.srdnic.verbs.attach.ControlSocket;
import io.srdnic.verbs.attach.FreeSpace;
import io.srdnic.verbs.attach.SharedLayout;
import io.srdnic.verbs.attach.control.AsyncEventMessage;
import io.srdnic.verbs.attach.control.CloseRequest;
import io.srdnic.verbs.attach.control.CmEventMessage;
import io.srdnic.verbs.attach.control.ControlCodec;
import io.srdnic.verbs.attach.control.ControlMessage;
import io.srdnic.verbs.attach.control.ErrorReply;
import io.srdnic.verbs.attach.control.HandleReply;
import io.srdnic.verbs.attach.control.OpenReply;
import io.srdnic.verbs.attach.control.OpenRequest;
import io.srdnic.verbs.attach.control.ProtocolException;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * An attached context's link to its {@code srdnic dataplane}: the control socket (requests answered
 * in order, one at a time; a reader thread takes replies and the dataplane's async events) and the
 * shared file mapped here (rings and the pool MRs are carved from). When the socket closes under it
 * the dataplane is gone: a DEVICE_FATAL event is queued and every later call throws.
 */
final class AttachedSession implements AutoCloseable {
    private static final long CALL_TIMEOUT_SECONDS = 30;

    final Path dir;
    final OpenReply info;
    final MemorySegment pool;
    final MemorySegment rings;
    private final ControlSocket channel;
    private final Arena arena = Arena.ofShared();
    private final ConcurrentLinkedQueue<AsyncEventQueue.AsyncEvent> events = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<CmEventMessage> cmEvents = new ConcurrentLinkedQueue<>();
    private final ByteBuffer out = ByteBuffer.allocate(ControlCodec.MAX_FRAME + ControlCodec.LENGTH_BYTES);
    private final Thread reader;
    private volatile boolean dead;
    /** Set by the reader thread once it stopped, after queueing the last events. */
    private volatile boolean readerDone;
    private volatile boolean closing;
    private volatile String deathReason = "its control socket closed";
    private volatile CompletableFuture<ControlMessage> pending;
    private int nextId = 1;
    /** What of the pool is handed out to regions ({@code ProtectionDomain.allocateRegion}); never taken back (see allocate). */
    private final FreeSpace poolSpace;

    private AttachedSession(Path dir, ControlSocket channel, OpenReply info, int memoryFd) throws IOException {
        this.dir = dir;
        this.channel = channel;
        this.info = info;
        // The dataplane passed its descriptor of this context's memory with OPEN's reply (SCM_RIGHTS):
        // mapped here, the descriptor closed; close() unmaps it (the arena).
        MemorySegment file = ControlSocket.mapAndClose(memoryFd, info.fileBytes(), arena);
        this.pool = file.asSlice(info.poolOffset(), info.poolBytes());
        this.rings = file.asSlice(info.ringsOffset(), info.ringsBytes());
        this.poolSpace = new FreeSpace(pool.byteSize());
        this.reader = new Thread(this::readLoop, "srdnic-attached-" + info.shmPath());
        reader.setDaemon(true);
        reader.start();
    }

    /** Connects to the dataplane in {@code dir}, opens a context on its port {@code port} and maps the shared file. */
    static AttachedSession open(Path dir, int port, long poolBytes, long ringBytes) {
        Path socket = dir.resolve(SharedLayout.CONTROL_SOCKET);
        ControlSocket ch;
        try {
            ch = ControlSocket.connect(socket);
        } catch (IOException e) {
            throw new VerbsException("cannot reach the srdnic dataplane at " + socket + " (" + e.getMessage()
                + "): is `srdnic dataplane --dir " + dir + "` running, and may this user open its socket?");
        }
        try {
            ByteBuffer buf = ByteBuffer.allocate(ControlCodec.MAX_FRAME + ControlCodec.LENGTH_BYTES);
            ControlCodec.write(buf, 1, new OpenRequest(port, poolBytes, ringBytes, ProcessHandle.current().pid()));
            buf.flip();
            try {
                while (buf.hasRemaining()) {
                    ch.write(buf);
                }
            } catch (IOException refusedAtOnce) {
                // a refused client is told why and closed before it has written: its reason waits to be read
            }
            ControlMessage reply = readFrame(ch, buf);
            if (reply instanceof ErrorReply e) {
                throw new VerbsException("the srdnic dataplane at " + dir + " refused the context: " + e.message());
            }
            if (!(reply instanceof OpenReply info)) {
                throw new VerbsException("the srdnic dataplane at " + dir + " answered OPEN with " + reply.getClass().getSimpleName());
            }
            int memoryFd = ch.takeReceivedFd();
            if (memoryFd < 0) {
                throw new VerbsException("the srdnic dataplane at " + dir + " answered OPEN without passing the context's memory");
            }
            return new AttachedSession(dir, ch, info, memoryFd);
        } catch (IOException | ProtocolException | RuntimeException e) {
            try {
                ch.close();
            } catch (IOException ignored) {
                // nothing more to do
            }
            if (e instanceof VerbsException v) {
                throw v;
            }
            throw new VerbsException("opening a context on the srdnic dataplane at " + dir + " failed: " + e.getMessage());
        }
    }

    /** Reads one whole frame (blocking) into {@code buf} and decodes it. */
    private static ControlMessage readFrame(ControlSocket ch, ByteBuffer buf) throws IOException, ProtocolException {
        buf.clear().limit(ControlCodec.LENGTH_BYTES);
        fill(ch, buf);
        buf.flip();
        int length = ControlCodec.frameLength(buf);
        buf.limit(ControlCodec.LENGTH_BYTES + length).position(ControlCodec.LENGTH_BYTES);
        fill(ch, buf);
        buf.flip();
        return ControlCodec.read(buf);
    }

    private static void fill(ControlSocket ch, ByteBuffer buf) throws IOException {
        while (buf.hasRemaining()) {
            if (ch.read(buf) < 0) {
                throw new EOFException("the dataplane closed the control socket");
            }
        }
    }

    private void readLoop() {
        ByteBuffer buf = ByteBuffer.allocate(ControlCodec.MAX_FRAME + ControlCodec.LENGTH_BYTES);
        try {
            while (true) {
                ControlMessage m = readFrame(channel, buf);
                int id = ControlCodec.requestId(buf.rewind());
                if (id == 0) {
                    if (m instanceof AsyncEventMessage e) {
                        events.add(new AsyncEventQueue.AsyncEvent(e.eventType(), e.addressHandle(), e.remoteIp(), e.qpn(), e.srqn(),
                            e.timeNanos()));
                    } else if (m instanceof CmEventMessage e) {
                        cmEvents.add(e);
                    } else if (m instanceof ErrorReply e) {
                        deathReason = "it dropped this context: " + e.message();
                    }
                    continue;
                }
                CompletableFuture<ControlMessage> p = pending;
                if (p != null) {
                    p.complete(m);
                }
            }
        } catch (IOException | ProtocolException e) {
            dead = true;
            if (!closing) {
                events.add(new AsyncEventQueue.AsyncEvent(AsyncEventQueue.DEVICE_FATAL, 0, 0, 0, 0, System.nanoTime()));
            }
            readerDone = true; // every event the dataplane sent is queued
            CompletableFuture<ControlMessage> p = pending;
            if (p != null) {
                p.completeExceptionally(e);
            }
        }
    }

    /** Throws when the dataplane is gone: what every call on an attached context does first. */
    void checkAlive() {
        if (dead) {
            throw gone();
        }
    }

    boolean isDead() {
        return dead;
    }

    /** The socket is gone and everything read from it is queued: nothing more will come (a call may see the break first). */
    boolean eventsEnded() {
        return readerDone;
    }

    VerbsException gone() {
        return new VerbsException("the srdnic dataplane at " + dir + " is gone (" + deathReason
            + "): this context is dead; open a new one once the dataplane runs again");
    }

    /** Sends {@code request} and waits for its reply, a HandleReply; a refusal is thrown as the dataplane worded it. */
    HandleReply request(ControlMessage request) {
        return call(request, HandleReply.class);
    }

    /** Sends {@code request} and waits for its reply, of type {@code replyType}; a refusal is thrown as the dataplane worded it. */
    synchronized <T extends ControlMessage> T call(ControlMessage request, Class<T> replyType) {
        checkAlive();
        int id = nextId++;
        if (nextId == 0) {
            nextId = 1;
        }
        CompletableFuture<ControlMessage> p = new CompletableFuture<>();
        pending = p;
        out.clear();
        ControlCodec.write(out, id, request);
        out.flip();
        ControlMessage reply;
        try {
            while (out.hasRemaining()) {
                channel.write(out);
            }
            reply = p.get(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (IOException | ExecutionException e) {
            dead = true;
            throw gone();
        } catch (TimeoutException e) {
            throw new VerbsException("the srdnic dataplane at " + dir + " did not answer " + request.getClass().getSimpleName() + " in "
                + CALL_TIMEOUT_SECONDS + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new VerbsException("interrupted waiting for the dataplane");
        } finally {
            pending = null;
        }
        if (reply instanceof ErrorReply e) {
            throw new VerbsException(e.message());
        }
        if (!replyType.isInstance(reply)) {
            throw new VerbsException("the dataplane answered " + request.getClass().getSimpleName() + " with "
                + reply.getClass().getSimpleName());
        }
        return replyType.cast(reply);
    }

    CmEventMessage pollCmEvent() {
        return cmEvents.poll();
    }

    AsyncEventQueue.AsyncEvent pollEvent() {
        return events.poll();
    }

    /**
     * {@code size} bytes of the pool, 64-byte aligned, never handed out again: a deregistered
     * region's bytes may still be named by receives the dataplane holds and sends in flight (the
     * transport does not look up the region again when data lands), so reusing them would let a
     * message for the old region land in a new one.
     */
    synchronized MemorySegment allocate(long size) {
        checkAlive();
        long at = size <= 0 ? -1 : poolSpace.allocate(size);
        if (at < 0) {
            throw new VerbsException("the attached context's shared pool (" + pool.byteSize() + " bytes, " + poolSpace.used()
                + " handed out) cannot hold " + size + " bytes: open the context with a larger ContextConfig.attachedPoolBytes");
        }
        return pool.asSlice(at, size);
    }

    /** Where [{@code segment}, +{@code length}) lies in the pool, or -1 when it is not wholly inside it. */
    long poolOffset(MemorySegment segment, long offset, long length) {
        long at = segment.address() + offset - pool.address();
        return segment.isNative() && at >= 0 && length >= 0 && at + length <= pool.byteSize() ? at : -1;
    }

    /** Tests: what kill -9 of this process does to the dataplane's view (the kernel closes the socket, no CLOSE is sent). */
    void dieForTest() {
        closing = true;
        try {
            channel.close();
        } catch (IOException ignored) {
            // closed either way
        }
    }

    @Override
    public void close() {
        if (!dead) {
            try {
                request(new CloseRequest());
            } catch (VerbsException ignored) {
                // gone meanwhile: the dataplane reclaims a closed socket's context all the same
            }
        }
        closing = true;
        try {
            channel.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        arena.close();
    }
}
