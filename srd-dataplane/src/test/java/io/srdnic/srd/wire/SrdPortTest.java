package io.srdnic.srd.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.pcap.PcapWriter;
import io.srdnic.pmd.sim.SimBufferPool;
import java.io.File;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The SRD ports, and the proof that Wireshark shows SRD frames as plain UDP data. */
class SrdPortTest {
    static {
        WireFrames.forbidNativeDpdk();
    }

    static final String PLAIN_UDP = "eth:ethertype:ip:udp:data";

    @TempDir
    Path dir;

    @Test
    void shouldPutEntropyInTheDynamicPortRange() {
        assertEquals(49152, SrdPort.ENTROPY_BASE);
        assertEquals(16384, SrdPort.ENTROPY_COUNT);
        assertEquals(65536, SrdPort.ENTROPY_BASE + SrdPort.ENTROPY_COUNT);
        for (int entropy = 0; entropy < SrdPort.ENTROPY_COUNT; entropy++) {
            int port = SrdPort.sourcePort(entropy);
            assertEquals(49152 + entropy, port);
            assertEquals(entropy, SrdPort.entropy(port));
        }
        assertEquals(SrdPort.sourcePort(5), SrdPort.sourcePort(5 + SrdPort.ENTROPY_COUNT), "taken modulo the count");
        assertEquals(SrdPort.sourcePort(SrdPort.ENTROPY_COUNT - 1), SrdPort.sourcePort(-1));
        assertEquals(-1, SrdPort.entropy(49151));
        assertEquals(-1, SrdPort.entropy(65536));
        assertEquals(-1, SrdPort.entropy(SrdPort.DEFAULT));
    }

    @Test
    void shouldUseARegisteredRangeDestinationPortOutsideTheEntropyRange() {
        assertEquals(21330, SrdPort.DEFAULT);
        assertEquals(0x5352, SrdPort.DEFAULT, "ASCII \"SR\"");
        assertTrue(SrdPort.DEFAULT >= 1024 && SrdPort.DEFAULT < SrdPort.ENTROPY_BASE);
        assertFalse(List.of(4789, 4790, 4791, 4792, 4793).contains(SrdPort.DEFAULT), "not VXLAN, GPE, RoCEv2, UB or UET");
    }

    /**
     * One frame of every kind per entropy value (16384 frames) to the default port, written with the
     * pcap writer and decoded by tshark: each must be plain UDP data, except on a source port that
     * tshark's own UDP port table names (Wireshark tries both ports; 54328 is Elasticsearch's).
     */
    @Test
    void shouldNotBeDecodedAsAnotherProtocolByTshark() throws IOException, InterruptedException {
        Path tshark = tshark();
        Assumptions.assumeTrue(tshark != null, "tshark is not on the PATH: install it (Debian: apt-get install tshark; "
            + "the set-up script installs it in CI) to check that Wireshark does not misread SRD's port");
        Set<Integer> claimedPorts = new HashSet<>();
        for (String line : run(tshark, "-G", "decodes")) {
            String[] f = line.split("\t");
            if (f.length >= 3 && f[0].equals("udp.port")) {
                claimedPorts.add(Integer.parseInt(f[1].trim()));
            }
        }
        assertTrue(claimedPorts.contains(4791), "tshark -G decodes lists UDP ports (RoCEv2's 4791 among them)");
        assertFalse(claimedPorts.contains(SrdPort.DEFAULT), "SRD's port is in tshark's UDP port table");

        String keep = System.getProperty("srdnic.wire.capture");      // -Dsrdnic.wire.capture=/tmp/srd.pcap keeps it
        Path file = keep != null && !keep.isBlank() ? Path.of(keep) : dir.resolve("srd.pcap");
        try (Arena arena = Arena.ofConfined(); PcapWriter writer = new PcapWriter(file)) {
            SimBufferPool pool = new SimBufferPool(arena, 1, SimBufferPool.DEFAULT_DATA_ROOM);
            MbufBatch batch = new MbufBatch(arena, 1);
            pool.allocate(batch, 1, 0);
            Mbuf m = batch.get(0);
            for (int entropy = 0; entropy < SrdPort.ENTROPY_COUNT; entropy++) {
                WireFrames.writeValid(m, entropy, entropy % 2 == 0, entropy);
                m.putShortBE(FrameLayout.UDP_OFFSET, (short) SrdPort.sourcePort(entropy));
                WireFrames.refreshChecksums(m);
                assertTrue(SrdParser.parse(m, SrdPort.DEFAULT, WireFrames.MTU) > 0);
                writer.write(m, 1_000_000_000L + entropy * 1_000L);
            }
            pool.free(batch);
        }
        List<String> lines = run(tshark, "-r", file.toString(), "-T", "fields", "-E", "separator=,",
            "-e", "udp.srcport", "-e", "udp.dstport", "-e", "frame.protocols");
        assertEquals(SrdPort.ENTROPY_COUNT, lines.size());
        TreeMap<Integer, String> claimed = new TreeMap<>();
        for (String line : lines) {
            String[] f = line.split(",");
            int srcPort = Integer.parseInt(f[0]);
            assertEquals(SrdPort.DEFAULT, Integer.parseInt(f[1]), line);
            if (!f[2].equals(PLAIN_UDP)) {
                assertTrue(claimedPorts.contains(srcPort), "tshark decoded an SRD frame as another protocol: " + line);
                claimed.put(srcPort, f[2]);
            }
        }
        System.out.println("tshark: " + (SrdPort.ENTROPY_COUNT - claimed.size()) + " of " + SrdPort.ENTROPY_COUNT
            + " SRD frames decode as " + PLAIN_UDP + "; claimed by a dissector registered on the source port: " + claimed);
    }

    private static Path tshark() {
        String path = System.getenv("PATH");
        if (path != null) {
            for (String dir : path.split(File.pathSeparator)) {
                Path candidate = Path.of(dir.isEmpty() ? "." : dir, "tshark");
                if (Files.isExecutable(candidate)) {
                    return candidate;
                }
            }
        }
        return null;
    }

    private static List<String> run(Path tshark, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(tshark.toString());
        command.addAll(List.of(args));
        Path stderr = Files.createTempFile("tshark", ".err");
        try {
            Process process = new ProcessBuilder(command).redirectError(stderr.toFile()).start();
            process.getOutputStream().close();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(120, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("tshark did not finish in 120 s: " + command);
            }
            if (process.exitValue() != 0) {
                throw new AssertionError("tshark exited with " + process.exitValue() + ": " + command + "\n" + Files.readString(stderr));
            }
            return out.isEmpty() ? List.of() : List.of(out.split("\n"));
        } finally {
            Files.deleteIfExists(stderr);
        }
    }
}
