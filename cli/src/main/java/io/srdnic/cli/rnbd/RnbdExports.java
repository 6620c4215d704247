package io.srdnic.cli.rnbd;

import io.srdnic.block.BlockDevice;
import io.srdnic.nbd.spec.ExportSpecs;
import java.util.List;

/**
 * The {@code rnbd} export scheme of {@code srdnic nbd}: the first rnbd export starts the gateway
 * (one RTRS session over the given links to that server); every rnbd export opens a device on it.
 */
public final class RnbdExports implements AutoCloseable {
    private final List<String> vdevs;
    private final int localIp;
    private final int port;
    private RnbdGateway gateway;
    private int serverIp;

    public RnbdExports(List<String> vdevs, int localIp, int port) {
        this.vdevs = vdevs;
        this.localIp = localIp;
        this.port = port;
    }

    /** {@code specs} with the rnbd scheme registered. */
    public ExportSpecs register(ExportSpecs specs) {
        return specs.with("rnbd", this::open);
    }

    synchronized BlockDevice open(String argument) {
        RnbdUri uri = RnbdUri.parse(argument);
        if (gateway == null) {
            gateway = RnbdGateway.start(vdevs, localIp, uri.serverIp(), port);
            serverIp = uri.serverIp();
        } else if (serverIp != uri.serverIp()) {
            throw new IllegalArgumentException("rnbd exports: one server per gateway; this one already talks to another");
        }
        return gateway.open(uri.device(), uri.accessMode(), 30_000);
    }

    /** The gateway, once an rnbd export started it (null before). */
    public synchronized RnbdGateway gateway() {
        return gateway;
    }

    @Override
    public synchronized void close() {
        if (gateway != null) {
            gateway.close();
        }
    }

    /** Parses dotted IPv4 text (for the command's options). */
    public static int ip(String text) {
        return Ipv4.parse(text);
    }

    /** The link specs of the command's options (the gateway is memif's client side). */
    public static List<String> specs(String link, List<String> memifSockets, List<String> vdevs) {
        return RnbdServerCommand.specs(link, memifSockets, vdevs, "client");
    }
}
