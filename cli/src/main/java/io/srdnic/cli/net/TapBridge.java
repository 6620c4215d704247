package io.srdnic.cli.net;

import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A Linux bridge joining tap interfaces that net_tap created, IPv6 off on all of them so only our
 * frames cross it. close() removes the bridge (the taps go with their DPDK ports).
 */
public final class TapBridge implements AutoCloseable {
    private final String bridge;

    private TapBridge(String bridge) {
        this.bridge = bridge;
    }

    /** Sysctl to run on an interface before it comes up, so the kernel sends no IPv6 frames on it. */
    public static void disableIpv6(String iface) {
        Shell.quietly("sysctl", "-qw", "net.ipv6.conf." + iface + ".disable_ipv6=1");
    }

    /** A random locally administered unicast MAC, in ip(8)'s notation. */
    public static String randomLocalMac() {
        byte[] b = new byte[6];
        ThreadLocalRandom.current().nextBytes(b);
        b[0] = (byte) ((b[0] & 0xFC) | 0x02);
        return HexFormat.ofDelimiter(":").formatHex(b);
    }

    public static TapBridge create(String name, List<String> taps) {
        // Not through the host's firewall (br_netfilter hands bridged IPv4 to iptables' FORWARD chain,
        // which a host running containers often drops): this bridge joins two ports of one test.
        Shell.run("ip", "link", "add", name, "type", "bridge", "stp_state", "0", "forward_delay", "0", "nf_call_iptables", "0",
            "nf_call_ip6tables", "0", "nf_call_arptables", "0");
        TapBridge b = new TapBridge(name);
        try {
            disableIpv6(name);
            for (String tap : taps) {
                disableIpv6(tap);
                Shell.run("ip", "link", "set", tap, "master", name);
                Shell.run("ip", "link", "set", tap, "up");
            }
            Shell.run("ip", "link", "set", name, "up");
            b.awaitForwarding(taps);
        } catch (RuntimeException e) {
            b.close();
            throw e;
        }
        return b;
    }

    /**
     * Waits (up to 5 s) until every tap forwards: a bridge just brought up drops what reaches a port
     * that is not yet forwarding, and the first frames sent would be lost without a word.
     */
    private void awaitForwarding(List<String> taps) {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (true) {
            String ports = Shell.run("bridge", "link", "show", "master", bridge);
            if (taps.stream().allMatch(t -> ports.lines().anyMatch(l -> l.contains(t) && l.contains("state forwarding")))) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("bridge " + bridge + " did not start forwarding on " + taps + ": " + ports);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted waiting for bridge " + bridge, e);
            }
        }
    }

    @Override
    public void close() {
        Shell.quietly("ip", "link", "del", bridge);
    }
}
