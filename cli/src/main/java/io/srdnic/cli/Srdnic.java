package io.srdnic.cli;

import io.srdnic.cli.cm.CmPingPongCommand;
import io.srdnic.cli.dataplane.DataplaneCommand;
import io.srdnic.cli.grpc.GrpcBenchCommand;
import io.srdnic.cli.nbd.NbdCommand;
import io.srdnic.cli.perf.AdversaryCommand;
import io.srdnic.cli.perf.PerfCommand;
import io.srdnic.cli.pktgen.PktgenCommand;
import io.srdnic.cli.rnbd.NbdLocalCommand;
import io.srdnic.cli.rnbd.RnbdServerCommand;
import io.srdnic.cli.rnbd.RtrsCommand;
import io.srdnic.cli.stat.StatCommand;
import io.srdnic.cli.xrc.XrcAllToAllCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code srdnic} command. Logs go to stderr, results to stdout; with {@code --json} the last
 * stdout line is one JSON object. Exit status is non-zero when a run fails its own checks.
 */
@Command(name = "srdnic", mixinStandardHelpOptions = true, version = "srdnic 0.1.0",
    description = "Kernel-bypass userspace NIC: DPDK through FFM, SRD transport, verbs API.",
    subcommands = {AdversaryCommand.class, CmPingPongCommand.class, DataplaneCommand.class, DemoCommand.class, NbdCommand.class,
            NbdLocalCommand.class, RnbdServerCommand.class, RtrsCommand.class, PerfCommand.class, PortsCommand.class, PktgenCommand.class,
            SimCommand.class, StatCommand.class, XrcAllToAllCommand.class, GrpcBenchCommand.class, CommandLine.HelpCommand.class})
public final class Srdnic {

    public static void main(String[] args) {
        if (System.getProperty("java.util.logging.manager") == null) { // before anything logs: see ShutdownSafeLogManager
            System.setProperty("java.util.logging.manager", "io.srdnic.cli.ShutdownSafeLogManager");
        }
        System.exit(run(args));
    }

    /** Runs a command line and returns its exit status (tests call this directly). */
    public static int run(String... args) {
        CommandLine cli = new CommandLine(new Srdnic());
        cli.setExecutionExceptionHandler((e, line, parsed) -> {
            System.err.println("srdnic " + line.getCommandName() + ": " + e.getMessage());
            if (Boolean.getBoolean("srdnic.debug")) {
                e.printStackTrace();
            }
            return 1;
        });
        return cli.execute(args);
    }
}
