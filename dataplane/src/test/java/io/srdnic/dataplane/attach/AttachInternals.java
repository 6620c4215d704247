package io.srdnic.dataplane.attach;

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

    /** How many times the server wrote its res file. */
    public static long resWrites(AttachServer server) {
        return server.resWrites();
    }
}
