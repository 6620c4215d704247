package io.srdnic.verbs.cm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/** The CM message codec: what it writes parses back; each rule of the validation table refuses what it names. */
class CmMessageTest {
    private final Arena arena = Arena.ofAuto();
    private final MemorySegment segment = arena.allocate(CmMessage.MAX_LENGTH + 8);
    private final CmMessage m = new CmMessage().wrap(segment, 0);

    private int req(int privateLength) {
        int length = m.write(CmMessage.REQ, 0x1234, 0, 0x0106_1234L, privateLength);
        m.connection(0xABCDEF, 0x123456, 4, 2, 7, 6, 5).sender(0x02_00_00_00_00_01L, 0x0A00_0001, 4791);
        return length;
    }

    @Test
    void shouldParseBackWhatItWrites() {
        int length = req(56);
        assertEquals(CmMessage.REQ, m.parse(length));
        assertEquals(0xABCDEF, m.qpn());
        assertEquals(0x123456, m.startingPsn());
        assertEquals(4, m.responderResources());
        assertEquals(2, m.initiatorDepth());
        assertEquals(7, m.retryCount());
        assertEquals(6, m.rnrRetryCount());
        assertEquals(4096, CmMessage.mtuBytes(m.pathMtuCode()));
        assertEquals(0x02_00_00_00_00_01L, m.mac());
        assertEquals(0x0A00_0001, m.ip());
        assertEquals(4791, m.udpPort());
        assertEquals(0x0106_1234L, m.serviceId());
        assertEquals(CmMessage.TRANSPORT_RC, m.transport());
        m.transport(CmMessage.TRANSPORT_XRC);
        assertEquals(CmMessage.REQ, m.parse(length));
        assertEquals(CmMessage.TRANSPORT_XRC, m.transport());
        assertEquals(0xABCDEF, m.qpn(), "the transport byte is not part of the QPN");
    }

    @Test
    void shouldRefuseEachMalformationAsTheTableSays() {
        assertEquals(CmMessage.TRUNCATED, m.parse(47));
        int length = req(10);
        assertEquals(CmMessage.TRUNCATED, m.parse(length - 1), "private data cut short");
        assertEquals(CmMessage.BAD_LENGTH, m.parse(length + 1), "bytes past the private data");
        length = req(93);
        assertEquals(CmMessage.BAD_LENGTH, m.parse(length), "over the REQ's 92 bytes");
        length = req(0);
        segment.set(ValueLayout.JAVA_BYTE, 0, (byte) 2);
        assertEquals(CmMessage.WRONG_VERSION, m.parse(length));
        req(0);
        segment.set(ValueLayout.JAVA_BYTE, 1, (byte) 8);
        assertEquals(CmMessage.UNKNOWN_TYPE, m.parse(length));
        req(0);
        segment.set(ValueLayout.JAVA_BYTE, 24, (byte) 1);
        assertEquals(CmMessage.NONZERO_RESERVED, m.parse(length), "the byte above the PSN");
        req(0);
        m.transport(2);
        assertEquals(CmMessage.OUT_OF_RANGE, m.parse(length), "a transport neither RC nor XRC");
        req(0);
        m.rejectReason(3);
        assertEquals(CmMessage.NONZERO_RESERVED, m.parse(length), "a reason outside a REJ");
        req(0);
        segment.set(ValueLayout.JAVA_BYTE, 30, (byte) 0x80);
        assertEquals(CmMessage.OUT_OF_RANGE, m.parse(length), "retry count 8");
        req(0);
        segment.set(ValueLayout.JAVA_BYTE, 31, (byte) 6);
        assertEquals(CmMessage.OUT_OF_RANGE, m.parse(length), "path MTU code 6");
        length = m.write(CmMessage.RTU, 5, 0, 1, 0);
        assertEquals(CmMessage.OUT_OF_RANGE, m.parse(length), "an RTU names the receiver's id");
        length = m.write(CmMessage.DREQ, 5, 6, 1, 0);
        m.connection(1, 0, 0, 0, 0, 0, 0);
        assertEquals(CmMessage.NONZERO_RESERVED, m.parse(length), "a QPN in a DREQ");
        m.connection(0, 0, 0, 0, 0, 0, 0).transport(CmMessage.TRANSPORT_XRC);
        assertEquals(CmMessage.NONZERO_RESERVED, m.parse(length), "a transport in a DREQ");
        length = m.write(CmMessage.REJ, 5, 6, 1, 148);
        m.rejectReason(8);
        assertEquals(CmMessage.REJ, m.parse(length));
    }
}
