package io.srdnic.rtrs.session;

import static io.srdnic.rtrs.session.RtrsSim.MS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.rtrs.client.Permit;
import io.srdnic.rtrs.client.RtrsClient;
import io.srdnic.rtrs.server.ServerIo;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import org.junit.jupiter.api.Test;

/**
 * The server's answers when its connection's send queue is full: an answer stays in the RC send
 * queue until the client's ACK, so a burst of answers can find it full. Each such answer waits on
 * its path and goes from a later poll; none is lost, none goes twice, the data of a READ answer is
 * the data asked for. Deterministic: a send queue of 4 and 16 answers given at once.
 */
class RtrsFullSendQueueSimTest {
    private static final int IOS = 16;
    private static final int LENGTH = 4096;
    private final MemorySegment header = Arena.ofAuto().allocate(MemoryDisk.HEADER);
    private int done;
    private int failed;

    @Test
    void shouldDeliverEveryAnswerThatFoundTheSendQueueFullOnceTheQueueHasRoom() {
        ArrayDeque<ServerIo> held = new ArrayDeque<>();
        try (RtrsSim sim = new RtrsSim(21, 1, RtrsSim.smallServer().sendQueueDepth(4), 1 << 20, held::add)) {
            for (int i = 0; i < IOS * LENGTH; i++) {
                sim.disk.bytes.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 13 + i / LENGTH));
            }
            RtrsClient c = sim.connect(RtrsSim.smallClient());
            Permit[] permits = new Permit[IOS];
            for (int i = 0; i < IOS; i++) {
                permits[i] = c.permit();
                assertNotNull(permits[i]);
                header.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, (long) i * LENGTH);
                header.set(ValueLayout.JAVA_LONG_UNALIGNED, 8, i);
                assertEquals(0, c.read(permits[i], header, 0, MemoryDisk.HEADER, LENGTH, (permit, errno) -> {
                    done++;
                    if (errno != 0) {
                        failed++;
                    }
                }));
            }
            assertTrue(sim.run(() -> held.size() == IOS, 500 * MS), "every request reached the user");
            for (ServerIo io : held) {
                sim.disk.onRequest(io); // the disk fills the chunk and answers: 16 answers in one go, 4 fit per connection
            }
            assertTrue(sim.run(() -> done == IOS, 2000 * MS), "every IO answered, " + done + " of " + IOS);
            long deferred = sim.server.counters().get("deferred_responses");
            int connections = 2; // RtrsSim.smallClient's IO connections, 4 entries each
            assertTrue(deferred >= IOS - connections * 4, "the answers past the send queues' room waited: " + deferred);
            sim.run(() -> false, 50 * MS);
            assertEquals(IOS, done, "no answer went twice");
            assertEquals(0, failed);
            for (int i = 0; i < IOS; i++) {
                assertEquals(-1, permits[i].data().asSlice(0, LENGTH).mismatch(
                    sim.disk.bytes.asSlice((long) i * LENGTH, LENGTH)), "read " + i + " got its own data");
            }
        }
    }
}
