package io.srdnic.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** srdnic grpc-bench runs both transports to the end (small counts) and prints its medians and ratio; the figures are not judged. */
class GrpcBenchIT {

    @Test
    void shouldMeasureBothTransportsAndPrintTheRatio() {
        CliRun run = CliRun.of("grpc-bench", "--rounds", "1", "--calls", "300", "--warmup", "100", "--stream-mib", "8", "--port", "50091");
        assertEquals(0, run.status(), run.stdout());
        for (String transport : new String[] {"srdnic", "epoll "}) {
            String line = "(?m)^round 1 " + transport + " unary p50 +\\d+\\.\\d us  p99 +\\d+\\.\\d us   stream +\\d+\\.\\d MiB/s$";
            assertTrue(Pattern.compile(line).matcher(run.stdout()).find(), run.stdout());
        }
        assertTrue(Pattern.compile("(?m)^ratio srdnic/epoll: p50 \\d+\\.\\d\\d, p99 \\d+\\.\\d\\d, throughput \\d+\\.\\d\\d$")
            .matcher(run.stdout()).find(), run.stdout());
    }
}
