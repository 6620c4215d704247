package io.srdnic.verbs.attach;

/**
 * The shared-memory file of one attached client (/dev/shm, made by the dataplane, mapped by both):
 * <pre>
 *   0                 4096                         4096 + ringsBytes
 *   +-----------------+----------------------------+-------------------------------------+
 *   | header          | ring area: SQ, RQ, CQ rings | pool: the client's memory regions   |
 *   +-----------------+----------------------------+-------------------------------------+
 * </pre>
 * The header holds {@link #MAGIC} and {@link #VERSION}, for a human with hexdump; each side takes
 * the sizes from the OPEN exchange, never from the file, which the client may scribble over. Rings
 * are carved from the ring area by the dataplane as CQs and QPs are made ({@link ShmRing}); MRs are
 * carved from the pool by the client and registered by offset. One file per client: a client maps
 * only its own rings and memory, so no index or key it writes can reach another's.
 */
public final class SharedLayout {
    public static final long MAGIC = 0x5352_444E_4943_4154L; // "SRDNICAT"
    public static final int VERSION = 1;
    public static final int MAGIC_OFFSET = 0;
    public static final int VERSION_OFFSET = 8;
    public static final long HEADER_BYTES = 4096;
    /** Rings and MRs start cache-line aligned. */
    public static final int ALIGN = 64;
    /** The control socket's name in the dataplane's run directory (lcore k > 0: in DIR/lcore-k): both sides need it. */
    public static final String CONTROL_SOCKET = "control.sock";

    private SharedLayout() {
    }

    public static long align(long n) {
        return (n + ALIGN - 1) & -ALIGN;
    }
}
