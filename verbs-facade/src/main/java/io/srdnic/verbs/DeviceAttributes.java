package io.srdnic.verbs;

/**
 * What a device can do (ibv_query_device), honestly: SRD carries SEND and SEND_WITH_IMM up to the
 * MTU, and RDMA WRITE, WRITE_WITH_IMM and READ up to maxRdmaSize.
 *
 * @param maxSrqSge      1: a message lands in one buffer, so an SRQ's receives have one SGE
 * @param mtu            the SRD MTU: the largest message one packet carries (no segmentation)
 * @param maxMessageSize equal to the MTU for SRD and UD sends
 * @param maxRdmaSize    the largest RDMA WRITE or READ on SRD (segmented into packets that land in any order)
 */
public record DeviceAttributes(String name, int maxQp, int maxCq, int maxMr, int maxAh, int maxQpWr, int maxSge,
                               int maxInlineData, int mtu, int maxMessageSize, int maxRdmaSize, boolean rdmaRead, boolean rdmaWrite,
                               boolean rnrRetry, int maxSrq, int maxSrqWr, int maxSrqSge) {
}
