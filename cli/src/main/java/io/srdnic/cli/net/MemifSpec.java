package io.srdnic.cli.net;

/**
 * The memif device spec every srdnic tool uses, so that raw pktgen runs and transport runs compare
 * like with like on one link configuration.
 */
public final class MemifSpec {
    /**
     * memif's packet buffers: one holds a whole frame of the largest SRD packet (4096 B and 90 B of
     * headers). With memif's default of 2048 B a frame that long spans several descriptors, and
     * under a stream of them (this DPDK, 22.11) the receiving end gets duplicated, garbled and
     * chained frames: SRD 4 KiB sends arrived ~60 times each and an RC connection failed; raw
     * 4186-byte blast frames arrived as fragments.
     */
    public static final int BUFFER_SIZE = 8192;

    private MemifSpec() {
    }

    /** {@code role}: server (listens on the socket) or client. */
    public static String of(String role, String socket) {
        return of(role, socket, 0);
    }

    /** The {@code index}th memif device of a process that has several (one per RTRS path, say), each on a socket of its own. */
    public static String of(String role, String socket, int index) {
        return "net_memif" + index + ",role=" + role + ",id=0,socket=" + socket + ",bsize=" + BUFFER_SIZE;
    }
}
