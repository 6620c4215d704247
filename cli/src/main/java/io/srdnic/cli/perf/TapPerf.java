package io.srdnic.cli.perf;

import io.srdnic.cli.net.Shell;
import io.srdnic.cli.net.TapBridge;
import io.srdnic.pmd.Eal;
import io.srdnic.pmd.EalConfig;
import io.srdnic.pmd.EthPort;
import io.srdnic.pmd.MbufPool;
import io.srdnic.pmd.PortConfig;
import io.srdnic.verbs.ThreadingMode;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * perf over two net_tap ports in this JVM joined by a Linux bridge ({@link InProcessPerf}): the one
 * link here whose driver offloads the UDP checksum (net_tap computes and verifies it in its own
 * code, as a NIC would in hardware), so it is where the offload path is exercised and measured.
 * Needs root (tap devices, a bridge); the bridge goes when the run ends, the taps with their ports.
 */
final class TapPerf {
    private static final AtomicInteger RUNS = new AtomicInteger();

    private TapPerf() {
    }

    static PerfResult run(PerfParams p, ThreadingMode threading, int memoryMb, Map<String, String> settings, int serverCpu, int clientCpu) {
        Eal eal = Eal.startOrGet(new EalConfig().memoryMb(memoryMb));
        int run = RUNS.getAndIncrement();
        String tag = ProcessHandle.current().pid() % 100_000 + "p" + run;
        String tapA = "srdtap" + tag + "a";
        String tapB = "srdtap" + tag + "b";
        // net_tap takes frames of at most 1522 bytes (its max_rx_pktlen in DPDK 22.11): MTU 1500, an SRD MTU of 1424.
        PortConfig config = PortConfig.DEFAULT.withMtu(1500);
        try (MbufPool poolA = MbufPool.create("perftapa" + run, PerfPort.POOL_SIZE, PerfPort.FRAME_ROOM);
             MbufPool poolB = MbufPool.create("perftapb" + run, PerfPort.POOL_SIZE, PerfPort.FRAME_ROOM);
             EthPort a = EthPort.attach("net_tap_perf" + run + "a,iface=" + tapA);
             EthPort b = EthPort.attach("net_tap_perf" + run + "b,iface=" + tapB)) {
            TapBridge.disableIpv6(tapA);
            TapBridge.disableIpv6(tapB);
            a.configure(config, poolA).start();
            b.configure(config, poolB).start();
            for (String tap : List.of(tapA, tapB)) {
                // net_tap gives the kernel's end of the tap the port's own MAC (again when the port
                // starts); a bridge would take frames to that address for the host and never pass
                // them across. Another MAC there (locally administered, random) lets it forward them.
                Shell.run("ip", "link", "set", tap, "address", TapBridge.randomLocalMac());
            }
            try (TapBridge bridge = TapBridge.create("srdbr" + tag, List.of(tapA, tapB))) {
                SideConfig serverSide = new SideConfig(eal, () -> new PerfPort(b, poolB, false), PerfCommand.SERVER_IP, threading, "tap",
                    false, settings, serverCpu);
                SideConfig clientSide = new SideConfig(eal, () -> new PerfPort(a, poolA, false), PerfCommand.CLIENT_IP, threading, "tap",
                    false, settings, clientCpu);
                return InProcessPerf.run(eal, p, serverSide, clientSide);
            }
        }
    }
}
