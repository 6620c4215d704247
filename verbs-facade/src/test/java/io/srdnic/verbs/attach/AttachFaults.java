package io.srdnic.verbs.attach;

/** Test access to the attach server's fault stand-ins, for tests outside this package (call on the dataplane's thread). */
public final class AttachFaults {
    private AttachFaults() {
    }

    /** The newest client's CM pump throws from now on, as a fault in its CM ids would. */
    public static void failCmPumpOfNewestClient(AttachServer server) {
        server.failCmPumpOfNewestClient();
    }
}
