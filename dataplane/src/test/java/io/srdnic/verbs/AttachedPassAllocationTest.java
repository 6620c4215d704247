package io.srdnic.verbs;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.ThreadMXBean;
import io.srdnic.dataplane.attach.AllowRule;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hot-path rule for the dataplane's pass (what an lcore's {@code ClientsDuty} runs): once warm,
 * a message of an attached client — its post taken from the shared ring, the transport's cycles on
 * the simulated network, its completion written to the client's ring — allocates nothing on the
 * dataplane's thread (under a byte a message: a one-off growth is let pass).
 */
class AttachedPassAllocationTest {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    @TempDir
    Path dir;

    @Test
    void shouldNotAllocatePerMessageOnTheDataplanesThreadOnceWarm() {
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (AttachedWorld w = new AttachedWorld(dir, 2, AllowRule.ownUidOrRoot());
                WellBehavedTraffic traffic = new WellBehavedTraffic(dir)) {
            traffic.awaitMore(2_000); // warm: JIT, rings, pools
            long tid = w.loopThreadId();
            // Three windows: a one-off growth lands in one of them; an allocation per message shows in every one.
            long[] perWindow = new long[3];
            long messages = Long.MAX_VALUE;
            for (int i = 0; i < perWindow.length; i++) {
                long before = threads.getThreadAllocatedBytes(tid);
                long from = traffic.rounds();
                traffic.awaitMore(2_000);
                perWindow[i] = threads.getThreadAllocatedBytes(tid) - before;
                messages = Math.min(messages, 2 * (traffic.rounds() - from)); // an SRD and an RC message a round
            }
            assertNull(traffic.failure(), "the traffic");
            Arrays.sort(perWindow);
            assertTrue(messages >= 2_000, "traffic flowed: " + messages);
            assertTrue(perWindow[1] < messages, "median window: " + perWindow[1] + " bytes allocated for " + messages + " messages");
        }
    }
}
