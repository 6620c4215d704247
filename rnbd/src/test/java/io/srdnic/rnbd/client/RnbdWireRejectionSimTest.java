package io.srdnic.rnbd.client;

import static io.srdnic.rnbd.client.RnbdSim.MS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.rnbd.protocol.Close;
import io.srdnic.rnbd.protocol.Io;
import io.srdnic.rnbd.protocol.Open;
import io.srdnic.rnbd.protocol.OpenRsp;
import io.srdnic.rnbd.protocol.Rnbd;
import io.srdnic.rnbd.protocol.RnbdErrno;
import io.srdnic.rnbd.protocol.SessInfo;
import io.srdnic.rnbd.protocol.SessInfoRsp;
import io.srdnic.rnbd.server.ExportDirectory;
import io.srdnic.rtrs.client.PathAddress;
import io.srdnic.rtrs.client.Permit;
import io.srdnic.rtrs.client.RtrsClient;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A peer that sends what it likes: raw RTRS requests carrying hand-made RNBD messages. Every
 * device id, sector, length, op and flag from the wire is checked; each refusal has its errno and
 * leaves the session working.
 */
class RnbdWireRejectionSimTest {
    private final MemorySegment header = Arena.ofAuto().allocate(Open.LENGTH);

    private RtrsClient raw(RnbdSim sim) {
        RtrsClient c = RtrsClient.open(RnbdSim.clientConfig("raw"), List.of(new PathAddress(sim.clientLinks.get(0),
                sim.serverLinks.get(0).ip())));
        assertTrue(sim.run(() -> {
            c.poll();
            return c.connected();
        }, 3000 * MS));
        return c;
    }

