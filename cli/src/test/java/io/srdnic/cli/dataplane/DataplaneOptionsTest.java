package io.srdnic.cli.dataplane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.dataplane.attach.AllowRule;
import io.srdnic.dataplane.attach.AttachPolicy;
import io.srdnic.dataplane.attach.ClientQuota;
import io.srdnic.dataplane.attach.TotalQuota;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code srdnic dataplane --config FILE}: the file fills what the command line leaves out, and the command line wins. */
class DataplaneOptionsTest {
    @TempDir
    Path tmp;

    private DataplaneCommand parsed(String... args) {
        DataplaneCommand cmd = new DataplaneCommand();
        new CommandLine(cmd).parseArgs(args);
        cmd.applyConfig();
        return cmd;
    }

    @Test
    void shouldTakeTheFileForWhatTheCommandLineLeavesOut() throws Exception {
        Path file = Files.writeString(tmp.resolve("dp.conf"), """
            port = net_memif0,role=server,socket=/run/a.sock
            lcores = 2
            cpu = 1, 0
            dir = /run/srdnic-a
            ip = 10.1.0.1
            busy-spin = true
            set.rto-min-us = 200
            set.paths = 4
            """);
        DataplaneCommand cmd = parsed("--config", file.toString(), "--lcores", "1", "--set", "paths=8");
        assertEquals(List.of("net_memif0,role=server,socket=/run/a.sock"), cmd.ports);
        assertEquals(1, cmd.lcores, "the command line wins");
        assertEquals(List.of(1, 0), cmd.cpus);
        assertEquals(Path.of("/run/srdnic-a"), cmd.dir);
        assertEquals("10.1.0.1", cmd.ip);
        assertTrue(cmd.busySpin);
        assertEquals(Map.of("rto-min-us", "200", "paths", "8"), cmd.settings, "--set wins over set.paths");
        assertEquals(512, cmd.memoryMb, "the default where neither says");
    }

    @Test
    void shouldRefuseAMissingPortOrUnknownSettings() throws Exception {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> parsed("--lcores", "1")).getMessage().startsWith("no port"));
        Path file = Files.writeString(tmp.resolve("bad.conf"), "port = net_ring0\nset.no-such-setting = 1\n");
        assertThrows(IllegalArgumentException.class, () -> parsed("--config", file.toString()));
        assertThrows(IllegalArgumentException.class, () -> parsed("--port", "net_ring0", "--set", "rto-min-us=minus"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> parsed("--port", "net_ring0", "--set", "paths=100")).getMessage()
            .contains("paths must be 1..64"), "out of range: refused before EAL starts, not when the contexts open");
    }

    @Test
    void shouldBuildTheAttachPolicyFromNumbersInTheFileOrOnTheCommandLine() throws Exception {
        Path file = Files.writeString(tmp.resolve("access.conf"), """
            port = net_memif0,role=server
            group = 27
            allow-uid = 1000, 1001
            allow-group = 27
            max-connections = 32
            max-connections-per-uid = 4
            open-timeout-ms = 750
            """);
        AttachPolicy p = parsed("--config", file.toString(), "--max-connections-per-uid", "8").policy();
        assertEquals(27, p.socketGid());
        assertTrue(p.allow().allows(1000, 5) && p.allow().allows(1001, 5) && p.allow().allows(0, 0), "the uids listed, and root");
        assertTrue(p.allow().allows(4242, 27), "a member of the group by its primary gid");
        assertTrue(!p.allow().allows(4242, 5), "anyone else is refused");
        assertEquals(32, p.maxConnections());
        assertEquals(8, p.maxConnectionsPerUid(), "the command line wins");
        assertEquals(750, p.openTimeoutMillis());
        AttachPolicy defaults = parsed("--port", "net_ring0").policy();
        assertTrue(defaults.allow().allows(AllowRule.ownUid(), -1) && defaults.allow().allows(0, -1));
        assertEquals(-1, defaults.socketGid(), "the dataplane's own group");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> parsed("--config", Files.writeString(tmp.resolve("bad.conf"),
            "port = net_ring0\nallow-uid = root\n").toString())).getMessage().contains("allow-uid is a number, was root"),
                    "names are refused");
    }

    @Test
    void shouldTakeQuotasFromTheFileAndTheCommandLine() throws Exception {
        Path file = Files.writeString(tmp.resolve("q.conf"), "port = net_ring0\nquota.cqs = 8\nquota.mrs = 100\n");
        DataplaneCommand cmd = parsed("--config", file.toString(), "--quota", "mrs=200", "--quota", "cq-entries=4096");
        assertEquals(8, cmd.quota.cqs());
        assertEquals(200, cmd.quota.mrs(), "--quota wins over quota.mrs");
        assertEquals(4096, cmd.quota.cqEntries());
        assertEquals(ClientQuota.DEFAULTS.qps(), cmd.quota.qps(), "the default where neither says");
    }

    @Test
    void shouldRefuseAnUnknownQuotaOrOneOutOfRange() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> parsed("--port", "net_ring0", "--quota", "gpus=1")).getMessage()
            .contains("no quota 'gpus'"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> parsed("--port", "net_ring0", "--quota", "qps=0")).getMessage()
            .contains("must be 1.."));
    }

    /** --total-quota and total-quota.NAME: the command line wins, the machine's defaults where neither says, unknown names refused. */
    @Test
    void shouldTakeTotalQuotasFromTheFileAndTheCommandLineOverTheMachinesDefaults() throws Exception {
        Path file = Files.writeString(tmp.resolve("t.conf"),
            "port = net_ring0\ntotal-quota.pool-bytes = 1000000\ntotal-quota.cq-entries = 5\n");
        DataplaneCommand cmd = parsed("--config", file.toString(), "--total-quota", "cq-entries=7");
        assertEquals(1_000_000, cmd.totals.poolBytes());
        assertEquals(7, cmd.totals.cqEntries(), "--total-quota wins over total-quota.cq-entries");
        assertEquals(TotalQuota.ofThisMachine().qpEntries(), cmd.totals.qpEntries(), "the machine's default where neither says");
        assertTrue(parsed("--port", "net_ring0").totals.poolBytes() > 1L << 20, "half this machine's memory by default");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> parsed("--port", "net_ring0", "--total-quota", "qps=1")).getMessage()
            .contains("no total quota 'qps'"));
    }

    /** --idle (Agrona idle strategies): from the file, the command line wins, --busy-spin is spin. */
    @Test
    void shouldTakeTheIdleStrategyFromTheFileOrTheCommandLine() throws Exception {
        Path file = Files.writeString(tmp.resolve("idle.conf"), "port = net_ring0\nidle = sleep\n");
        assertEquals("sleep", parsed("--config", file.toString()).idle);
        assertEquals("spin", parsed("--config", file.toString(), "--idle", "spin").idle, "the command line wins");
        assertEquals("backoff", parsed("--port", "net_ring0").idle, "the default");
    }

    @Test
    void shouldRefuseAnUnknownIdleStrategy() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> parsed("--port", "net_ring0", "--idle", "nap")).getMessage()
            .contains("--idle is backoff, spin or sleep, was nap"));
    }
}
