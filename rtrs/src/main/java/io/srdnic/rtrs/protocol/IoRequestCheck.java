package io.srdnic.rtrs.protocol;

import java.lang.foreign.MemorySegment;

/**
 * The server's checks of an IO_REQ before it touches the chunk: the immediate names a chunk of
 * the session and an offset inside it, the message there fits the chunk, its type is WRITE or
 * READ, its user header lies before it, and a read's buffer is one desc of 1..chunk size bytes (a
 * longer one would make the server RDMA-WRITE past the chunk: Linux's rtrs-srv was fixed for that).
 * Everything the answer refers to is then inside the chunk.
 */
public final class IoRequestCheck {
    public static final int OK = 0;
    public static final int BAD_CHUNK = 1;
    public static final int BAD_OFFSET = 2;
    public static final int BAD_TYPE = 3;
    public static final int BAD_HEADER_LENGTH = 4;
    public static final int BAD_DESC_COUNT = 5;
    public static final int BAD_READ_LENGTH = 6;

    private IoRequestCheck() {
    }

    /**
     * Checks the request the immediate {@code imm} announces, in {@code chunks} ({@code queueDepth}
     * chunks of {@code chunkSize} bytes, back to back).
     */
    public static int check(int imm, MemorySegment chunks, int chunkSize, int queueDepth, int memBits) {
        int id = Imm.chunkId(imm, memBits);
        int off = Imm.offset(imm, memBits);
        if (id >= queueDepth) {
            return BAD_CHUNK;
        }
        if (off > chunkSize - 2) {
            return BAD_OFFSET;
        }
        long at = (long) id * chunkSize + off; // the message, in the pool: no slice made per request
        int type = Wire.u16(chunks, at);
        if (type == MsgType.WRITE) {
            if (off > chunkSize - WriteMsg.LENGTH) {
                return BAD_OFFSET;
            }
            return WriteMsg.userHeaderLength(chunks, at) > off ? BAD_HEADER_LENGTH : OK;
        }
        if (type != MsgType.READ) {
            return BAD_TYPE;
        }
        if (off > chunkSize - ReadMsg.HEADER) {
            return BAD_OFFSET;
        }
        if (ReadMsg.userHeaderLength(chunks, at) > off) {
            return BAD_HEADER_LENGTH;
        }
        int descs = ReadMsg.descs(chunks, at);
        if (descs > 1) {
            return BAD_DESC_COUNT;
        }
        if (descs == 1) {
            if (off > chunkSize - ReadMsg.length(1)) {
                return BAD_OFFSET;
            }
            int len = ReadMsg.length(chunks, at);
            if (len <= 0 || len > chunkSize) {
                return BAD_READ_LENGTH;
            }
        }
        return OK;
    }
}
