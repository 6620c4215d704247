package io.srdnic.netty;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * An idle loop does not burn a core: with no channel active, each loop thread backs off to parking
 * and uses a small fraction of one CPU (an upper bound only: a loaded machine gives it less, never more).
 */
class IdleLoopTest extends RingTest {

    @Test
    void shouldUseLittleCpuWhileIdle() throws Exception {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        for (SrdnicEventLoopGroup group : new SrdnicEventLoopGroup[] {ring.clientGroup, ring.serverGroup}) {
            long id = group.next().submit(() -> Thread.currentThread().threadId()).get(5, TimeUnit.SECONDS);
            Thread.sleep(200); // past the spinning and yielding that follow the task just run
            long cpu0 = threads.getThreadCpuTime(id);
            long wall0 = System.nanoTime();
            Thread.sleep(1000);
            long cpu = threads.getThreadCpuTime(id) - cpu0;
            long wall = System.nanoTime() - wall0;
            assertTrue(cpu < wall / 10, "an idle loop used " + cpu / 1_000_000 + " ms of CPU in " + wall / 1_000_000 + " ms");
        }
    }
}
