package io.srdnic.bench;

import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.sim.SimBufferPool;
import io.srdnic.srd.wire.Ipv4UdpFrame;
import io.srdnic.srd.wire.PacketType;
import io.srdnic.srd.wire.SrdAck;
import io.srdnic.srd.wire.SrdHeader;
import io.srdnic.srd.wire.SrdParser;
import io.srdnic.srd.wire.SrdPort;
import java.lang.foreign.Arena;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * SRD codecs on an mbuf: building a data packet (all headers, checksums on or off) and parsing a
 * data packet and an ACK. {@code -prof gc} shows 0 B/op.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Dsrdnic.shim.path=/nonexistent"})
@State(Scope.Thread)
public class SrdCodecBench {
    static final int PORT = SrdPort.DEFAULT;

    @Param({"64", "4096"})
    int payload;

    @Param({"true", "false"})
    boolean udpChecksum;

    Arena arena;
    Mbuf data;
    Mbuf ack;

    @Setup(Level.Trial)
    public void setUp() {
        arena = Arena.ofConfined();
        SimBufferPool pool = new SimBufferPool(arena, 4, 8192);
        MbufBatch batch = new MbufBatch(arena, 2);
        pool.allocate(batch, 2, 0);
        data = new Mbuf().wrap(batch.address(0));
        ack = new Mbuf().wrap(batch.address(1));
        encodeData();
        SrdHeader.versionAndType(ack, PacketType.ACK);
        SrdHeader.flags(ack, 0);
        SrdAck.dropCount(ack, 0);
        for (int w = 0; w < SrdAck.SACK_WORDS; w++) {
            SrdAck.sackWord(ack, w, 0x5555_5555_5555_5555L);
        }
        Ipv4UdpFrame.write(ack, 2, 1, 0x0A000002, 0x0A000001, SrdPort.ENTROPY_BASE, PORT, SrdAck.LENGTH, udpChecksum);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        arena.close();
    }

    @Benchmark
    public int encodeData() {
        Mbuf m = data;
        SrdHeader.versionAndType(m, PacketType.SEND_WITH_IMM);
        SrdHeader.flags(m, 0);
        SrdHeader.payloadLength(m, payload);
        SrdHeader.sourceContext(m, 0x10001);
        SrdHeader.destinationContext(m, 0x20001);
        SrdHeader.epoch(m, 42);
        SrdHeader.psn(m, 123_456);
        SrdHeader.sendBase(m, 123_400);
        SrdHeader.sourceQpn(m, 7);
        SrdHeader.destinationQpn(m, 9);
        SrdHeader.qkey(m, 0x1111);
        SrdHeader.immediate(m, 5);
        SrdHeader.timestamp(m, 999);
        Ipv4UdpFrame.write(m, 1, 2, 0x0A000001, 0x0A000002, SrdPort.ENTROPY_BASE + 3, PORT, SrdHeader.LENGTH + payload, udpChecksum);
        return m.dataLength();
    }

    /**
     * The same frame as {@link #encodeData}, as the SRD sender writes it: the header in six 8-byte
     * stores with its sum computed from the fields, so the UDP checksum reads only the payload.
     */
    @Benchmark
    public int encodeDataSummed() {
        Mbuf m = data;
        long headerSum = SrdHeader.write(m, PacketType.SEND_WITH_IMM, 0, payload, 0x10001, 0x20001, 42, 123_456, 123_400, 7, 9, 0x1111,
            5, 999);
        Ipv4UdpFrame.write(m, 1, 2, 0x0A000001, 0x0A000002, SrdPort.ENTROPY_BASE + 3, PORT, SrdHeader.LENGTH + payload, udpChecksum,
            headerSum, SrdHeader.LENGTH);
        return m.dataLength();
    }

    @Benchmark
    public int parseData() {
        return SrdParser.parse(data, PORT, 4096) + SrdHeader.psn(data);
    }

    @Benchmark
    public long parseAck() {
        return SrdParser.parse(ack, PORT, 4096) + SrdAck.cumulativePsn(ack) + SrdAck.sackWord(ack, 3);
    }
}
