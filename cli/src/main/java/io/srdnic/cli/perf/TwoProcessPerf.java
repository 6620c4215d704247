package io.srdnic.cli.perf;

import io.srdnic.cli.net.MemifSpec;
import io.srdnic.cli.net.VethNamespaces;
import io.srdnic.cli.pktgen.PeerProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * perf between two JVMs that this command starts: a server and a client child, each on its own
 * DPDK port (memif: the two ends of a memif socket; af_xdp: the two ends of a veth pair between two
 * network namespaces made here and removed afterwards). The side channel runs through this
 * process: each child writes {@code OOB <line>} on its stdout, and this parent writes it to the
 * other child's stdin — a TCP connection could not cross the namespaces. Every other stdout line
 * of the client is its result, printed here as it comes.
 */
final class TwoProcessPerf {
    private TwoProcessPerf() {
    }

    /** Runs the two children; returns the exit status (the client's, or the server's if only it failed). */
    static int run(PerfCommand.Link link, int size, List<String> childArgs, int serverCpu, int clientCpu, long timeLimitMillis) {
        return run(link, size, childArgs, "srdnic", veth -> List.of(), serverCpu, clientCpu, timeLimitMillis);
    }

    /**
     * As {@link #run(PerfCommand.Link, int, List, int, int, long)}, with the memif socket and the
     * namespaces named after {@code prefix} (the interfaces after its first 4 characters), and the
     * client child taking more arguments made from the veth pair (null on memif): the adversary's
     * victim is told where its attacker sends from.
     */
    static int run(PerfCommand.Link link, int size, List<String> childArgs, String prefix, Function<VethNamespaces,
            List<String>> clientArgs,
                   int serverCpu, int clientCpu, long timeLimitMillis) {
        String tag = Long.toString(ProcessHandle.current().pid());
        VethNamespaces veth = null;
        String serverSpec;
        String clientSpec;
        if (link == PerfCommand.Link.memif) {
            String socket = "/run/" + prefix + "-perf-" + tag + ".sock";
            serverSpec = MemifSpec.of("server", socket);
            clientSpec = MemifSpec.of("client", socket);
        } else {
            // Room for the largest frame the run sends; the SRD MTU on af_xdp comes from the port.
            int mtu = Math.max(1500, PerfResult.frameLength(size) - 14);
            String interfacePrefix = prefix.equals("srdnic") ? "sx" : prefix.substring(0, Math.min(4, prefix.length()));
            veth = VethNamespaces.create(prefix, interfacePrefix, mtu);
            serverSpec = PerfCommand.afXdpSpec(veth.interfaceB());
            clientSpec = PerfCommand.afXdpSpec(veth.interfaceA());
        }
        List<String> clientChild = with(childArgs, "--role", "client", "--vdev", clientSpec, "--cpu", Integer.toString(clientCpu));
        clientChild.addAll(clientArgs.apply(veth));
        try (VethNamespaces ignored = veth) {
            return runChildren(veth == null ? null : veth.namespaceB(),
                with(childArgs, "--role", "server", "--vdev", serverSpec, "--cpu", Integer.toString(serverCpu)),
                veth == null ? null : veth.namespaceA(), clientChild, timeLimitMillis);
        }
    }

    /**
     * perf attached: two {@code srdnic dataplane} processes joined by memif (in {@code dir}/server
     * and {@code dir}/client, each pinned to its side's CPU), a perf child attached to each
     * (unpinned: on two cores it shares its dataplane's), the dataplanes stopped with SIGTERM after.
     */
    static int runAttached(Path dir, List<String> childArgs, Map<String, String> settings, int serverCpu, int clientCpu, boolean busySpin,
                           long timeLimitMillis) {
        String socket = "/run/srdnic-perf-" + ProcessHandle.current().pid() + ".sock";
        Path serverDir = dir.resolve("server");
        Path clientDir = dir.resolve("client");
        try {
            Files.createDirectories(serverDir);
            Files.createDirectories(clientDir);
        } catch (IOException e) {
            throw new IllegalStateException("cannot make the dataplanes' directories in " + dir + ": " + e.getMessage(), e);
        }
        PeerProcess serverPlane = PeerProcess.start("server dataplane", null,
            dataplaneArgs(MemifSpec.of("server", socket), serverDir, "10.0.0.1", serverCpu, busySpin, settings));
        PeerProcess clientPlane = null;
        try {
            // The memif client connects when its port starts and does not try again: the server must listen first.
            serverPlane.await("ready", 60_000);
            clientPlane = PeerProcess.start("client dataplane", null,
                dataplaneArgs(MemifSpec.of("client", socket), clientDir, "10.0.0.2", clientCpu, busySpin, settings));
            serverPlane.await("link up", 60_000); // only then can SRD reach its peer
            clientPlane.await("link up", 60_000);
            return runChildren(null, with(childArgs, "--role", "server", "--attach", serverDir.toString()),
                null, with(childArgs, "--role", "client", "--attach", clientDir.toString()), timeLimitMillis);
        } finally {
            if (clientPlane != null) {
                clientPlane.terminate();
            }
            serverPlane.terminate();
        }
    }

    /** A dataplane's arguments; the run's transport settings ({@code perf --set}) are its to apply. */
    static List<String> dataplaneArgs(String port, Path dir, String ip, int cpu, boolean busySpin, Map<String, String> settings) {
        List<String> a = new ArrayList<>(List.of("dataplane", "--port", port, "--dir", dir.toString(), "--ip", ip, "--cpu",
            Integer.toString(cpu), "--log-level", "WARNING"));
        if (busySpin) {
            a.add("--busy-spin");
        }
        settings.forEach((k, v) -> a.addAll(List.of("--set", k + "=" + v)));
        return a;
    }

    /** Starts the server child and the client child, relays their side channel, and returns the exit status. */
    private static int runChildren(String serverNamespace, List<String> serverChild, String clientNamespace, List<String> clientChild,
                                   long timeLimitMillis) {
        try (PeerProcess server = PeerProcess.start("server", serverNamespace, serverChild);
             PeerProcess client = PeerProcess.start("client", clientNamespace, clientChild)) {
            Thread fromServer = new Thread(() -> relay(server, client, false), "srdnic-perf-relay");
            fromServer.setDaemon(true);
            fromServer.start();
            relay(client, server, true);
            int clientStatus = client.exitStatus(timeLimitMillis + 30_000);
            int serverStatus = server.exitStatus(30_000);
            join(fromServer);
            return clientStatus != 0 ? clientStatus : serverStatus;
        }
    }

    /** Forwards {@code from}'s side-channel lines to {@code to} and prints its other lines, until {@code from} ends. */
    private static void relay(PeerProcess from, PeerProcess to, boolean print) {
        while (true) {
            String line = from.next(1000);
            if (line == PeerProcess.END) {
                try {
                    to.send(StdioChannel.PREFIX + "ERROR the other side exited");
                } catch (IllegalStateException gone) {
                    // it has ended too
                }
                return;
            }
            if (line == null) {
                continue;
            }
            if (line.startsWith(StdioChannel.PREFIX)) {
                try {
                    to.send(line);
                } catch (IllegalStateException gone) {
                    // its exit is reported by its status
                }
            } else if (print) {
                synchronized (System.out) {
                    System.out.println(line);
                    System.out.flush();
                }
            } else {
                System.err.println(line);
            }
        }
    }

    private static void join(Thread t) {
        try {
            t.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static List<String> with(List<String> base, String... more) {
        List<String> all = new ArrayList<>(base);
        all.addAll(List.of(more));
        return all;
    }
}
