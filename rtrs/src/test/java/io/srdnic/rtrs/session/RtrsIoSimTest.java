package io.srdnic.rtrs.session;

import static io.srdnic.rtrs.session.RtrsSim.MS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.rtrs.client.PathState;
import io.srdnic.rtrs.client.Permit;
import io.srdnic.rtrs.client.RtrsClient;
import io.srdnic.rtrs.protocol.Errno;
import io.srdnic.rtrs.server.ServerIo;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import org.junit.jupiter.api.Test;

/** A session on the simulator: establishment per the seed's steps, then write and read IO through server chunks. */
class RtrsIoSimTest {
    private final MemorySegment header = Arena.ofAuto().allocate(MemoryDisk.HEADER);
    private int done;
    private int lastErrno = -1;

    private void header(long offset, long tag) {
        header.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, offset);
        header.set(ValueLayout.JAVA_LONG_UNALIGNED, 8, tag);
    }

    @Test
    void shouldWriteThenReadBackOverTwoPathsThroughTheServersChunks() {
        try (RtrsSim sim = new RtrsSim(1, 2, RtrsSim.smallServer(), 1 << 20)) {
            RtrsClient c = sim.connect(RtrsSim.smallClient());
            assertEquals(PathState.CONNECTED, c.state(0));
            assertEquals(PathState.CONNECTED, c.state(1));
            assertEquals(16, c.queueDepth(), "the server's queue depth, from CON_RSP");
            assertEquals(12 * 1024, c.maxIoSize(), "a chunk less the 4 KiB header room");
            assertEquals(2, sim.server.connectedPaths());
            assertEquals("sim-client", sim.server.sessionName(0), "INFO_REQ carried the name");

            Permit p = c.permit();
            assertNotNull(p);
            for (int i = 0; i < 12 * 1024; i++) {
                p.data().set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + 7));
            }
            header(4096, 1);
            assertEquals(0, c.write(p, header, 0, MemoryDisk.HEADER, 12 * 1024, (permit, errno) -> {
                done++;
                lastErrno = errno;
            }));
            assertTrue(sim.run(() -> done == 1, 500 * MS));
            assertEquals(0, lastErrno);
            assertEquals(-1, p.data().asSlice(0, 12 * 1024).mismatch(sim.disk.bytes.asSlice(4096, 12 * 1024)), "the data landed");

            p.data().fill((byte) 0);
            header(4096 + 100, 2);
            assertEquals(0, c.read(p, header, 0, MemoryDisk.HEADER, 5000, (permit, errno) -> {
                done++;
                lastErrno = errno;
            }));
            assertTrue(sim.run(() -> done == 2, 500 * MS));
            assertEquals(0, lastErrno);
            assertEquals(-1, p.data().asSlice(0, 5000).mismatch(sim.disk.bytes.asSlice(4196, 5000)), "the server RDMA-wrote it here");
            assertEquals(0, p.data().get(ValueLayout.JAVA_BYTE, 5000), "and nothing past what was asked");

            header(1 << 20, 3); // past the disk's end: the server's errno comes back
            assertEquals(0, c.read(p, header, 0, MemoryDisk.HEADER, 10, (permit, errno) -> {
                done++;
                lastErrno = errno;
            }));
            assertTrue(sim.run(() -> done == 3, 500 * MS));
            assertEquals(Errno.EINVAL, lastErrno);
            c.release(p);
            long reads = c.stats(0).reads() + c.stats(1).reads();
            long writeBytes = c.stats(0).writeBytes() + c.stats(1).writeBytes();
            assertEquals(2, reads);
            assertEquals(12 * 1024, writeBytes);
            assertEquals(0, c.stats(0).inflight() + c.stats(1).inflight());
        }
    }

    @Test
    void shouldLetTheServersUserAnswerLaterAndHandOutNoMorePermitsThanChunks() {
        ArrayDeque<ServerIo> held = new ArrayDeque<>();
        try (RtrsSim sim = new RtrsSim(12, 1, RtrsSim.smallServer(), 1 << 16, held::add)) {
            RtrsClient c = sim.connect(RtrsSim.smallClient());
            Permit[] all = new Permit[16];
            for (int i = 0; i < 16; i++) {
                all[i] = c.permit();
                assertNotNull(all[i]);
            }
            assertEquals(null, c.permit(), "queue depth 16: the 17th waits");
            for (int i = 0; i < 16; i++) {
                header(i * 8, i);
                all[i].data().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 1000 + i);
                assertEquals(0, c.write(all[i], header, 0, MemoryDisk.HEADER, 8, (permit, errno) -> {
                    done++;
                    lastErrno = errno;
                    c.release(permit);
                }));
            }
            assertTrue(sim.run(() -> held.size() == 16, 500 * MS), "every request reached the user");
            sim.run(() -> false, 100 * MS);
            assertEquals(0, done, "nothing completes before the user answers");
            for (var io : held) {
                assertEquals(8, io.dataLength());
                assertEquals(1000 + io.chunk().get(ValueLayout.JAVA_LONG_UNALIGNED, io.headerOffset() + 8),
                    io.chunk().get(ValueLayout.JAVA_LONG_UNALIGNED, 0), "each chunk holds its own request's data");
                io.respond(Errno.EIO);
            }
            assertTrue(sim.run(() -> done == 16, 500 * MS));
            assertEquals(Errno.EIO, lastErrno, "the user's errno, through the immediate");
            assertNotNull(c.permit(), "permits back once answered");
        }
    }
}
