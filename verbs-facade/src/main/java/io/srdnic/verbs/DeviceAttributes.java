package io.srdnic.verbs;

import io.srdnic.srd.api.QpType;

/**
 * What a device can do (ibv_query_device), honestly: SRD carries SEND and SEND_WITH_IMM up to the
 * MTU, and RDMA WRITE, WRITE_WITH_IMM and READ up to maxRdmaSize; RC those and the atomics.
 *
 * @param maxSrqSge      1: a message lands in one buffer, so an SRQ's receives have one SGE
 * @param mtu            the SRD MTU: the largest message one packet carries (no segmentation)
 * @param maxMessageSize the largest SRD or UD message: the MTU (one packet); RC's is {@link #maxMessageSize(QpType)}
 * @param maxRdmaSize    the largest RDMA WRITE or READ on SRD (segmented into packets that land in any order)
 * @param atomicCap      ibv_atomic_cap: {@link #ATOMIC_GLOB} on RC QPs (SRD and UD refuse atomics: SRD delivers in any order
 *                       and keeps no answer per request, so it cannot run one exactly once in order)
 * @param maxQpRdAtom    max_qp_rd_atom: the most READs and atomics one QP may have outstanding (its max_rd_atomic's limit)
 */
public record DeviceAttributes(String name, int maxQp, int maxCq, int maxMr, int maxAh, int maxQpWr, int maxSge,
                               int maxInlineData, int mtu, int maxMessageSize, int maxRdmaSize, boolean rdmaRead, boolean rdmaWrite,
                               boolean rnrRetry, int maxSrq, int maxSrqWr, int maxSrqSge, int atomicCap, int maxQpRdAtom) {
    /** IBV_ATOMIC_NONE: no atomics. */
    public static final int ATOMIC_NONE = 0;
    /** IBV_ATOMIC_HCA: atomic only against other atomics through this device. */
    public static final int ATOMIC_HCA = 1;
    /**
     * IBV_ATOMIC_GLOB: atomic against everything else touching the word, the host's own threads
     * included: the responder changes the word with the CPU's atomic instructions.
     */
    public static final int ATOMIC_GLOB = 2;

    /**
     * The largest message a QP of {@code type} sends, gathered or not (ibv_port_attr.max_msg_sz,
     * per transport): RC and SRC segment a message into packets, up to {@link #maxRdmaSize()} (1 GiB);
     * SRD and UD send one packet, up to the MTU.
     */
    public int maxMessageSize(QpType type) {
        return type.connected() ? maxRdmaSize : maxMessageSize;
    }
}
