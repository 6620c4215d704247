package io.srdnic.verbs.cm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.srdnic.srd.fuzz.FuzzRun;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HexFormat;
import org.junit.jupiter.api.AfterAll;

/**
 * {@link CmMessage#parse} against the spec, two ways:
 * <ul>
 * <li>any bytes, raw or a plausible header with fuzzed fields: the answer equals the reference
 * parser below, written from the validation table of docs/wire-format.md, and nothing past the
 * received length is read (the message sits at the very end of its segment: a read past it throws);</li>
 * <li>a message written with fuzzed fields parses back as its type with every field as written.</li>
 * </ul>
 */
class CmMessageFuzzTest {
    private static final FuzzRun RUN = new FuzzRun("CmMessageFuzzTest");
    private static final Arena ARENA = Arena.ofShared();
    private static final CmMessage MESSAGE = new CmMessage();

    @AfterAll
    static void report() {
        RUN.report();
    }

    @FuzzTest(maxDuration = "6s")
    void parseAnswersLikeTheSpecAndWritesParseBack(FuzzedDataProvider data) {
        RUN.count();
        if (data.consumeBoolean()) {
            writeThenParse(data);
        } else {
            parseLikeTheSpec(data);
        }
    }

    private static void parseLikeTheSpec(FuzzedDataProvider data) {
        byte[] bytes;
        if (data.consumeBoolean()) {
            bytes = data.consumeBytes(CmMessage.MAX_LENGTH + 8);
        } else {
            int privateLength = data.consumeInt(0, 230);
            bytes = new byte[Math.max(0, CmMessage.HEADER_LENGTH + privateLength + data.consumeInt(-3, 3))];
            byte[] header = data.consumeBytes(CmMessage.HEADER_LENGTH);
            System.arraycopy(header, 0, bytes, 0, Math.min(header.length, bytes.length));
            if (bytes.length >= 4) {
                bytes[0] = (byte) (data.consumeInt(0, 9) == 0 ? data.consumeInt() : CmMessage.VERSION);
                bytes[1] = (byte) data.consumeInt(0, 8);
                bytes[2] = (byte) (privateLength >>> 8);
                bytes[3] = (byte) privateLength;
            }
            if (bytes.length >= CmMessage.HEADER_LENGTH && data.consumeBoolean()) {
                for (int offset : new int[] {20, 24, 32, 33, 46, 47}) { // reserved bytes and the reject reason mostly zero
                    bytes[offset] = data.consumeInt(0, 7) == 0 ? (byte) data.consumeInt() : 0;
                }
            }
        }
        MemorySegment segment = ARENA.allocate(Math.max(1, bytes.length) + 64);
        long offset = segment.byteSize() - bytes.length; // the message ends where the segment does
        MemorySegment.copy(MemorySegment.ofArray(bytes), 0, segment, offset, bytes.length);
        int answer = MESSAGE.wrap(segment, offset).parse(bytes.length);
        assertEquals(reference(bytes), answer, () -> "for " + HexFormat.of().formatHex(bytes));
    }

    /** The validation table of docs/wire-format.md ("Connection manager messages"), in its order. */
    private static int reference(byte[] b) {
        if (b.length < 48) {
            return CmMessage.TRUNCATED;
        }
        if ((b[0] & 0xFF) != 1) {
            return CmMessage.WRONG_VERSION;
        }
        int type = b[1] & 0xFF;
        int[] limits = {92, 196, 224, 148, 220, 224, 222};
        if (type < 1 || type > 7) {
            return CmMessage.UNKNOWN_TYPE;
        }
        int privateLength = (b[2] & 0xFF) << 8 | (b[3] & 0xFF);
        if (privateLength > limits[type - 1]) {
            return CmMessage.BAD_LENGTH;
        }
        if (48 + privateLength > b.length) {
            return CmMessage.TRUNCATED;
        }
        if (48 + privateLength != b.length) {
            return CmMessage.BAD_LENGTH;
        }
        if (b[24] != 0 || b[32] != 0 || b[33] != 0) {
            return CmMessage.NONZERO_RESERVED;
        }
        boolean connecting = type == 1 || type == 2;
        if (!connecting) {
            for (int i = 20; i < 32; i++) {
                if (b[i] != 0) {
                    return CmMessage.NONZERO_RESERVED;
                }
            }
        }
        if (type != 4 && (b[46] != 0 || b[47] != 0)) {
            return CmMessage.NONZERO_RESERVED;
        }
        boolean noLocal = b[4] == 0 && b[5] == 0 && b[6] == 0 && b[7] == 0;
        boolean noRemote = b[8] == 0 && b[9] == 0 && b[10] == 0 && b[11] == 0;
        if (noLocal || (type == 1) != noRemote) {
            return CmMessage.OUT_OF_RANGE;
        }
        if ((b[30] & 0xF0) > 0x70 || (b[30] & 0x0F) > 7) {
            return CmMessage.OUT_OF_RANGE;
        }
        int mtu = b[31] & 0xFF;
        if (connecting && (mtu < 1 || mtu > 5 || (b[20] & 0xFF) > 1)) {
            return CmMessage.OUT_OF_RANGE;
        }
        return type;
    }

