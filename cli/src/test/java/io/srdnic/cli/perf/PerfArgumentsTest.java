package io.srdnic.cli.perf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.cli.perf.PerfParams.Op;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/**
 * perf's --op and the sizes and transports it takes, checked before anything starts; how the
 * parameters and the RDMA region cross the side channel; the pattern RDMA runs check.
 */
class PerfArgumentsTest {

    private static PerfParams params(String... args) {
        CommandLine cli = new CommandLine(new PerfCommand());
        cli.parseArgs(args);
        return ((PerfCommand) cli.getCommand()).params();
    }

    private static String refused(Class<? extends RuntimeException> kind, String... args) {
        return assertThrows(kind, () -> params(args), String.join(" ", args)).getMessage();
    }

    @Test
    void shouldTakeEveryOpOnSrdWithSendByDefault() {
        assertEquals(Op.send, params("--link", "sim").op());
        assertEquals(Op.send, params("--link", "sim", "--transport", "ud").op());
        PerfParams write = params("--link", "sim", "--op", "write", "--size", Integer.toString(1 << 30));
        assertEquals(Op.write, write.op());
        assertEquals(1 << 30, write.size(), "up to the transport's largest RDMA transfer");
        assertEquals(Op.read, params("--link", "sim", "--op", "read", "--mode", "bw", "--size", "1").op());
        assertThrows(ParameterException.class, () -> new CommandLine(new PerfCommand()).parseArgs("--op", "atomic"), "not an op");
    }

    @Test
    void shouldRefuseRdmaOnUdAsAUsageError() {
        for (String op : new String[] {"write", "read"}) {
            String message = refused(ParameterException.class, "--link", "sim", "--transport", "ud", "--op", op);
            assertEquals("--op " + op + " needs RDMA, which ud queue pairs do not have: use --transport srd or rc", message);
        }
    }

    @Test
    void shouldRefuseRdmaSizesOutOfRangeAsAUsageError() {
        for (String size : new String[] {"0", "-1", Integer.toString((1 << 30) + 1)}) {
            String message = refused(ParameterException.class, "--link", "sim", "--op", "read", "--size", size);
            assertTrue(message.startsWith("--size must be 1..1073741824 bytes with --op read"), message);
            assertTrue(message.endsWith("was " + size), message);
        }
        assertTrue(refused(ParameterException.class, "--link", "sim", "--op", "write", "--mode", "bw", "--size", "0")
            .contains("with --op write"));
    }

    @Test
    void shouldKeepSendWithinOnePacket() {
        String message = refused(IllegalArgumentException.class, "--link", "sim", "--size", "4097");
        assertTrue(message.startsWith("--size must be 1..4096 bytes (one message is one packet), was 4097"), message);
        assertTrue(message.contains("--op write and read go up to 1 GiB, and so does --transport rc"),
                "says where larger messages go: " + message);
        assertFalse(refused(IllegalArgumentException.class, "--link", "sim", "--transport", "ud", "--size", "4097").contains("--op"),
            "UD has no RDMA to point to");
        assertEquals(4096, params("--link", "sim", "--size", "4096").size());
    }

    @Test
    void shouldCarryTheOpWithTheCorruptionFlagToTheServer() {
        PerfParams p = params("--link", "sim", "--op", "write", "--mode", "bw", "--size", "100000", "--run-id", "7", "--corrupt-payload");
        assertEquals(p, PerfParams.parse(p.line()));
        assertTrue(p.corruptPayload());
        // A PARAMS line without op= (an older client's) is a send.
        String old = params("--link", "sim", "--run-id", "7").line().replace(" op=send", "").replace(" corrupt_payload=false", "");
        assertEquals(Op.send, PerfParams.parse(old).op());
    }

    @Test
    void shouldSayWhichSideReceivesRepliesAndChecks() {
        PerfParams sendLat = params("--link", "sim");
        assertTrue(sendLat.serverReceives() && sendLat.serverReplies() && !sendLat.serverChecks() && !sendLat.clientChecks());
        PerfParams writeLat = params("--link", "sim", "--op", "write");
        assertTrue(writeLat.serverReceives() && writeLat.serverReplies() && writeLat.serverChecks() && writeLat.clientChecks(),
            "WRITE WITH_IMM both ways: both regions are written");
        PerfParams writeBw = params("--link", "sim", "--op", "write", "--mode", "bw");
        assertTrue(!writeBw.serverReceives() && !writeBw.serverReplies() && writeBw.serverChecks() && !writeBw.clientChecks(),
            "plain WRITEs: the server sees nothing arrive, and checks its region at the end");
        for (String mode : new String[] {"lat", "bw"}) {
            PerfParams read = params("--link", "sim", "--op", "read", "--mode", mode);
            assertTrue(!read.serverReceives() && !read.serverReplies() && !read.serverChecks() && read.clientChecks(), mode);
        }
    }

