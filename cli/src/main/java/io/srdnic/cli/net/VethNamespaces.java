package io.srdnic.cli.net;

/**
 * Two network namespaces joined by a veth pair, IPv6 off so the kernel sends nothing of its own
 * on them. Removing the namespaces removes the veth. Names carry the pid so concurrent runs do not
 * collide; close() (also run from a shutdown hook) leaves nothing behind.
 */
public final class VethNamespaces implements AutoCloseable {
    private final String nsA;
    private final String nsB;
    private final String ifA;
    private final String ifB;
    private final Thread cleanup;
    private int extraPairs;

    private VethNamespaces(String nsPrefix, String ifPrefix, String tag) {
        this.nsA = nsPrefix + "-" + tag + "-a";
        this.nsB = nsPrefix + "-" + tag + "-b";
        this.ifA = ifPrefix + tag + "a";
        this.ifB = ifPrefix + tag + "b";
        this.cleanup = new Thread(this::remove, "srdnic-netns-cleanup");
    }

    /** Creates the namespaces and the veth pair with the given MTU, both ends up. */
    public static VethNamespaces create(int mtu) {
        return create("srdnic", "sx", mtu);
    }

    /**
     * As {@link #create(int)}, the names starting with {@code nsPrefix} (namespaces) and
     * {@code ifPrefix} (interfaces, at most 4 characters: a name has 15), so a tool's leftovers are
     * told from another's.
     */
    public static VethNamespaces create(String nsPrefix, String ifPrefix, int mtu) {
        if (ifPrefix.length() > 4) {
            throw new IllegalArgumentException("interface prefix '" + ifPrefix + "' is over 4 characters");
        }
        String tag = Long.toString(ProcessHandle.current().pid() % 1_000_000) + Integer.toString((int) (System.nanoTime() & 0xF), 16);
        VethNamespaces n = new VethNamespaces(nsPrefix, ifPrefix, tag);
        Runtime.getRuntime().addShutdownHook(n.cleanup);
        try {
            for (String ns : new String[] {n.nsA, n.nsB}) {
                Shell.run("ip", "netns", "add", ns);
                Shell.run("ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1",
                        "net.ipv6.conf.default.disable_ipv6=1");
            }
            n.link(n.ifA, n.ifB, mtu);
        } catch (RuntimeException e) {
            n.close();
            throw e;
        }
        return n;
    }

    /**
     * Another veth pair between the same two namespaces (a second link, for a second path), both
     * ends up with {@code mtu}, IPv6 off as on the first; returns its names, namespace A's end first.
     * Removed with the namespaces.
     */
    public String[] addPair(int mtu) {
        extraPairs++;
        String a = ifA + extraPairs;
        String b = ifB + extraPairs;
        link(a, b, mtu);
        return new String[] {a, b};
    }

    /** A veth pair from {@code a} in namespace A to {@code b} in namespace B, both ends up with {@code mtu}. */
    private void link(String a, String b, int mtu) {
        Shell.run("ip", "link", "add", a, "netns", nsA, "mtu", Integer.toString(mtu), "type", "veth", "peer", "name", b, "netns", nsB,
            "mtu", Integer.toString(mtu));
        Shell.run("ip", "-n", nsA, "link", "set", a, "up");
        Shell.run("ip", "-n", nsB, "link", "set", b, "up");
    }

    public String namespaceA() {
        return nsA;
    }

    public String namespaceB() {
        return nsB;
    }

    public String interfaceA() {
        return ifA;
    }

    public String interfaceB() {
        return ifB;
    }

    private void remove() {
        Shell.quietly("ip", "netns", "del", nsA);
        Shell.quietly("ip", "netns", "del", nsB);
    }

    @Override
    public void close() {
        remove();
        try {
            Runtime.getRuntime().removeShutdownHook(cleanup);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or has run
        }
    }
}
