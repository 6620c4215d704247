package io.srdnic.cli.perf;

import io.srdnic.pmd.MacAddress;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * What a side tells the other so it can send to it: its MAC, IPv4 address and SRD UDP port (for the
 * address handle), the Q_Key its QPs take and their numbers, in order (QP i talks to the peer's QP i),
 * and for RDMA over SRD the address and rkey of the region the other side's requests name (address 0:
 * none). RC and SRC QPs learn each other's numbers and first PSNs, the region and SRC's SRQ numbers
 * from the connection manager instead ({@link PerfCmConnector}); the client takes the server's IPv4
 * address from here to reach its CM.
 * On the side channel: {@code INFO mac=02:00:00:00:00:01 ip=10.0.0.1 port=21330 qkey=0x... qpns=1,2},
 * then {@code raddr=0x... rkey=0x...} when there is a region.
 */
record PeerInfo(long mac, int ip, int udpPort, int qkey, int[] qpns, long rdmaAddress, int rkey) {

    /** A side with no region for RDMA. */
    PeerInfo(long mac, int ip, int udpPort, int qkey, int[] qpns) {
        this(mac, ip, udpPort, qkey, qpns, 0, 0);
    }

    boolean hasRegion() {
        return rdmaAddress != 0;
    }

    String line() {
        return "mac=" + MacAddress.format(mac) + " ip=" + ipv4(ip) + " port=" + udpPort + " qkey=0x" + Integer.toHexString(qkey)
            + " qpns=" + Arrays.stream(qpns).mapToObj(Integer::toString).collect(Collectors.joining(","))
            + (hasRegion() ? " raddr=0x" + Long.toHexString(rdmaAddress) + " rkey=0x" + Integer.toHexString(rkey) : "");
    }

    static PeerInfo parse(String line) {
        long mac = 0;
        int ip = 0;
        int port = 0;
        int qkey = 0;
        int[] qpns = null;
        long raddr = 0;
        int rkey = 0;
        try {
            for (String kv : line.trim().split("\\s+")) {
                String[] p = kv.split("=", 2);
                switch (p[0]) {
                    case "mac" -> mac = MacAddress.parse(p[1]);
                    case "ip" -> ip = parseIpv4(p[1]);
                    case "port" -> port = Integer.parseInt(p[1]);
                    case "qkey" -> qkey = Integer.parseUnsignedInt(p[1].substring(2), 16);
                    case "qpns" -> qpns = Arrays.stream(p[1].split(",")).mapToInt(Integer::parseInt).toArray();
                    case "raddr" -> raddr = Long.parseUnsignedLong(p[1].substring(2), 16);
                    case "rkey" -> rkey = Integer.parseUnsignedInt(p[1].substring(2), 16);
                    default -> throw new IllegalArgumentException("unknown field " + p[0]);
                }
            }
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("bad INFO line '" + line + "': " + e.getMessage(), e);
        }
        if (qpns == null || ip == 0 || port == 0) {
            throw new IllegalArgumentException("INFO line lacks ip, port or qpns: '" + line + "'");
        }
        return new PeerInfo(mac, ip, port, qkey, qpns, raddr, rkey);
    }

    static String ipv4(int ip) {
        return (ip >>> 24) + "." + ((ip >>> 16) & 0xFF) + "." + ((ip >>> 8) & 0xFF) + "." + (ip & 0xFF);
    }

    static int parseIpv4(String text) {
        String[] p = text.split("\\.");
        if (p.length != 4) {
            throw new IllegalArgumentException("not an IPv4 address: " + text);
        }
        int ip = 0;
        for (String octet : p) {
            int v = Integer.parseInt(octet);
            if (v < 0 || v > 255) {
                throw new IllegalArgumentException("not an IPv4 address: " + text);
            }
            ip = (ip << 8) | v;
        }
        return ip;
    }
}
