package io.srdnic.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.pcap.PcapWriter;
import io.srdnic.pmd.sim.SimBufferPool;
import io.srdnic.srd.sim.RcSimulation;
import io.srdnic.srd.wire.AtomicHeader;
import io.srdnic.srd.wire.DropReason;
import io.srdnic.srd.wire.FrameLayout;
import io.srdnic.srd.wire.Ipv4UdpFrame;
import io.srdnic.srd.wire.PacketType;
import io.srdnic.srd.wire.ParseError;
import io.srdnic.srd.wire.RdmaHeader;
import io.srdnic.srd.wire.ReadResponseHeader;
import io.srdnic.srd.wire.SrdAck;
import io.srdnic.srd.wire.SrdHeader;
import io.srdnic.srd.wire.SrdParser;
import io.srdnic.srd.wire.SrdPort;
import io.srdnic.verbs.cm.CmMessage;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Wireshark dissector (tools/wireshark/srdnic.lua) against the project's own codecs: every
 * frame of an {@code srdnic sim --pcap} run that carries every SRD and UD packet type, every frame
 * of an {@code srdnic sim --transport rc --pcap} run that carries every RC operation (segments,
 * READ and atomic answers, an RNR NAK, held ACKs), and frames of every type the codecs write with
 * random fields and flags, decode in tshark with exactly the field values SrdHeader, RdmaHeader,
 * ReadResponseHeader, AtomicHeader and SrdAck read, with RC's meanings where FLAG_RC is set; on the SRD port and
 * by heuristic elsewhere it claims exactly the frames SrdParser accepts, and flags the others with
 * the expert named after SrdParser's ParseError. Fails, never skips, when tshark is missing.
 */
class WiresharkDissectorIT {
    static final int MTU = 4096;
    /** A UDP port no Wireshark dissector is registered on (tshark -G decodes): only the heuristic can claim it. */
    static final int OTHER_PORT = 40000;
    static final String SRDNIC = "eth:ethertype:ip:udp:srdnic";
    static final String PLAIN_UDP = "eth:ethertype:ip:udp:data";
    /** expert.severity.WARN: nothing the dissector says about a frame of a healthy run may reach it. */
    static final long PI_WARN = 0x0060_0000;
    static final long SRC_MAC = 0x02_00_00_00_00_01L;
    static final long DST_MAC = 0x02_00_00_00_00_02L;
    static final int SRC_IP = 0x0A00_0001;
    static final int DST_IP = 0x0A00_0002;

    /** The SRD-part errors SrdParser can return for a frame whose Ethernet, IPv4 and UDP headers are sound. */
    static final List<ParseError> SRD_ERRORS = List.of(ParseError.TRUNCATED, ParseError.WRONG_VERSION, ParseError.UNKNOWN_TYPE,
        ParseError.OVERSIZED, ParseError.BAD_LENGTH, ParseError.OUT_OF_RANGE);

    @TempDir
    Path dir;

    private Arena arena;
    private SimBufferPool pool;
    private MbufBatch batch;
    private Mbuf m;
    private Tshark tshark;

    @BeforeEach
    void setUp() {
        tshark = Tshark.find();
        arena = Arena.ofConfined();
        pool = new SimBufferPool(arena, 1, SimBufferPool.DEFAULT_DATA_ROOM);
        batch = new MbufBatch(arena, 1);
        pool.allocate(batch, 1, 0);
        m = batch.get(0);
    }

    @AfterEach
    void tearDown() {
        pool.free(batch);
        arena.close();
    }

