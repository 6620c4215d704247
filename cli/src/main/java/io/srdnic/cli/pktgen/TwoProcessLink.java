package io.srdnic.cli.pktgen;

import io.srdnic.cli.net.MemifSpec;
import io.srdnic.cli.net.VethNamespaces;

/**
 * The two ends of a link between two pktgen processes: the device spec each side attaches, and for
 * af_xdp and af_packet the veth pair in two network namespaces that carries it (made here, removed
 * on close). memif uses an abstract socket (memif's default in 22.11): nothing is left in the file
 * system; its buffers are {@link MemifSpec}'s, as srdnic perf's. The "server" end is the one started first (receiver, reflector).
 */
record TwoProcessLink(String serverSpec, String clientSpec, VethNamespaces veth) implements AutoCloseable {

    static TwoProcessLink open(PktgenCommand.Link link, int frameSize) {
        String tag = Long.toString(ProcessHandle.current().pid());
        return switch (link) {
            case memif -> {
                String socket = "/run/srdnic-memif-" + tag + ".sock";
                yield new TwoProcessLink(MemifSpec.of("server", socket), MemifSpec.of("client", socket), null);
            }
            case af_xdp, af_packet -> {
                VethNamespaces veth = VethNamespaces.create(Math.max(1500, frameSize - 14));
                String pmd = link == PktgenCommand.Link.af_xdp ? "net_af_xdp0,start_queue=0,queue_count=1,iface="
                        : "net_af_packet0,qpairs=1,iface=";
                yield new TwoProcessLink(pmd + veth.interfaceB(), pmd + veth.interfaceA(), veth);
            }
            default -> throw new IllegalStateException("not a two-process link: " + link);
        };
    }

    /** The namespace the server end runs in, or null (memif: the host's). */
    String serverNamespace() {
        return veth == null ? null : veth.namespaceB();
    }

    /** The namespace the client end runs in, or null (memif: the host's). */
    String clientNamespace() {
        return veth == null ? null : veth.namespaceA();
    }

    @Override
    public void close() {
        if (veth != null) {
            veth.close();
        }
    }
}
