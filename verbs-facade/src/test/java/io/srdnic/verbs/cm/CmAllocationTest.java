package io.srdnic.verbs.cm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Steady state allocates nothing: polling an event channel of established connections, and the
 * CM's message path (a duplicate REP received, parsed, matched, and answered with an RTU encoded in
 * place and sent) — what a connection costs after it is made.
 */
class CmAllocationTest {
    private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();

    @Test
    void shouldAllocateNothingOnceConnected() {
        try (CmSim sim = new CmSim(31)) {
            CmSim.Host client = sim.host();
            CmSim.Host server = sim.host();
            CmConnectSimTest.Pair p = CmConnectSimTest.connect(sim, client, server);
            // Three rounds warm up (JIT); of the next seven, the median is judged: an object per message
            // shows in every round (3 KB or more), the JIT's own allocations on a loaded machine in a few.
            long[] allocated = new long[7];
            for (int round = 0; round < 3 + allocated.length; round++) {
                long before = THREADS.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < 20_000; i++) {
                    if (i % 100 == 0) {
                        replayReply(server, p.server());
                    }
                    client.channel.poll();
                    server.channel.poll();
                }
                if (round >= 3) {
                    allocated[round - 3] = THREADS.getCurrentThreadAllocatedBytes() - before;
                }
            }
            long[] sorted = allocated.clone();
            Arrays.sort(sorted);
            assertTrue(sorted[sorted.length / 2] < 1024, "median of " + Arrays.toString(allocated)
                + " B allocated per round of 40,000 polls and 200 REP/RTU exchanges");
            assertEquals(2000, client.cm.counters().get("duplicate_replies"), "each REP copy was handled");
        }
    }

    private static void replayReply(CmSim.Host h, CmId id) {
        synchronized (h.cm) {
            int slot = h.cm.embedded().begin();
            int length = h.cm.embedded().tx.write(CmMessage.REP, id.localCommId, id.remoteCommId, id.serviceId, 0);
            h.cm.embedded().tx.sender(h.context.mac(), h.context.ip(), h.context.udpPort());
            h.cm.embedded().tx.connection(id.qp.qpNum(), id.startingPsn, 1, 1, 0, 7, CmMessage.mtuCode(id.pathMtu));
            h.cm.embedded().finish(slot, CmMessage.REP, length, id.remoteMac, id.remoteIp, id.remoteUdpPort);
        }
    }
}