    @Test
    void shouldTellTheRdmaRegionOnlyWhenThereIsOne() {
        PeerInfo plain = new PeerInfo(0x0200_0000_0001L, 0x0A00_0001, 21330, 0x5352_4453, new int[] {3, 4});
        assertFalse(plain.line().contains("raddr"), "a send run's INFO line is as before: " + plain.line());
        assertFalse(PeerInfo.parse(plain.line()).hasRegion());
        PeerInfo rdma = new PeerInfo(0x0200_0000_0001L, 0x0A00_0001, 21330, 0x5352_4453, new int[] {3}, 0x7F12_3456_7000L, 0x8000_01AB);
        PeerInfo back = PeerInfo.parse(rdma.line());
        assertTrue(back.hasRegion());
        assertEquals(0x7F12_3456_7000L, back.rdmaAddress());
        assertEquals(0x8000_01AB, back.rkey(), "an rkey with the top bit set survives");
    }

    @Test
    void shouldFindEveryByteThatIsNotThePattern() {
        try (Arena arena = Arena.ofConfined()) {
            for (int length : new int[] {1, 7, 8, 13, 4096, 65_537}) {
                MemorySegment s = arena.allocate(length);
                assertEquals(-1, Pattern.firstMismatch(s, 0, 5), "nothing to compare: none differs");
                if (length >= 8) {
                    assertTrue(Pattern.firstMismatch(s, length, 5) >= 0, "zeroes are not the pattern");
                }
                Pattern.fill(s, length, 5);
                assertEquals(-1, Pattern.firstMismatch(s, length, 5));
                if (length >= 8) {
                    assertTrue(Pattern.firstMismatch(s, length, 6) >= 0, "another run's pattern differs");
                }
                for (long at : new long[] {0, length / 2, length - 1}) {
                    byte b = s.get(ValueLayout.JAVA_BYTE, at);
                    s.set(ValueLayout.JAVA_BYTE, at, (byte) (b ^ 0x10));
                    assertEquals(at, Pattern.firstMismatch(s, length, 5), "length " + length);
                    s.set(ValueLayout.JAVA_BYTE, at, b);
                }
            }
        }
    }

    @Test
    void shouldFailAPayloadThatWasNotCheckedOrDiffers() {
        assertEquals(null, new PayloadCheck(100, -1).failure("the server's region"));
        assertEquals("byte 42 of the 100 B in the server's region is not what was sent", new PayloadCheck(100, 42)
                .failure("the server's region"));
        assertEquals("the payload in the client's region was not checked", PayloadCheck.NONE.failure("the client's region"));
        PayloadCheck c = new PayloadCheck(65536, 7);
        assertEquals(c, PayloadCheck.of(LineFields.parse("received=0 errors=0 " + c.fields())));
        assertEquals(PayloadCheck.NONE, PayloadCheck.of(Map.of()), "a RESULT line of a send run has no check");
    }

    @Test
    void shouldTakeEveryOpOnRcWithSendsUpTo1GiB() {
        for (String op : new String[] {"send", "write", "read"}) {
            for (String mode : new String[] {"lat", "bw"}) {
                PerfParams p = params("--link", "sim", "--transport", "rc", "--op", op, "--mode", mode, "--size",
                        Integer.toString(1 << 30));
                assertEquals(PerfParams.Transport.rc, p.transport());
                assertEquals(1 << 30, p.size(), "RC cuts every message at the path MTU: " + op);
                assertEquals(p, PerfParams.parse(p.line()), "the server takes it from the PARAMS line");
            }
        }
        for (String size : new String[] {"0", Integer.toString((1 << 30) + 1)}) {
            String message = refused(ParameterException.class, "--link", "sim", "--transport", "rc", "--size", size);
            assertTrue(message.startsWith("--size must be 1..1073741824 bytes with --transport rc --op send"), message);
            assertTrue(message.endsWith("was " + size), message);
        }
    }

    @Test
    void shouldRefuseRcPathsOnAnotherTransportAsAUsageError() {
        for (String transport : new String[] {"srd", "ud"}) {
            String message = refused(ParameterException.class, "--link", "sim", "--transport", transport, "--set", "rc-paths=1");
            assertTrue(message.startsWith("--set rc-paths is the path count of RC queue pairs: it needs --transport rc"), message);
        }
        assertEquals(PerfParams.Transport.rc, params("--link", "sim", "--transport", "rc", "--set", "rc-paths=1").transport());
        assertEquals(PerfParams.Transport.srd, params("--link", "memif", "--server", "--set", "rc-paths=1").transport(),
            "a --server learns the transport from its client: it may be rc");
    }

