package io.srdnic.rnbd.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Every RNBD codec against bytes a peer might send, the message at the very end of its segment
 * (a read past it throws): each check answers without reading past the received length, and what
 * it accepts reads back inside it; fields written from fuzzed values read back as written.
 */
class RnbdCodecFuzzTest {
    private static final Arena ARENA = Arena.ofShared();

    @FuzzTest(maxDuration = "6s")
    void codecsNeverReadOutsideTheMessageAndRoundTrip(FuzzedDataProvider data) {
        int which = data.consumeInt(0, 5);
        if (data.consumeBoolean()) {
            roundTrip(which, data);
            return;
        }
        byte[] bytes = data.consumeBytes(300);
        MemorySegment s = ARENA.allocate(Math.max(1, bytes.length));
        long at = s.byteSize() - bytes.length;
        MemorySegment.copy(MemorySegment.ofArray(bytes), 0, s, at, bytes.length);
        Wire.type(s, at, bytes.length);
        switch (which) {
            case 0 -> {
                if (SessInfo.check(s, at, bytes.length)) {
                    SessInfo.version(s, at);
                }
            }
            case 1 -> {
                if (SessInfoRsp.check(s, at, bytes.length)) {
                    SessInfoRsp.version(s, at);
                }
            }
            case 2 -> {
                if (Open.check(s, at, bytes.length) == Open.OK) {
                    String name = Open.deviceName(s, at);
                    assertTrue(!name.isEmpty() && name.length() < Rnbd.NAME_MAX, name);
                    assertTrue(Open.accessMode(s, at) <= Rnbd.ACCESS_MIGRATION);
                }
            }
            case 3 -> {
                if (OpenRsp.check(s, at, bytes.length)) {
                    OpenRsp.Geometry g = OpenRsp.geometry(s, at);
                    assertTrue(g.sectors() >= 0 && g.logicalBlockSize() >= Rnbd.SECTOR_SIZE && g.maxHwSectors() >= 1);
                    OpenRsp.deviceId(s, at);
                }
            }
            case 4 -> {
                if (Io.check(s, at, bytes.length)) {
                    Io.deviceId(s, at);
                    Io.sector(s, at);
                    Io.rw(s, at);
                    assertTrue(Io.bytes(s, at) >= 0);
                }
            }
            default -> {
                if (Close.check(s, at, bytes.length)) {
                    Close.deviceId(s, at);
                }
            }
        }
    }

    private static void roundTrip(int which, FuzzedDataProvider data) {
        MemorySegment s = ARENA.allocate(Open.LENGTH);
        switch (which) {
            case 0, 1 -> {
                int v = data.consumeInt(0, 255);
                SessInfo.write(s, 0, v);
                assertTrue(SessInfo.check(s, 0, SessInfo.LENGTH));
                assertEquals(v, SessInfo.version(s, 0));
            }
            case 2 -> {
                String name = data.consumeAsciiString(254).replaceAll("[^\\x20-\\x7e]", "a");
                if (name.isEmpty()) {
                    return;
                }
                int mode = data.consumeInt(0, 2);
                Open.write(s, 0, mode, name);
                assertEquals(Open.OK, Open.check(s, 0, Open.LENGTH));
                assertEquals(name, Open.deviceName(s, 0));
                assertEquals(mode, Open.accessMode(s, 0));
            }
            case 3 -> {
                // A valid reply: its largest IO holds at least one logical block (what check() requires).
                int logicalBlockSize = 512 << data.consumeInt(0, 3);
                OpenRsp.Geometry g = new OpenRsp.Geometry(data.consumeLong(0, Long.MAX_VALUE >> 9),
                    data.consumeInt(logicalBlockSize >> 9, Integer.MAX_VALUE), data.consumeInt(0, Integer.MAX_VALUE),
                    data.consumeInt(0, Integer.MAX_VALUE), data.consumeInt(0, Integer.MAX_VALUE), data.consumeInt(0, 65535),
                    logicalBlockSize, data.consumeInt(0, 255));
                int id = data.consumeInt();
                OpenRsp.write(s, 0, id, g);
                assertTrue(OpenRsp.check(s, 0, OpenRsp.LENGTH));
                assertEquals(g, OpenRsp.geometry(s, 0));
                assertEquals(id, OpenRsp.deviceId(s, 0));
            }
            case 4 -> {
                int id = data.consumeInt();
                long sector = data.consumeLong();
                int rw = data.consumeInt();
                int bytes = data.consumeInt();
                Io.write(s, 0, id, sector, rw, bytes);
                assertTrue(Io.check(s, 0, Io.LENGTH));
                assertEquals(id, Io.deviceId(s, 0));
                assertEquals(sector, Io.sector(s, 0));
                assertEquals(rw, Io.rw(s, 0));
                assertEquals(Integer.toUnsignedLong(bytes), Io.bytes(s, 0));
            }
            default -> {
                int id = data.consumeInt();
                Close.write(s, 0, id);
                assertTrue(Close.check(s, 0, Close.LENGTH));
                assertEquals(id, Close.deviceId(s, 0));
            }
        }
    }
}
