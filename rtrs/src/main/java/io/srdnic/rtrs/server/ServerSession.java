package io.srdnic.rtrs.server;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * A client's session on this server (Linux's rtrs_srv_sess): its chunk pool, shared by all its
 * paths, one {@link ServerIo} per chunk, and its paths. Made by the first connection request that
 * says first_conn; gone with its last path.
 */
final class ServerSession {
    final RtrsServer server;
    final long uuidHi;
    final long uuidLo;
    final int queueDepth;
    final int chunkSize;
    final Arena arena = Arena.ofShared();
    final MemorySegment chunks;
    final ServerIo[] ios;
    final List<ServerPath> paths = new ArrayList<>();
    String name = "";

    ServerSession(RtrsServer server, long uuidHi, long uuidLo, int queueDepth, int chunkSize) {
        this.server = server;
        this.uuidHi = uuidHi;
        this.uuidLo = uuidLo;
        this.queueDepth = queueDepth;
        this.chunkSize = chunkSize;
        this.chunks = arena.allocate((long) queueDepth * chunkSize, 4096);
        this.ios = new ServerIo[queueDepth];
        for (int i = 0; i < queueDepth; i++) {
            ios[i] = new ServerIo(this, i, chunks.asSlice((long) i * chunkSize, chunkSize));
        }
    }

    ServerPath path(long hi, long lo) {
        for (ServerPath p : paths) {
            if (p.uuidHi == hi && p.uuidLo == lo) {
                return p;
            }
        }
        return null;
    }
}
