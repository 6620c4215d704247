package io.srdnic.cli.net;

import java.util.List;

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

    public static TapBridge create(String name, List<String> taps) {
        Shell.run("ip", "link", "add", name, "type", "bridge", "stp_state", "0", "forward_delay", "0");
        TapBridge b = new TapBridge(name);
        try {
            disableIpv6(name);
            for (String tap : taps) {
                disableIpv6(tap);
                Shell.run("ip", "link", "set", tap, "master", name);
                Shell.run("ip", "link", "set", tap, "up");
            }
            Shell.run("ip", "link", "set", name, "up");
        } catch (RuntimeException e) {
            b.close();
            throw e;
        }
        return b;
    }

    @Override
    public void close() {
        Shell.quietly("ip", "link", "del", bridge);
    }
}
