package io.srdnic.rtrs.server;

/**
 * The server's user (RNBD's server): gets every IO request a client sends and answers it, now or
 * later, with {@link ServerIo#respond}. Called from {@link RtrsServer#poll}'s thread.
 */
@FunctionalInterface
public interface RtrsServerHandler {
    /**
     * A request: for a write, {@link ServerIo#dataLength} bytes of data at the start of
     * {@link ServerIo#chunk}; for a read, fill the chunk's first {@link ServerIo#readLength} bytes
     * before responding. The user header is at {@link ServerIo#headerOffset} in the chunk.
     */
    void onRequest(ServerIo io);
}