    @Test
    void shouldDecodeEveryFrameOfASimulatedRunWithTheFieldValuesTheCodecsRead() throws Exception {
        Path capture = dir.resolve("sim.pcap");
        CliRun run = CliRun.of("sim", "--hosts", "2", "--messages", "1000", "--size", "64",
            "--ops", "send,send-imm,ud,bad-dest-qp,bad-qkey,rnr,too-long,rdma-write,rdma-write-imm,rdma-read",
            "--loss", "0.05", "--reorder", "0.2", "--paths", "8", "--blackhole-paths", "3", "--set", "path-avoid-us=20",
            // A PROBE_REPLY comes only for a path suspected while healthy (the blackholed ones never
            // answer): seed 3's run has two since SRD ACKs are coalesced (seed 1's, with fewer false
            // suspicions, has none), so every packet kind is in the capture.
            "--seed", "3", "--pcap", capture.toString());
        assertEquals(0, run.status(), run.stdout());

        Map<String, Integer> kinds = decodeLikeTheCodecs(capture, "srdnic sim");
        for (String k : List.of("SEND", "SEND_WITH_IMM", "UD SEND_WITH_IMM", "RDMA_WRITE", "RDMA_WRITE_WITH_IMM", "RDMA_READ",
            "READ_RESPONSE", "ACK", "ACK with SACK bits", "ACK with drops", "drop BAD_DEST_QP", "drop RNR", "drop REMOTE_OPERATION",
            "drop REMOTE_INVALID_REQUEST", "PROBE", "PROBE_REPLY", "retransmission")) {
            assertTrue(kinds.getOrDefault(k, 0) > 0, "the capture holds no " + k + ": " + kinds);
        }
    }

    /**
     * RC on the wire, from the real transport: an RC connection carrying every RC operation under
     * loss and reordering, so that the capture holds FIRST, MIDDLE, LAST and ONLY packets, READ
     * and atomic answers, an RNR NAK with the responder's RNR timer, ACKs that hold a READ or
     * atomic waiting for an answer slot (FLAG_HELD), and retransmissions.
     */
    @Test
    void shouldDecodeEveryFrameOfASimulatedRcRunWithTheFieldValuesTheCodecsRead() throws Exception {
        Path capture = dir.resolve("rc.pcap");
        List<String> ops = List.of("send", "send-imm", "rdma-write", "rdma-write-imm", "rdma-read", "cmp-swap", "fetch-add", "rnr",
            "fetch-add", "cmp-swap", "rdma-read", "fetch-add");
        int messages = 400;
        CliRun run = CliRun.of("sim", "--transport", "rc", "--messages", Integer.toString(messages), "--size", "3000",
            "--ops", String.join(",", ops), "--loss", "0.05", "--reorder", "0.2", "--paths", "4", "--seed", "3",
            "--pcap", capture.toString());
        assertEquals(0, run.status(), run.stdout());

        Map<String, Integer> kinds = decodeLikeTheCodecs(capture, "srdnic sim --transport rc");
        for (String k : List.of("RC SEND", "RC SEND_WITH_IMM", "RC RDMA_WRITE", "RC RDMA_WRITE_WITH_IMM", "RC RDMA_READ",
            "RC READ_RESPONSE", "RC ATOMIC_CMP_SWAP", "RC ATOMIC_FETCH_ADD", "RC ACK", "segment FIRST", "segment MIDDLE", "segment LAST",
            "segment ONLY", "ACK held", "RNR NAK timer " + RcSimulation.MIN_RNR_TIMER, "atomic answer", "retransmission")) {
            assertTrue(kinds.getOrDefault(k, 0) > 0, "the capture holds no " + k + ": " + kinds);
        }
        long atomics = IntStream.range(0, messages).mapToObj(i -> ops.get(i % ops.size()))
            .filter(op -> op.equals("cmp-swap") || op.equals("fetch-add")).count();
        assertTrue(kinds.get("atomic answer") >= atomics, "every atomic's answer is told from a READ's: " + kinds.get("atomic answer")
            + " frames answer the " + atomics + " atomics");
        for (int type = 1; type <= PacketType.MAX; type++) {
            assertFalse(kinds.containsKey(PacketType.name(type)) || kinds.containsKey("UD " + PacketType.name(type)),
                "every packet of an RC run is RC's: " + kinds);
        }
    }

