package io.srdnic.verbs;

/**
 * What a device can do (ibv_query_device), honestly: SRD here carries SEND and SEND_WITH_IMM only,
 * so RDMA read and write are reported absent.
 *
 * @param maxSrqSge      1: a message lands in one buffer, so an SRQ's receives have one SGE
 * @param mtu            the SRD MTU: the largest message one packet carries (no segmentation)
 * @param maxMessageSize equal to the MTU for SRD and UD
 */
public record DeviceAttributes(String name, int maxQp, int maxCq, int maxMr, int maxAh, int maxQpWr, int maxSge,
                               int maxInlineData, int mtu, int maxMessageSize, boolean rdmaRead, boolean rdmaWrite,
                               boolean rnrRetry, int maxSrq, int maxSrqWr, int maxSrqSge) {
}
