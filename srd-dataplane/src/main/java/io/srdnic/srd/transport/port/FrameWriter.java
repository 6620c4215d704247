package io.srdnic.srd.transport.port;

import io.srdnic.pmd.Mbuf;
import io.srdnic.srd.counters.SrdCounters;
import io.srdnic.srd.wire.Ipv4UdpFrame;
import io.srdnic.srd.wire.SrdHeader;
import io.srdnic.srd.wire.SrdPort;

/**
 * Writes the Ethernet / IPv4 / UDP headers of every frame this device sends, from its own
 * addresses: the one place that knows them. Two kinds of frame leave a device: a packet sent on a
 * path (its UDP source port is that path's entropy, ECMP hashes on it), and an answer to a packet
 * received (an ACK, a probe reply), which goes back on the path the packet came by: it echoes the
 * packet's source port as its own and is addressed to the fabric's one SRD port.
 */
public final class FrameWriter {
    private final long localMac;
    private final int localIp;
    private final int udpPort;
    /** Whether this side sums the UDP checksum in software (asked for, and the NIC does not). */
    private final boolean udpChecksum;
    /** Whether the NIC fills it in (the port offloads the UDP checksum). */
    private final boolean offloaded;
    /** Where the frames handed to the NIC to sum are counted, so an operator sees the offload is in use. */
    private final SrdCounters counters;

    /** {@code udpChecksum} asked for; {@code nicOffload}: the port computes it, so the frame carries only the pseudo-header's sum. */
    public FrameWriter(long localMac, int localIp, int udpPort, boolean udpChecksum, boolean nicOffload, SrdCounters counters) {
        this.counters = counters;
        this.localMac = localMac;
        this.localIp = localIp;
        this.udpPort = udpPort;
        this.udpChecksum = udpChecksum && !nicOffload;
        this.offloaded = udpChecksum && nicOffload;
    }

    /** Whether this side reads every payload byte to sum the UDP checksum (asked for, and the NIC does not offload it). */
    public boolean sumsInSoftware() {
        return udpChecksum;
    }

    /** A packet of {@code srdLength} bytes (SRD header and payload) to {@code port} of the peer, on path {@code path}. */
    public void onPath(Mbuf m, long mac, int ip, int port, int path, int srdLength) {
        write(m, mac, ip, SrdPort.ENTROPY_BASE + path, port, srdLength);
    }

    /**
     * As {@link #onPath}, its SRD header written and summed by {@link SrdHeader#write} to
     * {@code headerSum}: the UDP checksum reads only the bytes after the header.
     */
    public void onPath(Mbuf m, long mac, int ip, int port, int path, int srdLength, long headerSum) {
        Ipv4UdpFrame.write(m, localMac, mac, localIp, ip, SrdPort.ENTROPY_BASE + path, port, srdLength, udpChecksum, headerSum,
            SrdHeader.LENGTH);
        offload(m);
    }

    /** As {@link #onPath}, the packet's last bytes being {@code tail}, an external buffer chained behind {@code m}. */
    public void onPathChained(Mbuf m, Mbuf tail, long mac, int ip, int port, int path, int srdLength) {
        Ipv4UdpFrame.writeChained(m, tail, localMac, mac, localIp, ip, SrdPort.ENTROPY_BASE + path, port, srdLength, udpChecksum);
        offload(m);
    }

    /** An answer of {@code srdLength} bytes back on the path of a packet that came from {@code sourcePort} of the peer. */
    public void answer(Mbuf m, long mac, int ip, int sourcePort, int srdLength) {
        write(m, mac, ip, sourcePort, udpPort, srdLength);
    }

    private void write(Mbuf m, long mac, int ip, int sourcePort, int destinationPort, int srdLength) {
        Ipv4UdpFrame.write(m, localMac, mac, localIp, ip, sourcePort, destinationPort, srdLength, udpChecksum);
        offload(m);
    }

    /** Where the port computes the UDP checksum: the frame asks it to, and is counted. */
    private void offload(Mbuf m) {
        if (offloaded) {
            Ipv4UdpFrame.offloadUdpChecksum(m);
            counters.udpChecksumsOffloaded++;
        }
    }
}