    /**
     * SRC on the wire, from the real transport: {@code srdnic sim --all-to-all --transport src} with
     * 3 nodes of 3 jobs under loss, each node's SRC QP to another node carrying messages to each of
     * that node's jobs' SRQs (numbers 1..3): every request packet has FLAG_SRC and the SRQ number,
     * shown as srdnic.flags.src and srdnic.src.srq_number; ACKs stay RC's.
     */
    @Test
    void shouldDecodeEveryFrameOfASimulatedSrcRunWithTheFlagAndSrqNumberTheCodecsRead() throws Exception {
        Path capture = dir.resolve("src.pcap");
        CliRun run = CliRun.of("sim", "--all-to-all", "--transport", "src", "--nodes", "3", "--jobs", "3", "--size", "512",
            "--loss", "0.05", "--seed", "4", "--pcap", capture.toString());
        assertEquals(0, run.status(), run.stdout());

        Map<String, Integer> kinds = decodeLikeTheCodecs(capture, "srdnic sim --all-to-all --transport src");
        for (String k : List.of("SRC SEND_WITH_IMM", "RC ACK", "SRQ 1", "SRQ 2", "SRQ 3", "retransmission")) {
            assertTrue(kinds.getOrDefault(k, 0) > 0, "the capture holds no " + k + ": " + kinds);
        }
        assertFalse(kinds.containsKey("RC SEND_WITH_IMM"), "every request of an SRC run names an SRQ: " + kinds);
    }

    /**
     * The connection manager on the wire, from the real CM: {@code srdnic cm-pingpong --link sim}
     * connects, ping-pongs and disconnects twice, so the capture holds REQ, REP, RTU, DREQ and DREP
     * datagrams to the management QP, each decoded as srdnic.cm.* with the values CmMessage reads,
     * and the RC traffic between them.
     */
    @Test
    void shouldDecodeTheConnectionManagersMessagesAsTheCodecReadsThem() throws Exception {
        Path capture = dir.resolve("cm.pcap");
        CliRun run = CliRun.of("cm-pingpong", "--link", "sim", "--connections", "2", "--iters", "3", "--pcap", capture.toString());
        assertEquals(0, run.status(), run.stdout());

        Map<String, Integer> kinds = decodeLikeTheCodecs(capture, "srdnic cm-pingpong --link sim");
        for (String k : List.of("CM REQ", "CM REP", "CM RTU", "CM DREQ", "CM DREP", "RC SEND", "RC ACK")) {
            assertTrue(kinds.getOrDefault(k, 0) > 0, "the capture holds no " + k + ": " + kinds);
        }
        assertEquals(2, kinds.get("CM REQ"), "one request per connection: " + kinds);
    }

    /**
     * What a run cannot show: READ_RESPONSE with a failing status, a REMOTE_ACCESS drop, RDMA
     * packets whose fields take any value (an address over 2^63, a length over 2^31), every type
     * with and without data. Valid frames of every type, written by the codecs with random fields.
     */
    @Test
    void shouldDecodeEveryFieldOfEveryPacketTypeAsTheCodecsWroteIt() throws Exception {
        Path capture = dir.resolve("every-type.pcap");
        SplittableRandom random = new SplittableRandom(29);
        try (PcapWriter writer = new PcapWriter(capture)) {
            for (int i = 0; i < 400; i++) {
                int srdLength = writeValid(random, i % 3 == 0 ? PacketType.ACK : VALID_DATA_TYPES[i % VALID_DATA_TYPES.length]);
                Ipv4UdpFrame.write(m, SRC_MAC, DST_MAC, SRC_IP, DST_IP, SrdPort.sourcePort(i % 16), SrdPort.DEFAULT, srdLength,
                    random.nextBoolean());
                writer.write(m, 1_000_000_000L + i * 1_000L);
            }
        }
        Map<String, Integer> kinds = decodeLikeTheCodecs(capture, "frames of every type");
        for (int type : VALID_DATA_TYPES) {
            assertTrue(kinds.getOrDefault(PacketType.name(type), 0) > 0, "no " + PacketType.name(type) + ": " + kinds);
        }
        for (String k : List.of("drop REMOTE_ACCESS", "READ_RESPONSE with status", "RDMA data", "RC ACK", "RC SEND", "SRC SEND",
            "SRC RDMA_WRITE", "segment MIDDLE", "segment ONLY", "ACK held")) {
            assertTrue(kinds.getOrDefault(k, 0) > 0, "no " + k + ": " + kinds);
        }
    }

