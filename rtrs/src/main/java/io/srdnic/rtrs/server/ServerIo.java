package io.srdnic.rtrs.server;

import io.srdnic.rtrs.protocol.Imm;
import io.srdnic.rtrs.protocol.ReadMsg;
import io.srdnic.rtrs.protocol.WriteMsg;
import io.srdnic.verbs.QueuePair;
import java.lang.foreign.MemorySegment;

/**
 * One IO request in one chunk of a session (Linux's rtrs_srv_op): made once per chunk, filled
 * for each request. The chunk stays the request's until {@link #respond}.
 */
public final class ServerIo {
    final ServerSession session;
    final int id;
    final MemorySegment chunk;
    boolean busy;
    boolean read;
    int dataLength;
    int headerOffset;
    int headerLength;
    int readLength;
    long readAddress;
    int readKey;
    boolean invalidate;
    ServerPath path;
    QueuePair qp;
    /** The path incarnation the request came on: a response after the path closed goes nowhere. */
    long pathGeneration;
    /** The answer's immediate and errno, kept while its post waits for room in the send queue. */
    int responseImm;
    int responseErrno;
    /** The answer is in its path's deferred list: the send queue was full when it was given. */
    boolean deferred;

    ServerIo(ServerSession session, int id, MemorySegment chunk) {
        this.session = session;
        this.id = id;
        this.chunk = chunk;
    }

    /** Fills the request from the checked message at {@code off} of the chunk. */
    void take(ServerPath p, QueuePair on, boolean isRead, int off) {
        busy = true;
        deferred = false; // a request that supersedes one whose answer waited: that answer would go nowhere
        path = p;
        qp = on;
        pathGeneration = p.generation;
        read = isRead;
        headerLength = isRead ? ReadMsg.userHeaderLength(chunk, off) : WriteMsg.userHeaderLength(chunk, off);
        headerOffset = off - headerLength;
        dataLength = isRead ? 0 : headerOffset;
        readLength = 0;
        if (isRead && ReadMsg.descs(chunk, off) == 1) {
            readLength = ReadMsg.length(chunk, off);
            readAddress = ReadMsg.address(chunk, off);
            readKey = ReadMsg.key(chunk, off);
        }
        invalidate = isRead && (ReadMsg.flags(chunk, off) & ReadMsg.NEED_INVAL) != 0;
    }

    public boolean isRead() {
        return read;
    }

    /** The chunk: a write's data at its start, the user header at {@link #headerOffset}; a read's answer goes at its start. */
    public MemorySegment chunk() {
        return chunk;
    }

    public int dataLength() {
        return dataLength;
    }

    public int headerOffset() {
        return headerOffset;
    }

    public int headerLength() {
        return headerLength;
    }

    /** Bytes a read asks for (0: the client wants only the status). */
    public int readLength() {
        return readLength;
    }

    /** The session's name (from its INFO_REQ). */
    public String sessionName() {
        return session.name;
    }

    /**
     * Answers the request: {@code errno} 0 for success (a read's data then goes first, RDMA-WRITTEN
     * from the chunk to the client's buffer, with the IO_RSP immediate), else a Linux errno. Once
     * only; the chunk is free for the next request afterwards.
     */
    public void respond(int errno) {
        if (!busy) {
            throw new IllegalStateException("chunk " + id + " has no request to answer");
        }
        busy = false;
        if (path.generation != pathGeneration || !path.connected()) {
            session.server.counters.staleResponses++;
            return;
        }
        responseImm = Imm.ioRsp(id, errno, invalidate);
        responseErrno = errno;
        if (post() != 0) {
            // The send queue is full (a response stays in it until the client's ACK, which may come after the
            // client reused the permit): lost, the client's IO would wait for ever. Posted again from the path's poll.
            deferred = true;
            session.server.counters.deferredResponses++;
            path.defer(this);
        }
    }

    /** Posts the answer; 0, or the send queue's refusal. */
    int post() {
        if (read && responseErrno == 0 && readLength > 0) {
            return path.verbs.writeWithImm(qp, path.chunkRegion, (long) id * session.chunkSize, readLength, readAddress, readKey,
                responseImm, id, false);
        }
        return path.verbs.sendEmpty(qp, responseImm, id);
    }
}
