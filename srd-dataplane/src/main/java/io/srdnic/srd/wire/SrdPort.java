package io.srdnic.srd.wire;

/**
 * The UDP ports of SRD frames: a fixed destination port that names SRD, and a source port that
 * carries the path entropy.
 * <p>
 * <b>Destination port.</b> {@link #DEFAULT} is 21330 (0x5352, ASCII "SR"). It is unassigned in the
 * IANA port registry that Wireshark ships ({@code /usr/share/wireshark/services}), it is in no
 * Wireshark dissector table ({@code tshark -G decodes}) and in no port-range preference
 * ({@code tshark -G defaultprefs}), and no heuristic UDP dissector claims SRD headers on it: a
 * capture of SEND, SEND_WITH_IMM, ACK (0..16 drops), PROBE and PROBE_REPLY frames to it, one per
 * entropy source port, decodes as {@code eth:ethertype:ip:udp:data} (tshark 4.0; see
 * docs/wire-format.md for the command and its output). So a capture shows SRD as plain UDP data
 * instead of misreading it as some other protocol. It avoids RoCEv2's 4791 and its neighbours
 * (4792 is IANA's Unified Bus, 4793 is used by Ultra Ethernet), so an SRD frame is never taken for
 * another datacenter transport by a switch or an analyser.
 * <p>
 * <b>Source port.</b> Entropy {@code i} (0..{@link #ENTROPY_COUNT}-1) goes on the wire as source
 * port {@code ENTROPY_BASE + i}: the IANA dynamic range 49152-65535, which no service is assigned,
 * so ECMP switches hash SRD's paths apart as they do RoCEv2 and UET flows, and firewalls and
 * analysers treat it as an ephemeral port. One caveat, found by the same capture: Wireshark tries
 * both ports of a UDP datagram against its port table, and a few ports in the dynamic range are in
 * it; with tshark 4.0 only 54328 (Elasticsearch discovery, entropy 5176) actually claims an SRD
 * frame. Decode with {@code --disable-protocol elasticsearch} to see that path as data too.
 */
public final class SrdPort {
    /** The default UDP destination port of SRD frames: 21330 (0x5352, "SR"). */
    public static final int DEFAULT = 21330;
    /** UDP source port of entropy 0: the start of the IANA dynamic (ephemeral) range. */
    public static final int ENTROPY_BASE = 49152;
    /** Number of entropy values (source ports 49152..65535). */
    public static final int ENTROPY_COUNT = 16384;

    private SrdPort() {
    }

    /** The UDP source port that carries {@code entropy}, taken modulo {@link #ENTROPY_COUNT}. */
    public static int sourcePort(int entropy) {
        return ENTROPY_BASE + (entropy & (ENTROPY_COUNT - 1));
    }

    /** The entropy a UDP source port carries, or -1 when the port is below {@link #ENTROPY_BASE}. */
    public static int entropy(int sourcePort) {
        int entropy = sourcePort - ENTROPY_BASE;
        return entropy >= 0 && entropy < ENTROPY_COUNT ? entropy : -1;
    }
}