    /**
     * Decodes {@code capture} with tshark: every frame must be srdnic, free of expert warnings, and
     * carry every field with the value the codecs read (DissectorFields); returns how many frames of
     * each kind it held (see {@link #kindsOf}).
     */
    private Map<String, Integer> decodeLikeTheCodecs(Path capture, String what) throws Exception {
        List<byte[]> frames = PcapRecords.frames(capture);
        List<String> args = new ArrayList<>(List.of("-r", capture.toString(), "-T", "fields", "-E", "separator=/t",
            "-E", "occurrence=a", "-E", "aggregator=" + DissectorFields.AGGREGATOR,
            "-e", "frame.number", "-e", "frame.protocols", "-e", "_ws.expert.severity", "-e", "_ws.col.Info"));
        for (String field : DissectorFields.ALL) {
            args.add("-e");
            args.add(field);
        }
        List<String> rows = tshark.run(args.toArray(String[]::new));
        assertEquals(frames.size(), rows.size(), "one line per frame");

        Map<String, Integer> kinds = new TreeMap<>();
        Map<String, String> samples = new TreeMap<>();
        DissectorFields.Requests requests = new DissectorFields.Requests();
        for (int i = 0; i < frames.size(); i++) {
            load(frames.get(i));
            int type = SrdParser.parse(m, SrdPort.DEFAULT, MTU);
            int frame = i + 1;
            assertTrue(type > 0, () -> "frame " + frame + " of the capture is not valid SRD: " + Ipv4UdpFrame.error(type));
            String[] row = rows.get(i).split("\t", -1);
            assertEquals(4 + DissectorFields.ALL.size(), row.length, rows.get(i));
            String where = "frame " + row[0] + " (" + row[3] + ")";
            assertEquals(Integer.toString(i + 1), row[0]);
            assertEquals(SRDNIC, row[1], where + " decodes as srdnic");
            for (String severity : row[2].isEmpty() ? new String[0] : row[2].split("[|,]")) {
                assertTrue(Long.decode(severity) < PI_WARN, where + " has an expert warning or error: " + row[2]);
            }
            boolean answersAtomic = type == PacketType.READ_RESPONSE && requests.atomicAnswered(m) > 0;
            Map<String, List<String>> expected = DissectorFields.expected(m, type, requests, frame);
            for (int f = 0; f < DissectorFields.ALL.size(); f++) {
                String name = DissectorFields.ALL.get(f);
                assertEquals(expected.get(name), DissectorFields.normalize(name, row[4 + f]), where + ": " + name);
            }
            String kind = kind(type);
            assertTrue(row[3].startsWith(kind), where + ": the Info column starts with the type, UD or RC before it");
            for (String k : kindsOf(type, kind, answersAtomic)) {
                kinds.merge(k, 1, Integer::sum);
                samples.putIfAbsent(k, "frame " + row[0] + ": " + row[3]);
            }
        }
        System.out.println("tshark decoded " + frames.size() + " frames of " + what + " with " + Tshark.DISSECTOR + ": " + kinds);
        samples.forEach((k, s) -> System.out.println("  " + k + " -> " + s));
        return kinds;
    }