    @Test
    void shouldGiveTheTransportSettingsToTheDataplanesItStarts() {
        List<String> args = TwoProcessPerf.dataplaneArgs("net_memif0", Path.of("/tmp/d"), "10.0.0.1", 1, false,
            new LinkedHashMap<>(Map.of("ack-every", "8")));
        assertEquals(List.of("--set", "ack-every=8"), args.subList(args.size() - 2, args.size()));
    }

    @Test
    void shouldTakeAnRcAckTimeoutCodeForConnectedQpsOnly() {
        assertEquals(18, params("--link", "sim", "--transport", "rc", "--rc-ack-timeout", "18").ackTimeout());
        assertEquals(0, params("--link", "sim", "--transport", "rc").ackTimeout(), "0: the CM's default");
        for (String code : new String[] {"0", "32", "-1"}) {
            assertTrue(refused(ParameterException.class, "--link", "sim", "--transport", "rc", "--rc-ack-timeout", code)
                .startsWith("--rc-ack-timeout is a code 1..31"));
        }
        assertTrue(refused(ParameterException.class, "--link", "sim", "--transport", "srd", "--rc-ack-timeout", "18")
            .startsWith("--rc-ack-timeout is the local ACK timeout of connected QPs"));
        assertEquals(18, PerfParams.parse(params("--link", "sim", "--transport", "src", "--rc-ack-timeout", "18").line()).ackTimeout(),
            "the server takes it from the client's PARAMS line");
    }

    @Test
    void shouldCheckRcSendsLikeWrites() {
        PerfParams lat = params("--link", "sim", "--transport", "rc");
        assertTrue(lat.serverReceives() && lat.serverReplies() && lat.serverChecks() && lat.clientChecks() && lat.checksPayload(),
            "the server checks what arrived and sends it back; the client checks what came back");
        PerfParams bw = params("--link", "sim", "--transport", "rc", "--mode", "bw");
        assertTrue(bw.serverReceives() && !bw.serverReplies() && bw.serverChecks() && !bw.clientChecks());
        PerfParams srd = params("--link", "sim", "--transport", "srd");
        assertFalse(srd.checksPayload() || srd.checkedSends(), "SRD and UD SENDs carry no pattern");
    }

    @Test
    void shouldTellTheRegionWithQpnsButNoPsnsOnTheSideChannel() {
        PeerInfo rdma = new PeerInfo(0x0200_0000_0001L, 0x0A00_0001, 21330, 0x5352_4453, new int[] {3, 4}, 0x7F12_3456_7000L, 0x42);
        PeerInfo back = PeerInfo.parse(rdma.line());
        assertTrue(back.hasRegion(), rdma.line());
        assertArrayEquals(new int[] {3, 4}, back.qpns());
        assertFalse(rdma.line().contains("psns"), "RC's first PSNs go through the CM: " + rdma.line());
        String line = new PeerInfo(0x0200_0000_0001L, 0x0A00_0001, 21330, 0x5352_4453, new int[] {3}).line();
        assertThrows(IllegalArgumentException.class, () -> PeerInfo.parse(line + " psns=0x1"), "no such field any more");
    }

    @Test
    void shouldPickTheLargestPathMtuWithinTheLink() {
        assertEquals(4096, PerfEndpoint.pathMtu(4096));
        assertEquals(2048, PerfEndpoint.pathMtu(4095));
        assertEquals(1024, PerfEndpoint.pathMtu(1958), "af_xdp's 2 KiB frames");
        assertEquals(256, PerfEndpoint.pathMtu(256));
        assertEquals(0, PerfEndpoint.pathMtu(255));
    }

    @Test
    void shouldRunAttachedOnlyWhatAnAttachedContextServes() {
        // RC and SRC run attached too: the dataplanes' connection managers connect their QPs.
        assertEquals(PerfParams.Transport.rc, params("--link", "memif", "--attach", "/tmp/x", "--transport", "rc").transport());
        assertEquals(PerfParams.Transport.src, params("--link", "memif", "--attach", "/tmp/x", "--transport", "src").transport());
        assertTrue(refused(ParameterException.class, "--link", "ring", "--attach", "/tmp/x").contains("--link memif"));
        assertEquals(PerfParams.Transport.srd, params("--link", "memif", "--attach", "/tmp/x", "--set", "paths=2").transport(),
            "the dataplanes perf starts take --set");
        assertTrue(refused(ParameterException.class, "--server", "--attach", "/tmp/x", "--set", "paths=2")
            .contains("give it to srdnic dataplane"), "a dataplane perf did not start has its own settings");
        assertEquals(PerfParams.Transport.ud, params("--link", "memif", "--attach", "/tmp/x", "--transport", "ud").transport());
        assertEquals(Op.write, params("--server", "--attach", "/tmp/x", "--op", "write").op());
    }
}
