package io.srdnic.rtrs.session;

import static io.srdnic.rtrs.session.RtrsSim.MS;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.rtrs.client.MpPolicy;
import io.srdnic.rtrs.client.PathState;
import io.srdnic.rtrs.client.RtrsClient;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/** Every path state change is one log line with its reason, on both sides, as Linux's rtrs_err/rtrs_info lines. */
class RtrsPathLogSimTest {

    @Test
    void shouldLogEachPathStateChangeWithItsReasonAndTheFailover() {
        List<String> lines = new CopyOnWriteArrayList<>();
        Handler h = new Handler() {
            @Override
            public void publish(LogRecord r) {
                lines.add(r.getLevel() + " " + r.getMessage());
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger rtrs = Logger.getLogger("io.srdnic.rtrs");
        rtrs.addHandler(h);
        try (RtrsSim sim = new RtrsSim(31, 2, RtrsSim.smallServer(), 1 << 20)) {
            RtrsClient c = sim.connect(RtrsSim.smallClient().policy(MpPolicy.ROUND_ROBIN));
            assertTrue(has(lines, "INFO rtrs client sim-client: path 0 (to 10.0.0.3): connected"), lines.toString());
            assertTrue(has(lines, "INFO rtrs client sim-client: path 1 (to 10.0.0.4): connected"), lines.toString());
            assertTrue(has(lines, "INFO rtrs server: session sim-client: path "), lines.toString());
            IoDriver io = new IoDriver(c, 16);
            io.submit();
            sim.cut(0, true); // with IO in flight on both paths
            assertTrue(sim.run(() -> c.state(0) != PathState.CONNECTED && io.finished(), 5000 * MS));
            assertTrue(has(lines, "WARNING rtrs client sim-client: path 0 (to 10.0.0.3): disconnected: HB missed max reached (3 x 50 ms);"
                + " reconnecting in "), lines.toString());
            assertTrue(has(lines, "WARNING rtrs client sim-client: path 0 (to 10.0.0.3): failover of "), lines.toString());
            assertTrue(has(lines, " IO(s) from path 0 to path 1"), lines.toString());
            assertTrue(sim.run(() -> has(lines, "connect attempt 2 failed: "), 5000 * MS),
                    "a reconnect attempt while cut fails, and says so");
            assertTrue(has(lines, "INFO rtrs client sim-client: path 0 (to 10.0.0.3): reconnecting (attempt 2)"), lines.toString());
            assertTrue(sim.run(() ->
                    has(lines, "WARNING rtrs server: session sim-client: path 1 closed: HB missed max reached"), 5000 * MS),
                lines.toString());
            sim.cut(0, false);
            assertTrue(sim.run(c::connected, 5000 * MS));
            assertTrue(has(lines, "INFO rtrs client sim-client: path 0 (to 10.0.0.3): reconnected after "), lines.toString());
            long perChange = lines.stream().filter(l -> l.contains("path 0 (to 10.0.0.3): disconnected")).count();
            assertTrue(perChange == 1, "one line for the one disconnection: " + lines);
        } finally {
            rtrs.removeHandler(h);
        }
    }

    private static boolean has(List<String> lines, String part) {
        return lines.stream().anyMatch(l -> l.contains(part));
    }
}