    @Test
    void shouldJudgeEveryFrameAsSrdParserDoes() throws Exception {
        Path capture = dir.resolve("mutated.pcap");
        List<Integer> verdicts = new ArrayList<>();
        List<Integer> ports = new ArrayList<>();
        List<Boolean> cutExtended = new ArrayList<>();
        SplittableRandom random = new SplittableRandom(13);
        try (PcapWriter writer = new PcapWriter(capture)) {
            for (int i = 0; i < 800; i++) {
                int port = i % 2 == 0 ? SrdPort.DEFAULT : OTHER_PORT;
                int srdLength = mutate(writeValid(random, anyType(random)), random);
                Ipv4UdpFrame.write(m, SRC_MAC, DST_MAC, SRC_IP, DST_IP, SrdPort.sourcePort(i % 16), port, srdLength, random.nextBoolean());
                verdicts.add(SrdParser.parse(m, port, MTU));
                ports.add(port);
                cutExtended.add(cutsItsExtendedHeader(srdLength));
                writer.write(m, 1_000_000_000L + i * 1_000L);
            }
            // Another protocol on its own port, whose first byte (0x12) reads as SRD version 1, type 2.
            byte[] dns = {0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0, 7, 'e', 'x', 'a', 'm', 'p', 'l', 'e', 3, 'c', 'o',
                    'm', 0, 0, 1, 0, 1};
            writeRaw(dns, 53, writer, verdicts, ports);
            writeRaw("not an SRD packet, just some text on a UDP port".getBytes(StandardCharsets.US_ASCII), OTHER_PORT, writer,
                verdicts, ports);
        }
        List<String> rows = tshark.run("-r", capture.toString(), "-T", "fields", "-E", "separator=/t", "-E", "occurrence=a",
            "-E", "aggregator=" + DissectorFields.AGGREGATOR, "-e", "frame.number", "-e", "frame.protocols", "-e", "_ws.expert.message",
            "-e", "_ws.col.Info");
        assertEquals(verdicts.size(), rows.size());

        Map<ParseError, int[]> refused = new EnumMap<>(ParseError.class); // [on the SRD port, on the other port]
        int[] accepted = new int[2];
        int[] cut = new int[2];
        for (int i = 0; i < rows.size(); i++) {
            String[] row = rows.get(i).split("\t", -1);
            int verdict = verdicts.get(i);
            String where = "frame " + row[0] + " to port " + ports.get(i) + " (" + row[1] + ": " + row[3] + ")";
            if (ports.get(i) == 53) {
                assertEquals("eth:ethertype:ip:udp:dns", row[1], where + " stays DNS");
                continue;
            }
            boolean ours = ports.get(i) == SrdPort.DEFAULT;
            if (verdict > 0) {
                accepted[ours ? 0 : 1]++;
                assertEquals(SRDNIC, row[1], where + ": SrdParser accepts it, so must the " + (ours ? "port" : "heuristic") + " dissector");
                assertFalse(SRD_ERRORS.stream().anyMatch(e -> row[2].contains(e.name() + ":")), where + " is valid: " + row[2]);
            } else {
                ParseError error = Ipv4UdpFrame.error(verdict);
                refused.computeIfAbsent(error, e -> new int[2])[ours ? 0 : 1]++;
                if (i < cutExtended.size() && cutExtended.get(i)) { // the raw frames at the end are none
                    // Lengths that agree, but an RDMA packet shorter than its extended header: SrdParser's newest rule.
                    assertEquals(ParseError.BAD_LENGTH, error, where);
                    assertTrue(!ours || row[2].contains("shorter than the"), where + ": the expert names the cut header: " + row[2]);
                    cut[ours ? 0 : 1]++;
                }
                if (ours) {
                    assertEquals(SRDNIC, row[1], where + ": on its port srdnic shows a malformed frame too");
                    assertTrue(row[2].startsWith(error.name() + ":") || row[2].contains(DissectorFields.AGGREGATOR + error.name() + ":"),
                        where + ": SrdParser says " + error + ", the dissector's expert says " + row[2]);
                } else {
                    assertFalse(row[1].contains("srdnic"), where + ": SrdParser refuses it (" + error
                            + "), the heuristic must not claim it");
                }
            }
        }
        System.out.printf("accepted on port %d: %d, by heuristic on %d: %d; refused (port, heuristic): %s%n", SrdPort.DEFAULT,
            accepted[0], OTHER_PORT, accepted[1], refusedSummary(refused));
        assertTrue(accepted[0] > 0 && accepted[1] > 0, "valid frames on both ports");
        assertTrue(cut[0] > 0 && cut[1] > 0, "RDMA packets that cut their extended header on both ports: " + cut[0] + "/" + cut[1]);
        for (ParseError e : SRD_ERRORS) {
            int[] n = refused.getOrDefault(e, new int[2]);
            assertTrue(n[0] > 0 && n[1] > 0, "no " + e + " frame on both ports: " + refusedSummary(refused));
        }
        assertEquals(PLAIN_UDP, rows.get(rows.size() - 1).split("\t")[1], "text on another port stays UDP data");
    }

    @Test
    void shouldClaimByPortOnlyTheConfiguredOne() throws Exception {
        Path capture = dir.resolve("ports.pcap");
        SplittableRandom random = new SplittableRandom(5);
        try (PcapWriter writer = new PcapWriter(capture)) {
            for (int port : new int[] {SrdPort.DEFAULT, 30000}) {
                int srdLength = writeValid(random, anyType(random));
                Ipv4UdpFrame.write(m, SRC_MAC, DST_MAC, SRC_IP, DST_IP, SrdPort.sourcePort(1), port, srdLength, true);
                assertTrue(SrdParser.parse(m, port, MTU) > 0);
                writer.write(m, 0);
            }
        }
        assertEquals(List.of(SRDNIC, SRDNIC), protocols(capture));
        assertEquals(List.of(SRDNIC, PLAIN_UDP), protocols(capture, "--disable-heuristic", "srdnic_udp"));
        assertEquals(List.of(PLAIN_UDP, SRDNIC), protocols(capture, "--disable-heuristic", "srdnic_udp", "-o", "srdnic.udp_port:30000"));
    }

