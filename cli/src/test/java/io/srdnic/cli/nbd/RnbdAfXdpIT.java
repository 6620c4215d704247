package io.srdnic.cli.nbd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.srdnic.cli.net.Shell;
import io.srdnic.cli.net.VethNamespaces;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gateway and the RNBD server as two hosts run them, over af_xdp instead of memif: two network
 * namespaces joined by two veth pairs (two links, two RTRS paths), {@code srdnic rnbd-server --link
 * vdev} in one, {@code srdnic nbd --export disk=rnbd://...} with {@code --rnbd-link vdev} in the
 * other, then nbdcopy through the gateway both ways, bit-identical. Both are stopped with SIGTERM
 * and must log no exception while closing (their CM's DREQs once went out through a pool EAL's
 * shutdown had already freed).
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class RnbdAfXdpIT {
    @TempDir
    Path dir;

    private static String xdp(int index, String iface) {
        return "net_af_xdp" + index + ",iface=" + iface + ",start_queue=0,queue_count=1";
    }

    @Test
    void nbdcopyShouldMoveAnImageBothWaysThroughTheGatewayOverTwoAfXdpLinks() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "network namespaces, veth pairs and AF_XDP need root");
        Tools.require("nbdcopy");
        Path socket = dir.resolve("gw.sock");
        Path source = Tools.randomImage(dir, "source.img", 8 << 20, 7);
        Path serverErr = dir.resolve("server.err");
        Path gatewayErr = dir.resolve("gateway.err");
        try (VethNamespaces veth = VethNamespaces.create("srdnic", "rx", 1500)) {
            String[] second = veth.addPair(1500);
            try (NbdServerProcess server = NbdServerProcess.startIn(veth.namespaceA(), "rnbd-server", null, serverErr, "--memory",
                     "disk=16M", "--link", "vdev", "--vdev", xdp(0, veth.interfaceA()), "--vdev", xdp(1, second[0]), "--ip", "10.0.0.1");
                 NbdServerProcess gateway = NbdServerProcess.startIn(veth.namespaceB(), "nbd", socket, gatewayErr, "--export",
                     "disk=rnbd://10.0.0.1/disk", "--socket", socket.toString(), "--rnbd-link", "vdev",
                     "--rnbd-vdev", xdp(0, veth.interfaceB()), "--rnbd-vdev", xdp(1, second[1]))) {
                Tools.run(dir, 120, "nbdcopy", source.toString(), gateway.uri("disk"));
                Path back = dir.resolve("back.img");
                Tools.run(dir, 120, "nbdcopy", gateway.uri("disk"), back.toString());
                byte[] sent = Files.readAllBytes(source);
                byte[] got = Files.readAllBytes(back);
                assertEquals(16 << 20, got.length, "the export's size");
                assertArrayEquals(sent, Arrays.copyOf(got, sent.length), "the image came back bit-identical");
            } // gateway, then server: SIGTERM, exit within 20 s
        }
        for (Path err : List.of(serverErr, gatewayErr)) {
            String text = NbdServerProcess.read(err);
            assertFalse(text.contains("Exception") || text.contains("outside the data room"), err + ":\n" + text);
        }
        assertFalse(Shell.run("ip", "netns", "list").contains("srdnic-" + ProcessHandle.current().pid()), "namespaces left behind");
    }
}
