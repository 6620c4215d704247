package io.srdnic.cli.nbd;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code srdnic rtrs bench}, briefly: two processes over memif, every measurement done, each with IOs and a latency. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class RtrsBenchIT {
    @TempDir
    Path dir;

    @Test
    void shouldMeasureEveryIoKindOverMemifBetweenTwoProcesses() throws Exception {
        String out = Tools.run(dir, 150, System.getProperty("java.home") + "/bin/java", "--enable-native-access=ALL-UNNAMED", "-jar",
            System.getProperty("srdnic.jar"), "rtrs", "bench", "--seconds", "0.3", "--depth", "8", "--json");
        for (String key : new String[] {"write_4k_qd1", "write_4k_qd8", "read_4k_qd1", "read_4k_qd8", "write_128k_qd1", "write_128k_qd8",
            "read_128k_qd1", "read_128k_qd8"}) {
            Matcher m = Pattern.compile("\"" + key + "\":\\{\"iops\":([0-9.]+),\"mib_s\":[0-9.]+,\"p50_us\":([0-9.]+)").matcher(out);
            assertTrue(m.find(), key + " in " + out);
            assertTrue(Double.parseDouble(m.group(1)) > 0 && Double.parseDouble(m.group(2)) > 0, key + " measured: " + out);
        }
    }
}
