package io.srdnic.rnbd.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/** Each message's layout (Linux's offsets, little-endian) and what its check refuses. */
class RnbdCodecTest {
    private final MemorySegment s = Arena.ofAuto().allocate(512);

    @Test
    void shouldLayOutSessInfo() {
        SessInfo.write(s, 0, 2);
        assertEquals(36, SessInfo.LENGTH);
        assertEquals(Rnbd.MSG_SESS_INFO, Wire.type(s, 0, 36));
        assertEquals(2, s.get(ValueLayout.JAVA_BYTE, 4));
        assertTrue(SessInfo.check(s, 0, 36));
        assertFalse(SessInfo.check(s, 0, 35));
        assertEquals(-1, Wire.type(s, 0, 3));
    }

    @Test
    void shouldLayOutSessInfoRsp() {
        SessInfo.write(s, 0, 2);
        assertFalse(SessInfoRsp.check(s, 0, 36), "a SESS_INFO is no response");
        SessInfoRsp.write(s, 0, 2);
        assertTrue(SessInfoRsp.check(s, 0, 36));
        assertEquals(2, SessInfoRsp.version(s, 0));
        assertEquals(-1, Wire.type(s, 0, 3));
    }

    @Test
    void shouldLayOutOpen() {
        Open.write(s, 0, Rnbd.ACCESS_MIGRATION, "disks/a.img");
        assertEquals(264, Open.LENGTH);
        assertEquals(Open.OK, Open.check(s, 0, Open.LENGTH));
        assertEquals(Rnbd.ACCESS_MIGRATION, Open.accessMode(s, 0));
        assertEquals("disks/a.img", Open.deviceName(s, 0));
        assertEquals('d', s.get(ValueLayout.JAVA_BYTE, 6));
        assertEquals(Open.SHORT, Open.check(s, 0, Open.LENGTH - 1));
    }

    @Test
    void shouldRefuseAnOpenWithABadModeNameOrType() {
        Open.write(s, 0, Rnbd.ACCESS_MIGRATION, "disks/a.img");
        s.set(ValueLayout.JAVA_BYTE, 4, (byte) 3);
        assertEquals(Open.BAD_MODE, Open.check(s, 0, Open.LENGTH));
        Open.write(s, 0, Rnbd.ACCESS_RO, "x");
        s.asSlice(6, 255).fill((byte) 'a');
        assertEquals(Open.BAD_NAME, Open.check(s, 0, Open.LENGTH), "no NUL in the field");
        Open.write(s, 0, Rnbd.ACCESS_RO, "x");
        s.set(ValueLayout.JAVA_BYTE, 6, (byte) 0);
        assertEquals(Open.BAD_NAME, Open.check(s, 0, Open.LENGTH), "empty");
        Open.write(s, 0, Rnbd.ACCESS_RO, "x");
        s.set(ValueLayout.JAVA_BYTE, 6, (byte) 7);
        assertEquals(Open.BAD_NAME, Open.check(s, 0, Open.LENGTH), "a control byte");
        Close.write(s, 0, 1);
        assertEquals(Open.BAD_TYPE, Open.check(s, 0, Open.LENGTH));
        assertThrows(IllegalArgumentException.class, () -> Open.write(s, 0, 0, "a".repeat(255)));
    }

    @Test
    void shouldLayOutOpenRsp() {
        OpenRsp.Geometry g = new OpenRsp.Geometry(1L << 33, 248, 1 << 21, 1 << 21, 512, 4096, 512, Rnbd.CACHE_FUA);
        OpenRsp.write(s, 0, 7, g);
        assertEquals(56, OpenRsp.LENGTH);
        assertTrue(OpenRsp.check(s, 0, OpenRsp.LENGTH));
        assertEquals(7, OpenRsp.deviceId(s, 0));
        assertEquals(g, OpenRsp.geometry(s, 0));
        assertEquals(1L << 33, s.get(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 8));
        assertFalse(OpenRsp.check(s, 0, OpenRsp.LENGTH - 1));
    }

    @Test
    void shouldRefuseAnOpenRspWithImpossibleGeometry() {
        OpenRsp.write(s, 0, 7, new OpenRsp.Geometry(1, 248, 0, 0, 512, 4096, 768, 0));
        assertFalse(OpenRsp.check(s, 0, OpenRsp.LENGTH), "a logical block of 768");
        OpenRsp.write(s, 0, 7, new OpenRsp.Geometry(-1, 248, 0, 0, 512, 4096, 512, 0));
        assertFalse(OpenRsp.check(s, 0, OpenRsp.LENGTH), "more sectors than bytes can say");
        OpenRsp.write(s, 0, 7, new OpenRsp.Geometry(1, 0, 0, 0, 512, 4096, 512, 0));
        assertFalse(OpenRsp.check(s, 0, OpenRsp.LENGTH), "no sector per IO");
    }

    @Test
    void shouldLayOutIo() {
        Io.write(s, 0, 3, 0x1_0000_0001L, Rnbd.OP_WRITE | Rnbd.F_FUA, 0x8000_0000);
        assertTrue(Io.check(s, 0, Io.LENGTH));
        assertFalse(Io.check(s, 0, Io.LENGTH - 1));
        assertEquals(3, Io.deviceId(s, 0));
        assertEquals(0x1_0000_0001L, Io.sector(s, 0));
        assertEquals(Rnbd.OP_WRITE | Rnbd.F_FUA, Io.rw(s, 0));
        assertEquals(0x201, Io.rw(s, 0));
        assertEquals(0x8000_0000L, Io.bytes(s, 0), "bi_size is unsigned");
    }

    @Test
    void shouldLayOutClose() {
        Close.write(s, 0, 9);
        assertTrue(Close.check(s, 0, Close.LENGTH));
        assertFalse(Io.check(s, 0, Io.LENGTH));
        assertEquals(9, Close.deviceId(s, 0));
    }
}
