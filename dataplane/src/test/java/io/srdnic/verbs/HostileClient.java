package io.srdnic.verbs;

import io.srdnic.dataplane.attach.AttachServer;
import io.srdnic.ffm.Libc;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.verbs.attach.CompletionRecord;
import io.srdnic.verbs.attach.ControlSocket;
import io.srdnic.verbs.attach.RecvRecord;
import io.srdnic.verbs.attach.SendRecord;
import io.srdnic.verbs.attach.ShmRing;
import io.srdnic.verbs.attach.control.AllocPdRequest;
import io.srdnic.verbs.attach.control.ControlCodec;
import io.srdnic.verbs.attach.control.ControlMessage;
import io.srdnic.verbs.attach.control.CreateAhRequest;
import io.srdnic.verbs.attach.control.CreateCqRequest;
import io.srdnic.verbs.attach.control.CreateQpRequest;
import io.srdnic.verbs.attach.control.ErrorReply;
import io.srdnic.verbs.attach.control.HandleReply;
import io.srdnic.verbs.attach.control.ModifyQpRequest;
import io.srdnic.verbs.attach.control.OpenReply;
import io.srdnic.verbs.attach.control.OpenRequest;
import io.srdnic.verbs.attach.control.ProtocolException;
import io.srdnic.verbs.attach.control.RegisterMrRequest;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Test harness: a client of the dataplane that does not use the verbs library but speaks the
 * control protocol itself and writes its rings in the shared file directly, as a buggy or hostile
 * tenant can: any record, any index, any size, and its file truncated under the dataplane.
 */
final class HostileClient implements AutoCloseable {
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    /**
     * How long a reply may take before the dataplane is taken for dead: a hang detector, not a
     * latency bound (the well-behaved client's stall bound is asserted on its own). Creating
     * million-entry CQs up to the quota makes the dataplane's heap work; on two shared cores under
     * a full test run that once took more than 10 s.
     */
    private static final long READ_SECONDS = 30;

    final OpenReply info;
    final MemorySegment rings;
    final MemorySegment pool;
    /** The shared file, kept open so that the client can truncate it. */
    final FileChannel file;
    /** ERROR messages the dataplane sent unasked (request id 0): why it dropped this client. */
    final List<String> errors = new ArrayList<>();
    private final ControlSocket channel;
    private final Arena arena = Arena.ofShared();
    private final ByteBuffer in = ByteBuffer.allocate(ControlCodec.MAX_FRAME + ControlCodec.LENGTH_BYTES);
    private final ByteBuffer out = ByteBuffer.allocate(ControlCodec.MAX_FRAME + ControlCodec.LENGTH_BYTES);
    private boolean closedByPeer;
    private int nextId = 1;

    HostileClient(Path dir, int port, long poolBytes, long ringBytes) throws IOException {
        channel = ControlSocket.connect(dir.resolve(AttachServer.SOCKET));
        channel.readTimeout(100); // every read below has a deadline: a dataplane that died must fail the test, not hang it
        info = (OpenReply) call(new OpenRequest(port, poolBytes, ringBytes, ProcessHandle.current().pid()));
        // the descriptor OPEN's reply passed (SCM_RIGHTS), opened again as a channel this client can truncate with
        int memoryFd = channel.takeReceivedFd();
        if (memoryFd < 0) {
            throw new IOException("OPEN's reply passed no descriptor");
        }
        file = FileChannel.open(Path.of("/proc/self/fd/" + memoryFd), StandardOpenOption.READ, StandardOpenOption.WRITE);
        Libc.close(memoryFd);
        MemorySegment all = file.map(FileChannel.MapMode.READ_WRITE, 0, info.fileBytes(), arena);
        rings = all.asSlice(info.ringsOffset(), info.ringsBytes());
        pool = all.asSlice(info.poolOffset(), info.poolBytes());
    }

