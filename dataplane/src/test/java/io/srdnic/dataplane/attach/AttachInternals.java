package io.srdnic.dataplane.attach;

import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * Test access to the attach server's package-private probes and fault stand-ins, for tests outside
 * this package (call on the dataplane's thread).
 */
public final class AttachInternals {
    private AttachInternals() {
    }

    /** The newest client's CM pump throws from now on, as a fault in its CM ids would. */
    public static void failCmPumpOfNewestClient(AttachServer server) {
        server.failCmPumpOfNewestClient();
    }

    /** The inline staging buffers of every open client's QPs. */
    public static List<MemorySegment> inlineBuffers(AttachServer server) {
        return server.inlineBuffers();
    }

    /** How many times the server wrote its res file. */
    public static long resWrites(AttachServer server) {
        return server.resWrites();
    }
}
