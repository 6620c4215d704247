package io.srdnic.cli.adversary;

import java.lang.foreign.MemorySegment;

/**
 * Where the attacker's frames go on their way into the victim's receive path: an
 * {@link io.srdnic.pmd.fault.InjectingPacketIo} on the victim's port (ring, memif), or a raw
 * AF_PACKET socket on the far end of the victim's veth (af_xdp). Used by the attacker's thread.
 */
public interface FrameSink extends AutoCloseable {

    /** Hands over the first {@code length} bytes of {@code frame}; false when the path refused it (full, too long). */
    boolean offer(MemorySegment frame, int length);

    /** Frames that have entered the victim's receive path (as far as this sink can tell). */
    long injected();

    /** What the path is, for the log. */
    String describe();

    @Override
    default void close() {
    }
}