    /** Sends {@code m} and returns its reply (an ERROR included); unasked messages on the way are kept. */
    ControlMessage call(ControlMessage m) throws IOException {
        int id = nextId++;
        out.clear();
        ControlCodec.write(out, id, m);
        out.flip();
        while (out.hasRemaining()) {
            channel.write(out);
        }
        while (true) {
            ControlMessage reply = readFrame();
            if (reply == null) {
                throw new IOException("the dataplane closed the socket (" + errors + ")");
            }
            if (ControlCodec.requestId(in.rewind()) == id) {
                return reply;
            }
        }
    }

    HandleReply handle(ControlMessage m) throws IOException {
        ControlMessage r = call(m);
        if (r instanceof ErrorReply e) {
            throw new IOException("refused: " + e.message());
        }
        return (HandleReply) r;
    }

    /** The next frame (blocking), or null once the dataplane closed the socket; an unasked ERROR is kept in {@link #errors}. */
    private ControlMessage readFrame() throws IOException {
        try {
            in.clear().limit(ControlCodec.LENGTH_BYTES);
            if (!fill()) {
                return null;
            }
            in.flip();
            int length = ControlCodec.frameLength(in);
            in.limit(ControlCodec.LENGTH_BYTES + length).position(ControlCodec.LENGTH_BYTES);
            if (!fill()) {
                return null;
            }
            in.flip();
            ControlMessage m = ControlCodec.read(in);
            if (ControlCodec.requestId(in.rewind()) == 0 && m instanceof ErrorReply e) {
                errors.add(e.message());
            }
            return m;
        } catch (ProtocolException e) {
            throw new IOException(e);
        }
    }

