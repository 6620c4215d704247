package io.srdnic.pmd.sim;

import io.srdnic.pmd.Mbuf;

/**
 * Picks the fabric path a frame takes, as an ECMP switch hashes a flow onto one of its uplinks.
 * Called once per frame on the data path, so it must not allocate.
 */
@FunctionalInterface
public interface PathSelector {

    /** The default: the UDP source port (SRD's path entropy) modulo the path count; non-UDP frames take path 0. */
    PathSelector UDP_SOURCE_PORT = UdpSourcePortSelector::selectPath;

    /**
     * Returns a path index in 0..{@code pathCount}-1 for {@code frame} (whose data length is the
     * frame length); a value outside that range is taken modulo {@code pathCount}.
     */
    int selectPath(Mbuf frame, int pathCount);
}