    private List<String> protocols(Path capture, String... options) throws Exception {
        List<String> args = new ArrayList<>(List.of(options));
        args.addAll(List.of("-r", capture.toString(), "-T", "fields", "-e", "frame.protocols"));
        return tshark.run(args.toArray(String[]::new));
    }

    // ---------------------------------------------------------------- frames

    private void load(byte[] frame) {
        m.frameLength(frame.length);
        m.copyFrom(MemorySegment.ofArray(frame), 0, 0, frame.length);
    }

    /** Every data and probe type, for frames written by the codecs. */
    static final int[] VALID_DATA_TYPES = {PacketType.SEND, PacketType.SEND_WITH_IMM, PacketType.RDMA_WRITE, PacketType.RDMA_READ,
        PacketType.PROBE, PacketType.PROBE_REPLY, PacketType.RDMA_WRITE_WITH_IMM, PacketType.READ_RESPONSE, PacketType.ATOMIC_CMP_SWAP,
        PacketType.ATOMIC_FETCH_ADD};

    /** A data or probe type two times in three, else an ACK. */
    private static int anyType(SplittableRandom r) {
        return r.nextInt(3) == 2 ? PacketType.ACK : VALID_DATA_TYPES[r.nextInt(VALID_DATA_TYPES.length)];
    }

    /**
     * A valid SRD packet of {@code type} with random fields at the SRD offset (the rest of the room
     * zeroed): a data or probe packet with its extended header if its type has one, then data; or an
     * ACK with random drop entries. Returns its length.
     */
    private int writeValid(SplittableRandom r, int type) {
        m.room().fill((byte) 0);
        int at = FrameLayout.SRD_OFFSET;
        if (type == PacketType.ACK) {
            int drops = r.nextInt(SrdAck.MAX_DROPS + 1);
            SrdHeader.versionAndType(m, PacketType.ACK);
            SrdHeader.flags(m, r.nextInt(256));
            SrdAck.dropCount(m, drops);
            for (int off = SrdAck.SOURCE_CONTEXT_OFFSET; off < SrdAck.LENGTH; off += 4) {
                m.putIntBE(at + off, r.nextInt());
            }
            for (int i = 0; i < drops; i++) {
                SrdAck.drop(m, i, r.nextInt(), DropReason.BAD_DEST_QP + r.nextInt(DropReason.MAX), r.nextInt(256));
                m.putShortBE(at + SrdAck.DROPS_OFFSET + i * SrdAck.DROP_ENTRY_LENGTH + 6, (short) (r.nextInt(8) == 0 ? r.nextInt() : 0));
            }
            return SrdAck.length(drops);
        }
        int extended = PacketType.extendedHeaderLength(type);
        int payload = !PacketType.isData(type) ? 0 : Math.max(extended, r.nextInt(8) == 0 ? r.nextInt(MTU + 1) : r.nextInt(200));
        SrdHeader.versionAndType(m, type);
        SrdHeader.flags(m, r.nextInt(256)); // every flag, RC's included, and the reserved bits
        SrdHeader.payloadLength(m, payload);
        for (int off = SrdHeader.SOURCE_CONTEXT_OFFSET; off < SrdHeader.LENGTH; off += 4) {
            m.putIntBE(at + off, r.nextInt());
        }
        SrdHeader.sourceQpn(m, r.nextInt(1 << 24));
        SrdHeader.destinationQpn(m, r.nextInt(1 << 24));
        for (int i = extended; i < payload; i++) {
            m.putByte(SrdHeader.PAYLOAD_OFFSET + i, (byte) r.nextInt());
        }
        if (extended == RdmaHeader.LENGTH) {
            RdmaHeader.write(m, r.nextLong(), r.nextInt(), r.nextInt(), r.nextInt());
        } else if (type == PacketType.READ_RESPONSE) {
            ReadResponseHeader.write(m, r.nextInt(), r.nextInt(), r.nextInt(), r.nextBoolean() ? 0 : r.nextInt(256));
        } else if (extended == AtomicHeader.LENGTH) {
            AtomicHeader.write(m, r.nextLong(), r.nextInt(), r.nextLong(), r.nextLong());
        }
        return SrdHeader.LENGTH + payload;
    }

