package io.srdnic.cli;

import io.srdnic.cli.demo.SrdDemo;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code srdnic demo}: the README's main job — a two-host SRD session over a net_ring pair (no NIC,
 * no root needed): ping-pong, bandwidth, then injected loss repaired by retransmission; then an RC
 * transfer and RDMA WRITE and READ over SRD and RC on the same hosts, every byte verified.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = "Two SRD hosts on a virtual link: ping-pong, bandwidth, and a lossy run with zero lost messages;"
        + " then an RC QP pair carrying 16 x 1 MiB in order, and a 16 MiB RDMA WRITE and READ over SRD and RC, verified.")
final class DemoCommand implements Callable<Integer> {
    @Option(names = "--ping-pongs", defaultValue = "10000", description = "Round trips in the ping-pong (default ${DEFAULT-VALUE}).")
    int pingPongs;

    @Option(names = "--messages", defaultValue = "200000", description = "Messages in the bandwidth run (default ${DEFAULT-VALUE}).")
    int messages;

    @Option(names = "--lossy-messages", defaultValue = "50000", description = "Messages in the lossy run (default ${DEFAULT-VALUE}).")
    int lossyMessages;

    @Override
    public Integer call() {
        return SrdDemo.run(pingPongs, messages, lossyMessages);
    }
}
