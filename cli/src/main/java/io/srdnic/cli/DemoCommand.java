package io.srdnic.cli;

import io.srdnic.cli.demo.SrdDemo;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code srdnic demo}: the README's main job — a two-host SRD session over a net_ring pair (no NIC,
 * no root needed): ping-pong, bandwidth, then injected loss repaired by retransmission.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = "Two SRD hosts on a virtual link: ping-pong, bandwidth, and a lossy run with zero lost messages.")
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
