package io.srdnic.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.srdnic.cli.net.Shell;
import io.srdnic.cli.pktgen.PeerProcess;
import java.io.File;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * pktgen between two JVMs: memif over a shared-memory socket, af_xdp and af_packet over a veth
 * pair in two network namespaces that pktgen creates and removes. This JVM starts no EAL.
 */
class PktgenTwoProcessIT {

    @ParameterizedTest
    @CsvSource({"memif,100000,64", "memif,20000,4000", "af_xdp,50000,128", "af_xdp,20000,1400", "af_packet,20000,512"})
    void shouldMoveEveryFrameIntactBetweenTwoProcesses(String link, long count, int size) {
        assumeTrue(CliRun.root(), "namespaces, veth and AF_XDP need root");
        Set<String> ealDirsBefore = ealRuntimeDirs();
        CliRun run = CliRun.of("pktgen", "--link", link, "--count", Long.toString(count), "--size", Integer.toString(size), "--json");
        assertEquals(0, run.status(), run.stdout());
        assertEquals(count, run.number("sent"));
        assertEquals(count, run.number("received"));
        assertEquals(0, run.number("corrupted"));
        assertEquals(0, run.number("duplicated"));
        String namespaces = Shell.run("ip", "netns", "list");
        assertEquals(false, namespaces.contains("srdnic-" + ProcessHandle.current().pid()), "namespaces left behind: " + namespaces);
        Set<String> leftBehind = new HashSet<>(ealRuntimeDirs());
        leftBehind.removeAll(ealDirsBefore);
        assertEquals(Set.of(), leftBehind, "EAL runtime directories left behind");
    }

    /**
     * A blast fills the link (the sender never waits), so memif's ring runs full: a 4186-byte frame
     * must still arrive whole, not as fragments (what memif's default 2 KiB buffers did under a blast).
     */
    @ParameterizedTest
    @CsvSource({"memif,4186", "af_xdp,1400"})
    void shouldBlastFramesThatAllArriveWholeBetweenTwoProcesses(String link, int size) {
        assumeTrue(CliRun.root(), "namespaces, veth and AF_XDP need root");
        CliRun run = CliRun.of("pktgen", "--mode", "blast", "--link", link, "--size", Integer.toString(size), "--seconds", "2", "--json");
        assertEquals(0, run.status(), run.stdout());
        long sent = run.number("sent");
        long received = run.number("received");
        assertEquals(0, run.number("foreign"), "frames that were not whole blast frames of this run");
        if (link.equals("memif")) {
            assertEquals(sent, received, "memif loses nothing it took");
        } else {
            assertTrue(received > 0 && received <= sent, received + " of " + sent);
        }
        assertEquals(run.number("window_frames") * size, run.number("window_bytes"));
        assertTrue(Double.parseDouble(run.json().get("mpps")) > 0);
    }

    @Test
    void shouldCountWhatTheKernelDropsWhenTheAfXdpReceiveRingOverflows() {
        assumeTrue(CliRun.root(), "namespaces, veth and AF_XDP need root");
        // Twice the AF_XDP socket's 2048-descriptor receive ring in flight: the kernel drops what the
        // ring cannot hold and counts it on the veth, where DPDK's af_xdp statistics do not look.
        CliRun run = CliRun.of("pktgen", "--link", "af_xdp", "--count", "100000", "--size", "64", "--window", "4096", "--json");
        assertEquals(0, run.status(), "every frame arrived or was counted as dropped: " + run.stdout());
        long lost = run.number("sent") - run.number("received");
        long dropped = run.number("link_dropped");
        assertTrue(lost <= dropped && dropped <= lost + 16, "lost " + lost + " but the link counted " + dropped);
        assertEquals(0, run.number("corrupted"));
        assertEquals(0, run.number("duplicated"));
    }

    /**
     * A side's result is not its exit: it keeps its port until the parent closes its stdin. The
     * parent does that only once the other side has stopped polling, because a memif end that closes
     * under a peer inside rx_burst makes the peer's driver unmap the rings under it (the reflector
     * crashed with SIGSEGV in librte_net_memif in 6 of 25 ping-pongs when the initiator closed at
     * once).
     */
    @Test
    void shouldKeepItsPortOpenAfterItsResultUntilTheParentClosesStdin() throws Exception {
        String socket = "/run/srdnic-memif-hold-" + ProcessHandle.current().pid() + ".sock";
        try (PeerProcess reflector = PeerProcess.start("reflector", null, List.of("pktgen", "--mode", "pingpong", "--role", "reflect",
            "--link", "memif", "--vdev", "net_memif0,role=server,id=0,socket=" + socket, "--time-limit-s", "60"))) {
            reflector.await("READY ", 60_000);
            reflector.send("DONE 0");
            reflector.await("{", 30_000);
            assertEquals(-1, reflector.exitStatusWithin(1_000), "the side exited (closed its port) while the parent still held its stdin");
            reflector.closeStdin();
            assertEquals(0, reflector.exitStatusWithin(30_000), "the side did not exit once its stdin closed");
        }
    }

    static Set<String> ealRuntimeDirs() {
        File[] dirs = new File("/var/run/dpdk").listFiles();
        return dirs == null ? Set.of() : Arrays.stream(dirs).map(File::getName).collect(Collectors.toSet());
    }
}
