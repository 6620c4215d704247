package io.srdnic.srd.transport.srd;

/**
 * The key of an SRD flow: the remote device's address as the wire names it, its IPv4 address and
 * the UDP port it listens on, packed into one long (no allocation; a long is what the context
 * table's map takes). Two devices behind one address (two processes on a host, one dataplane
 * serving several ports) differ in their port, so they are two flows, never one.
 */
public final class FlowKey {
    private FlowKey() {
    }

    /** The key of the device at {@code ip}, listening on UDP port {@code port} (0..65535). */
    public static long pack(int ip, int port) {
        return ((ip & 0xFFFF_FFFFL) << 16) | (port & 0xFFFF);
    }

    static int ip(long key) {
        return (int) (key >>> 16);
    }

    static int port(long key) {
        return (int) key & 0xFFFF;
    }

    /** {@code a.b.c.d:port}, for reports and messages. */
    public static String toString(long key) {
        return ContextReport.ipv4(ip(key)) + ":" + port(key);
    }
}
