package io.srdnic.srd.fuzz;

import static io.srdnic.srd.fuzz.FuzzFrames.ACK_HEADER;
import static io.srdnic.srd.fuzz.FuzzFrames.PORT;
import static io.srdnic.srd.fuzz.FuzzFrames.SRD;
import static io.srdnic.srd.fuzz.FuzzFrames.s32;
import static io.srdnic.srd.fuzz.FuzzFrames.s64;
import static io.srdnic.srd.fuzz.FuzzFrames.u16;
import static io.srdnic.srd.fuzz.FuzzFrames.u8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.srdnic.pmd.Mbuf;
import io.srdnic.srd.wire.DropReason;
import io.srdnic.srd.wire.Ipv4UdpFrame;
import io.srdnic.srd.wire.PacketType;
import io.srdnic.srd.wire.ParseError;
import io.srdnic.srd.wire.SrdAck;
import io.srdnic.srd.wire.SrdHeader;
import org.junit.jupiter.api.AfterAll;

/**
 * Write, then parse: an ACK written with {@link SrdAck}'s setters and {@link Ipv4UdpFrame#write}
 * from fuzzed values — 0..16 drop entries (an invalid reason sometimes), SACK words, PSNs, epochs,
 * timestamp — over a room of fuzzed garbage, parses back as an ACK with every field as written at
 * the offsets docs/wire-format.md gives (the duplicate PSN after the trigger PSN zero unless the
 * duplicate flag reports one, each drop entry's low 24 bits zero); an invalid drop reason is
 * refused as OUT_OF_RANGE.
 */
class SrdAckRoundTripFuzzTest {
    private static final FuzzRun RUN = new FuzzRun("SrdAckRoundTripFuzzTest");
    private static final Mbuf M = FuzzFrames.oneMbuf();

    @AfterAll
    static void report() {
        RUN.report();
    }

