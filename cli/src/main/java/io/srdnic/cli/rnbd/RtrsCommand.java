package io.srdnic.cli.rnbd;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code srdnic rtrs path|stats}: a running nbd-local's RTRS session, through its control socket. */
@Command(name = "rtrs", mixinStandardHelpOptions = true, description = "RTRS sessions: take a path down or up, show stats, benchmark.",
    subcommands = {RtrsCommand.PathCommand.class, RtrsCommand.StatsCommand.class, RtrsBenchCommand.class})
public final class RtrsCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        throw new IllegalArgumentException("give a subcommand: path, stats or bench");
    }

    @Command(name = "path", mixinStandardHelpOptions = true,
            description = "Take path I's link down (its port stopped) or up again, in a running nbd-local.")
    static final class PathCommand implements Callable<Integer> {
        @Option(names = "--socket", required = true, paramLabel = "PATH", description = "nbd-local's NBD socket.")
        Path socket;

        @ArgGroup(multiplicity = "1")
        Which which;

        static final class Which {
            @Option(names = "--down", paramLabel = "I", description = "Take path I down.")
            Integer down;

            @Option(names = "--up", paramLabel = "I", description = "Bring path I up.")
            Integer up;
        }

        @Override
        public Integer call() throws IOException {
            String answer = ControlChannel.call(ControlChannel.pathFor(socket), which.down != null ? "path down " + which.down
                    : "path up " + which.up);
            System.out.println(answer);
            return answer.startsWith("error") ? 1 : 0;
        }
    }

    @Command(name = "stats", mixinStandardHelpOptions = true, description = "A running nbd-local's per-path RTRS stats.")
    static final class StatsCommand implements Callable<Integer> {
        @Option(names = "--socket", required = true, paramLabel = "PATH", description = "nbd-local's NBD socket.")
        Path socket;

        @Option(names = "--json", description = "One JSON object (the default prints it too, one path per line).")
        boolean json;

        @Override
        public Integer call() throws IOException {
            String answer = ControlChannel.call(ControlChannel.pathFor(socket), "stats");
            if (answer.startsWith("error")) {
                System.err.println(answer);
                return 1;
            }
            System.out.println(json ? answer : answer.replace("},{", "},\n{"));
            return 0;
        }
    }
}