    /** Whether the packet in {@link #m}, {@code srdLength} bytes, is an RDMA one whose agreeing lengths cut its extended header. */
    private boolean cutsItsExtendedHeader(int srdLength) {
        int type = SrdHeader.type(m);
        int payload = SrdHeader.payloadLength(m);
        return SrdHeader.version(m) == SrdHeader.VERSION && PacketType.isData(type) && srdLength == SrdHeader.LENGTH + payload
            && payload <= MTU && payload < PacketType.extendedHeaderLength(type);
    }

    /** Leaves the packet valid one time in three, else breaks one thing SrdParser checks (or anything); returns the new SRD length. */
    private int mutate(int srdLength, SplittableRandom r) {
        int at = FrameLayout.SRD_OFFSET;
        boolean ack = SrdHeader.type(m) == PacketType.ACK;
        return switch (r.nextInt(14)) {
            case 0, 1, 2, 3 -> srdLength;
            case 4 -> {
                m.putByte(at, (byte) r.nextInt(256));                        // version and type
                yield srdLength;
            }
            case 5 -> {
                int undefined = PacketType.MAX + 1 + r.nextInt(PacketType.MAX_TYPE_CODE - PacketType.MAX);
                m.putByte(at, (byte) ((SrdHeader.VERSION << 4) | (r.nextBoolean() ? 0 : undefined)));
                yield srdLength;                                              // an undefined type
            }
            case 12 -> {
                m.putByte(at, (byte) ((SrdHeader.VERSION << 4) | (PacketType.SEND + r.nextInt(PacketType.MAX))));
                yield srdLength;                                              // another defined type: a probe with a payload, ...
            }
            case 13 -> {
                int type = switch (r.nextInt(3)) {
                    case 0 -> PacketType.READ_RESPONSE;
                    case 1 -> PacketType.ATOMIC_CMP_SWAP + r.nextInt(2);
                    default -> VALID_DATA_TYPES[2 + r.nextInt(2)];
                };
                int payload = r.nextInt(PacketType.extendedHeaderLength(type));
                SrdHeader.versionAndType(m, type);                            // an RDMA packet cut inside its extended
                SrdHeader.payloadLength(m, payload);                          // header, lengths consistent
                yield SrdHeader.LENGTH + payload;
            }
            case 6 -> {
                m.putShortBE(at + 2, (short) (m.getShortBE(at + 2) + (r.nextBoolean() ? 1 : -1) * (1 + r.nextInt(3))));
                yield srdLength;                                              // payload length or drop count off by a little
            }
            case 7 -> 1 + r.nextInt(srdLength + 16);                          // UDP length cut or stretched
            case 8 -> {
                if (ack) {
                    int n = SrdAck.MAX_DROPS + 1 + r.nextInt(4);              // more drops than allowed, length consistent
                    SrdAck.dropCount(m, n);
                    for (int i = 0; i < n; i++) {
                        SrdAck.drop(m, i, r.nextInt(), DropReason.RNR);
                    }
                    yield SrdAck.length(n);
                }
                int payload = MTU + 1 + r.nextInt(20);                        // over the MTU, length consistent
                SrdHeader.versionAndType(m, PacketType.SEND);
                SrdHeader.payloadLength(m, payload);
                yield SrdHeader.LENGTH + payload;
            }
            case 9 -> {
                if (ack && SrdAck.dropCount(m) > 0) {
                    int reasonAt = at + SrdAck.DROPS_OFFSET + r.nextInt(SrdAck.dropCount(m)) * SrdAck.DROP_ENTRY_LENGTH + 4;
                    m.putByte(reasonAt, (byte) (r.nextBoolean() ? 0 : DropReason.MAX + 1 + r.nextInt(249)));
                } else if (!ack) {
                    m.putByte(at + (r.nextBoolean() ? SrdHeader.SOURCE_QPN_OFFSET : SrdHeader.DESTINATION_QPN_OFFSET),
                            (byte) (1 + r.nextInt(255)));
                }
                yield srdLength;                                              // a reason or QPN out of range
            }
            default -> {
                m.putByte(at + r.nextInt(srdLength), (byte) r.nextInt(256)); // any byte
                yield srdLength;
            }
        };
    }