    @Test
    void shouldRefuseEveryBadFieldWithItsErrno() throws Exception {
        try (RnbdSim sim = new RnbdSim(21, 1, new ExportDirectory(null).memory("m", 64 * 512))) {
            RtrsClient c = raw(sim);
            RnbdSim driven = sim;
            Io.write(header, 0, 0, 0, Rnbd.OP_READ, 512);
            assertEquals(RnbdErrno.ENXIO, sendPolled(driven, c, true, Io.LENGTH, 512), "IO before SESS_INFO: no device");
            Open.write(header, 0, Rnbd.ACCESS_RW, "m");
            assertEquals(RnbdErrno.EPROTONOSUPPORT, sendPolled(driven, c, true, Open.LENGTH, OpenRsp.LENGTH), "OPEN before SESS_INFO");
            SessInfo.write(header, 0, 3);
            assertEquals(RnbdErrno.EPROTONOSUPPORT, sendPolled(driven, c, true, SessInfo.LENGTH, SessInfoRsp.LENGTH), "major version 3");
            SessInfo.write(header, 0, Rnbd.VERSION_MAJOR);
            assertEquals(RnbdErrno.EINVAL, sendPolled(driven, c, false, SessInfo.LENGTH, 0), "SESS_INFO must be a read");
            assertEquals(RnbdErrno.EINVAL, sendPolled(driven, c, true, 3, SessInfoRsp.LENGTH), "shorter than a header");
            assertEquals(0, sendPolled(driven, c, true, SessInfo.LENGTH, SessInfoRsp.LENGTH));
            Open.write(header, 0, Rnbd.ACCESS_RW, "m");
            header.set(ValueLayout.JAVA_BYTE, 4, (byte) 3);
            assertEquals(RnbdErrno.EINVAL, sendPolled(driven, c, true, Open.LENGTH, OpenRsp.LENGTH), "access mode 3");
            Open.write(header, 0, Rnbd.ACCESS_RW, "m");
            assertEquals(RnbdErrno.EINVAL, sendPolled(driven, c, true, Open.LENGTH - 1, OpenRsp.LENGTH), "short OPEN");
            assertEquals(RnbdErrno.EINVAL, sendPolled(driven, c, true, Open.LENGTH, 8), "no room for the OPEN_RSP");
            assertEquals(0, sendPolled(driven, c, true, Open.LENGTH, OpenRsp.LENGTH), "device 0 open");
            assertEquals(RnbdErrno.ENXIO, ioPolled(driven, c, 1, 0, Rnbd.OP_READ, 512, true, 512), "unknown device id");
            assertEquals(RnbdErrno.ENXIO, ioPolled(driven, c, -1, 0, Rnbd.OP_READ, 512, true, 512), "negative device id");
            assertEquals(RnbdErrno.EINVAL, ioPolled(driven, c, 0, 64, Rnbd.OP_READ, 512, true, 512), "sector past the end");
            assertEquals(RnbdErrno.EINVAL, ioPolled(driven, c, 0, 63, Rnbd.OP_READ, 1024, true, 1024), "range past the end");
            assertEquals(RnbdErrno.EINVAL, ioPolled(driven, c, 0, -1, Rnbd.OP_READ, 512, true, 512), "a u64 sector past 2^63");
            assertEquals(RnbdErrno.EINVAL, ioPolled(driven, c, 0, 0, Rnbd.OP_READ, 1024, true, 512), "bi_size beyond the read's buffer");
            assertEquals(RnbdErrno.EINVAL, ioPolled(driven, c, 0, 0, Rnbd.OP_READ, 0, true, 512), "empty read");
            assertEquals(RnbdErrno.EINVAL, ioPolled(driven, c, 0, 0, Rnbd.OP_READ, 100, true, 100), "not whole sectors");
            assertEquals(RnbdErrno.EINVAL, ioPolled(driven, c, 0, 0, Rnbd.OP_WRITE, 1024, false, 512), "bi_size is not the data sent");
            assertEquals(RnbdErrno.EINVAL, ioPolled(driven, c, 0, 0, Rnbd.OP_WRITE, 512, true, 512), "a write sent as a read");
            assertEquals(RnbdErrno.EINVAL, ioPolled(driven, c, 0, 0, Rnbd.OP_FLUSH, 512, false, 0), "a flush with a length");
            assertEquals(RnbdErrno.EINVAL, ioPolled(driven, c, 0, 0, Rnbd.OP_DISCARD, 512, false, 512), "a discard with data");
            assertEquals(RnbdErrno.EINVAL, ioPolled(driven, c, 0, 0, Rnbd.OP_READ | 1 << 20, 512, true, 512), "an unknown flag");
            assertEquals(RnbdErrno.EOPNOTSUPP, ioPolled(driven, c, 0, 0, Rnbd.OP_SECURE_ERASE, 512, false, 0), "secure erase");
            assertEquals(RnbdErrno.EOPNOTSUPP, ioPolled(driven, c, 0, 0, 77, 512, false, 0), "an unknown op");
            header.set(ValueLayout.JAVA_SHORT_UNALIGNED, 0, (short) 99);
            assertEquals(RnbdErrno.EINVAL, sendPolled(driven, c, false, Io.LENGTH, 0), "an unknown message type");
            Close.write(header, 0, 5);
            assertEquals(RnbdErrno.ENXIO, sendPolled(driven, c, false, Close.LENGTH, 0), "CLOSE of an unknown id");
            assertEquals(0, ioPolled(driven, c, 0, 63, Rnbd.OP_WRITE | Rnbd.F_FUA | Rnbd.F_PREFLUSH, 512, false, 512), "still serving");
            assertEquals(0, ioPolled(driven, c, 0, 0, Rnbd.OP_FLUSH | Rnbd.F_PREFLUSH, 0, false, 0));
            assertEquals(0, ioPolled(driven, c, 0, 0, Rnbd.OP_WRITE_ZEROES | Rnbd.F_NOUNMAP, 64 * 512, false, 0));
            Close.write(header, 0, 0);
            assertEquals(0, sendPolled(driven, c, false, Close.LENGTH, 0));
            assertEquals(RnbdErrno.ENXIO, ioPolled(driven, c, 0, 0, Rnbd.OP_READ, 512, true, 512), "closed");
            assertTrue(sim.rnbd.refused() >= 25, "counted: " + sim.rnbd.refused());
            c.close();
        }
    }

    private int sendPolled(RnbdSim sim, RtrsClient c, boolean read, int length, int dataLength) {
        Permit p = c.permit();
        int[] answer = {-1};
        int rc = read ? c.read(p, header, 0, length, dataLength, (q, e) -> answer[0] = e)
            : c.write(p, header, 0, length, dataLength, (q, e) -> answer[0] = e);
        assertEquals(0, rc);
        assertTrue(sim.run(() -> {
            c.poll();
            return answer[0] >= 0;
        }, 1000 * MS));
        c.release(p);
        return answer[0];
    }

    private int ioPolled(RnbdSim sim, RtrsClient c, int id, long sector, int rw, int bytes, boolean read, int dataLength) {
        Io.write(header, 0, id, sector, rw, bytes);
        return sendPolled(sim, c, read, Io.LENGTH, dataLength);
    }
}
