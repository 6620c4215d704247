package io.srdnic.rtrs.session;

import io.srdnic.rtrs.protocol.Errno;
import io.srdnic.rtrs.server.RtrsServerHandler;
import io.srdnic.rtrs.server.ServerIo;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HashMap;
import java.util.Map;

/**
 * The test's server user: a memory disk. A request's user header is {@code long offset, long tag};
 * a write stores the data at the offset, a read answers the bytes there. Counts how often each tag
 * was executed (a re-issued IO may run twice on the server: only its completion must be once).
 */
final class MemoryDisk implements RtrsServerHandler {
    static final int HEADER = 16;
    final MemorySegment bytes;
    final Map<Long, Integer> executed = new HashMap<>();
    int requests;

    MemoryDisk(int size) {
        bytes = Arena.ofAuto().allocate(size);
    }

    @Override
    public void onRequest(ServerIo io) {
        requests++;
        MemorySegment c = io.chunk();
        long offset = c.get(ValueLayout.JAVA_LONG_UNALIGNED, io.headerOffset());
        long tag = c.get(ValueLayout.JAVA_LONG_UNALIGNED, io.headerOffset() + 8);
        executed.merge(tag, 1, Integer::sum);
        int length = io.isRead() ? io.readLength() : io.dataLength();
        if (io.headerLength() != HEADER || offset < 0 || offset + length > bytes.byteSize()) {
            io.respond(Errno.EINVAL);
            return;
        }
        if (io.isRead()) {
            MemorySegment.copy(bytes, offset, c, 0, length);
        } else {
            MemorySegment.copy(c, 0, bytes, offset, length);
        }
        io.respond(0);
    }
}