    private boolean fill() throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(READ_SECONDS);
        while (in.hasRemaining()) {
            if (System.nanoTime() > deadline) {
                throw new IOException("the dataplane sent nothing for " + READ_SECONDS + " s");
            }
            int n;
            try {
                n = channel.read(in);
            } catch (IOException reset) {
                n = -1;
            }
            if (n < 0) {
                closedByPeer = true;
                return false;
            }
        }
        return true;
    }

    /** Reads until the dataplane closes the socket (it drops this client): returns whether it did, with the ERROR it sent first. */
    boolean awaitDropped() throws IOException {
        while (readFrame() != null) {
            // events: skip
        }
        return closedByPeer;
    }

    int allocPd() throws IOException {
        return handle(new AllocPdRequest()).handle();
    }

    HandleReply createCq(int depth) throws IOException {
        return handle(new CreateCqRequest(depth));
    }

    /** An SRD QP on {@code cq}, moved to RTS with Q_Key {@code qkey}. */
    HandleReply srdQp(int pd, int cq, int depth, int qkey) throws IOException {
        HandleReply qp = handle(new CreateQpRequest(pd, QpType.SRD.ordinal(), cq, cq, depth, depth, SendRecord.MAX_SGE, 0, 0, 0, 0));
        handle(ModifyQpRequest.simple(qp.handle(), QpState.INIT, qkey));
        handle(ModifyQpRequest.simple(qp.handle(), QpState.RTR, 0));
        handle(ModifyQpRequest.simple(qp.handle(), QpState.RTS, 0));
        return qp;
    }

    /** A region of {@code length} bytes at {@code offset} in the pool; returns its lkey. */
    int register(int pd, long offset, long length) throws IOException {
        return handle(new RegisterMrRequest(pd, offset, length, pool.address() + offset, Access.LOCAL_WRITE)).handle();
    }

    int addressHandle(int pd, Context peer) throws IOException {
        return handle(new CreateAhRequest(pd, peer.mac(), peer.ip(), peer.udpPort())).handle();
    }

    /** A view of the ring at {@code at} in the ring area, as the client side writes it. */
    ShmRing ring(long at, int capacity, int recordSize) {
        return new ShmRing(rings.asSlice(at, ShmRing.bytes(capacity, recordSize)), capacity, recordSize);
    }

    ShmRing sendRing(HandleReply qp) {
        return ring(qp.firstRing(), qp.firstCapacity(), SendRecord.BYTES);
    }

    ShmRing recvRing(HandleReply qp) {
        return ring(qp.secondRing(), qp.secondCapacity(), RecvRecord.BYTES);
    }

    ShmRing completionRing(HandleReply cq) {
        return ring(cq.firstRing(), cq.firstCapacity(), CompletionRecord.BYTES);
    }

    /** Writes a ring index straight into shared memory (producer or consumer, at {@link ShmRing#PRODUCER_OFFSET} or CONSUMER_OFFSET). */
    static void setIndex(ShmRing ring, long offset, long value) {
        LONG.setRelease(ring.segment(), offset, value);
    }

    static long index(ShmRing ring, long offset) {
        return (long) LONG.getAcquire(ring.segment(), offset);
    }

    /** A send record at {@code at} of {@code ring}: SEND to {@code ah}/{@code qpn}, with the SGEs given as offset, length, lkey triples. */
    static void sendRecord(ShmRing ring, long at, long wrId, int ah, int qpn, int qkey, long[] sges) {
        MemorySegment s = ring.segment();
        s.asSlice(at, SendRecord.BYTES).fill((byte) 0);
        s.set(ValueLayout.JAVA_LONG, at + SendRecord.WR_ID, wrId);
        s.set(ValueLayout.JAVA_INT, at + SendRecord.OPCODE, SendWr.OP_SEND);
        s.set(ValueLayout.JAVA_INT, at + SendRecord.FLAGS, SendWr.SIGNALED);
        s.set(ValueLayout.JAVA_INT, at + SendRecord.AH, ah);
        s.set(ValueLayout.JAVA_INT, at + SendRecord.DEST_QPN, qpn);
        s.set(ValueLayout.JAVA_INT, at + SendRecord.DEST_QKEY, qkey);
        int n = sges.length / 3;
        s.set(ValueLayout.JAVA_INT, at + SendRecord.NUM_SGE, n);
        for (int i = 0; i < n; i++) {
            long e = at + SendRecord.SGES + (long) i * SendRecord.SGE_BYTES;
            s.set(ValueLayout.JAVA_LONG, e + SendRecord.SGE_OFFSET, sges[3 * i]);
            s.set(ValueLayout.JAVA_INT, e + SendRecord.SGE_LENGTH, (int) sges[3 * i + 1]);
            s.set(ValueLayout.JAVA_INT, e + SendRecord.SGE_LKEY, (int) sges[3 * i + 2]);
        }
    }

    /** Its next completion {wrId, status} (the client side of its completion ring), waiting up to 5 s; null if none came. */
    static long[] nextCompletion(ShmRing cq) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (cq.available() <= 0) {
            if (System.nanoTime() > deadline) {
                return null;
            }
            Thread.onSpinWait();
        }
        long at = cq.peek(0);
        long[] wc = {cq.segment().get(ValueLayout.JAVA_LONG, at + CompletionRecord.WR_ID),
            cq.segment().get(ValueLayout.JAVA_INT, at + CompletionRecord.STATUS)};
        cq.release(1);
        return wc;
    }

    static void recvRecord(ShmRing ring, long at, long wrId, long offset, int length, int lkey) {
        MemorySegment s = ring.segment();
        s.set(ValueLayout.JAVA_LONG, at + RecvRecord.WR_ID, wrId);
        s.set(ValueLayout.JAVA_LONG, at + RecvRecord.OFFSET, offset);
        s.set(ValueLayout.JAVA_INT, at + RecvRecord.LENGTH, length);
        s.set(ValueLayout.JAVA_INT, at + RecvRecord.LKEY, lkey);
    }

    @Override
    public void close() throws IOException {
        channel.close();
        file.close();
        arena.close();
    }
}