    private void writeRaw(byte[] payload, int port, PcapWriter writer, List<Integer> verdicts, List<Integer> ports) {
        m.room().fill((byte) 0);
        m.copyFrom(MemorySegment.ofArray(payload), 0, FrameLayout.SRD_OFFSET, payload.length);
        Ipv4UdpFrame.write(m, SRC_MAC, DST_MAC, SRC_IP, DST_IP, 50000, port, payload.length, true);
        int verdict = SrdParser.parse(m, port, MTU);
        assertTrue(verdict < 0, "the Java parser refuses it too");
        verdicts.add(verdict);
        ports.add(port);
        writer.write(m, 2_000_000_000L);
    }

    // ---------------------------------------------------------------- kinds

    private String kind(int type) {
        // UD is a datagram's: an ACK with FLAG_UNRELIABLE is no UD packet (and, that flag winning, no RC one either).
        boolean unreliable = (SrdHeader.flags(m) & SrdHeader.FLAG_UNRELIABLE) != 0;
        // Probes are SRD's whatever their flags.
        boolean rc = DissectorFields.isRc(m) && (PacketType.isData(type) || type == PacketType.ACK);
        String transport = unreliable && type != PacketType.ACK ? "UD " : DissectorFields.isSrc(m, type) ? "SRC " : rc ? "RC " : "";
        return transport + PacketType.name(type);
    }

    /**
     * The kinds a frame counts for: its type (UD or RC marked), an RC data packet's segment, an
     * atomic's answer, and for ACKs the SACK bits, FLAG_HELD and drop reasons (an RC RNR NAK's timer) it carries.
     */
    private List<String> kindsOf(int type, String kind, boolean answersAtomic) {
        List<String> k = new ArrayList<>(List.of(kind));
        boolean rc = DissectorFields.isRc(m);
        if (rc && PacketType.isData(type)) {
            k.add("segment " + DissectorFields.segment(m));
        }
        if (DissectorFields.isSrc(m, type)) {
            k.add("SRQ " + SrdHeader.srqNumber(m));
        }
        if (answersAtomic) {
            k.add("atomic answer");
        }
        if (rc && type == PacketType.ACK && (SrdHeader.flags(m) & SrdHeader.FLAG_HELD) != 0) {
            k.add("ACK held");
        }
        if ((SrdHeader.flags(m) & SrdHeader.FLAG_RETRANSMISSION) != 0) {
            k.add("retransmission");
        }
        if (DissectorFields.isCm(m, type)) {
            k.add("CM " + CmMessage.typeName(DissectorFields.cm(m).type()));
        }
        if (type == PacketType.READ_RESPONSE && ReadResponseHeader.status(m) != 0) {
            k.add("READ_RESPONSE with status");
        }
        if (type != PacketType.ACK && SrdHeader.payloadLength(m) > PacketType.extendedHeaderLength(type)
            && PacketType.extendedHeaderLength(type) > 0) {
            k.add("RDMA data");
        }
        if (type == PacketType.ACK) {
            for (int w = 0; w < SrdAck.SACK_WORDS; w++) {
                if (SrdAck.sackWord(m, w) != 0) {
                    k.add("ACK with SACK bits");
                    break;
                }
            }
            if (SrdAck.dropCount(m) > 0) {
                k.add("ACK with drops");
            }
            for (int i = 0; i < SrdAck.dropCount(m); i++) {
                k.add("drop " + DropReason.name(SrdAck.dropReason(m, i)));
                if (rc && SrdAck.dropReason(m, i) == DropReason.RNR) {
                    k.add("RNR NAK timer " + SrdAck.dropDetail(m, i));
                }
            }
        }
        return k;
    }

    private static String refusedSummary(Map<ParseError, int[]> refused) {
        StringBuilder s = new StringBuilder("{");
        refused.forEach((e, n) -> s.append(s.length() > 1 ? ", " : "").append(e).append('=').append(n[0]).append('/').append(n[1]));
        return s.append('}').toString();
    }
}