    private static void writeThenParse(FuzzedDataProvider data) {
        int type = data.consumeInt(CmMessage.REQ, CmMessage.MRA);
        int privateLength = data.consumeInt(0, CmMessage.privateDataLimit(type));
        int local = data.consumeInt() | 1;
        int remote = type == CmMessage.REQ ? 0 : data.consumeInt() | 2;
        long service = data.consumeLong();
        long mac = data.consumeLong() & 0xFFFF_FFFF_FFFFL;
        int ip = data.consumeInt();
        int port = data.consumeInt(0, 0xFFFF);
        byte[] privateData = new byte[privateLength];
        byte[] given = data.consumeBytes(privateLength);
        System.arraycopy(given, 0, privateData, 0, given.length);
        MemorySegment segment = ARENA.allocate(CmMessage.MAX_LENGTH);
        MESSAGE.wrap(segment, 0);
        int length = MESSAGE.write(type, local, remote, service, privateLength);
        MESSAGE.sender(mac, ip, port).privateData(MemorySegment.ofArray(privateData), 0, privateLength);
        int qpn = data.consumeInt() & 0xFF_FFFF;
        int psn = data.consumeInt() & 0xFF_FFFF;
        int resources = data.consumeInt(0, 255);
        int depth = data.consumeInt(0, 255);
        int retry = data.consumeInt(0, 7);
        int rnr = data.consumeInt(0, 7);
        int mtu = data.consumeInt(1, 5);
        int reason = data.consumeInt(1, 0xFFFF);
        int transport = data.consumeInt(CmMessage.TRANSPORT_RC, CmMessage.TRANSPORT_XRC);
        if (type == CmMessage.REQ || type == CmMessage.REP) {
            MESSAGE.connection(qpn, psn, resources, depth, retry, rnr, mtu).transport(transport);
        }
        if (type == CmMessage.REJ) {
            MESSAGE.rejectReason(reason);
        }
        CmMessage read = new CmMessage().wrap(segment.asSlice(0, length), 0);
        assertEquals(type, read.parse(length));
        assertEquals(local, read.localCommId());
        assertEquals(remote, read.remoteCommId());
        assertEquals(service, read.serviceId());
        assertEquals(mac, read.mac());
        assertEquals(ip, read.ip());
        assertEquals(port, read.udpPort());
        assertEquals(privateLength, read.privateDataLength());
        assertEquals(-1, MemorySegment.ofArray(privateData).mismatch(read.buffer().asSlice(read.privateDataOffset(), privateLength)));
        boolean connecting = type == CmMessage.REQ || type == CmMessage.REP;
        assertEquals(connecting ? qpn : 0, read.qpn());
        assertEquals(connecting ? psn : 0, read.startingPsn());
        assertEquals(connecting ? resources : 0, read.responderResources());
        assertEquals(connecting ? depth : 0, read.initiatorDepth());
        assertEquals(connecting ? retry : 0, read.retryCount());
        assertEquals(connecting ? rnr : 0, read.rnrRetryCount());
        assertEquals(connecting ? mtu : 0, read.pathMtuCode());
        assertEquals(connecting ? transport : 0, read.transport());
        assertEquals(type == CmMessage.REJ ? reason : 0, read.rejectReason());
    }
}