    @FuzzTest(maxDuration = "6s")
    void whatIsWrittenParsesBackIdentically(FuzzedDataProvider data) {
        RUN.count();
        int drops = data.consumeInt(0, SrdAck.MAX_DROPS);
        int srcContext = data.consumeInt();
        int dstContext = data.consumeInt();
        int epoch = data.consumeInt();
        int cumulative = data.consumeInt();
        int echoedEpoch = data.consumeInt();
        int trigger = data.consumeInt();
        long echoedTimestamp = data.consumeLong();
        boolean duplicate = data.consumeBoolean();
        int duplicatePsn = data.consumeInt();
        long[] sack = new long[SrdAck.SACK_WORDS];
        for (int w = 0; w < sack.length; w++) {
            sack[w] = data.consumeLong();
        }
        int[] dropPsn = new int[drops];
        int[] dropReason = new int[drops];
        boolean anyReason = data.consumeInt(0, 7) == 0;
        boolean invalid = false;
        for (int i = 0; i < drops; i++) {
            dropPsn[i] = data.consumeInt();
            dropReason[i] = anyReason ? data.consumeInt(0, 255) : data.consumeInt(DropReason.BAD_DEST_QP, DropReason.MAX);
            invalid |= !DropReason.isValid(dropReason[i]);
        }
        long srcMac = data.consumeLong() & 0xFFFF_FFFF_FFFFL;
        long dstMac = data.consumeLong() & 0xFFFF_FFFF_FFFFL;
        int srcIp = data.consumeInt();
        int dstIp = data.consumeInt();
        int srcPort = data.consumeInt(0, 0xFFFF);
        boolean udpChecksum = data.consumeBoolean();
        byte garbage = data.consumeByte();

        FuzzFrames.restore(M);
        M.room().fill(garbage);
        SrdHeader.versionAndType(M, PacketType.ACK);
        SrdHeader.flags(M, 0);
        SrdAck.dropCount(M, drops);
        SrdAck.sourceContext(M, srcContext);
        SrdAck.destinationContext(M, dstContext);
        SrdAck.epoch(M, epoch);
        SrdAck.cumulativePsn(M, cumulative);
        SrdAck.echoedEpoch(M, echoedEpoch);
        SrdAck.triggerPsn(M, trigger);
        if (duplicate) {
            SrdAck.duplicate(M, duplicatePsn);
        }
        SrdAck.echoedTimestamp(M, echoedTimestamp);
        for (int w = 0; w < sack.length; w++) {
            SrdAck.sackWord(M, w, sack[w]);
        }
        for (int i = 0; i < drops; i++) {
            SrdAck.drop(M, i, dropPsn[i], dropReason[i]);
        }
        int srdLength = SrdAck.length(drops);
        Ipv4UdpFrame.write(M, srcMac, dstMac, srcIp, dstIp, srcPort, PORT, srdLength, udpChecksum);

        int length = M.dataLength();
        assertEquals(SRD + ACK_HEADER + 8 * drops, length, "frame length: headers + 72 + 8 per drop");
        byte[] f = FuzzFrames.bytes(M, length);
        FuzzFrames.load(M, f, length);                 // reads past the frame now throw
        int expected = invalid ? FuzzFrames.code(ParseError.OUT_OF_RANGE) : PacketType.ACK;
        FuzzFrames.checkParsedFrame(M, f, length, expected, srcMac, dstMac, srcIp, dstIp, srcPort, srdLength, udpChecksum);

        assertEquals(0x10 | PacketType.ACK, u8(f, SRD));
        assertEquals(PacketType.ACK, SrdHeader.type(M));
        assertEquals(duplicate ? SrdHeader.FLAG_DUPLICATE : 0, u8(f, SRD + 1), "flags");
        assertEquals(duplicate, SrdAck.hasDuplicate(M));
        assertEquals(drops, SrdAck.dropCount(M));
        assertEquals(drops, u16(f, SRD + 2));
        assertEquals(srcContext, SrdAck.sourceContext(M));
        assertEquals(srcContext, s32(f, SRD + 4));
        assertEquals(dstContext, SrdAck.destinationContext(M));
        assertEquals(dstContext, s32(f, SRD + 8));
        assertEquals(epoch, SrdAck.epoch(M));
        assertEquals(epoch, s32(f, SRD + 12));
        assertEquals(cumulative, SrdAck.cumulativePsn(M));
        assertEquals(cumulative, s32(f, SRD + 16));
        assertEquals(echoedEpoch, SrdAck.echoedEpoch(M));
        assertEquals(echoedEpoch, s32(f, SRD + 20));
        assertEquals(trigger, SrdAck.triggerPsn(M));
        assertEquals(trigger, s32(f, SRD + 24));
        assertEquals(duplicate ? duplicatePsn : 0, s32(f, SRD + 28), "duplicate PSN after the trigger PSN, 0 unless flagged");
        assertEquals(duplicate ? duplicatePsn : 0, SrdAck.duplicatePsn(M));
        assertEquals(echoedTimestamp, SrdAck.echoedTimestamp(M));
        assertEquals(echoedTimestamp, s64(f, SRD + 32));
        for (int w = 0; w < sack.length; w++) {
            assertEquals(sack[w], SrdAck.sackWord(M, w));
            assertEquals(sack[w], s64(f, SRD + 40 + 8 * w));
        }
        for (int i = 0; i < drops; i++) {
            int at = SRD + ACK_HEADER + 8 * i;
            assertEquals(dropPsn[i], SrdAck.dropPsn(M, i));
            assertEquals(dropPsn[i], s32(f, at));
            assertEquals(dropReason[i], SrdAck.dropReason(M, i));
            assertEquals(dropReason[i], u8(f, at + 4));
            assertTrue(u8(f, at + 5) == 0 && u16(f, at + 6) == 0, "drop entry's reserved 24 bits");
        }
        FuzzFrames.restore(M);
    }
}
