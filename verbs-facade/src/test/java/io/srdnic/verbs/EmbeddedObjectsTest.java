package io.srdnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.verbs.cm.ConnectionManager;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** What the dataplane's lcore reaches through {@link EmbeddedObjects}. */
class EmbeddedObjectsTest {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    @Test
    void shouldRunAPortsCycleAtTheCallersTimeWithoutReadingTheDevicesClock() {
        AtomicLong clockReads = new AtomicLong();
        SilentPort port = new SilentPort();
        try (Context ctx = Context.open(Device.of("silent", port, () -> {
            clockReads.incrementAndGet();
            return System.nanoTime();
        }), new ContextConfig())) {
            long reads = clockReads.get();
            int receives = port.receives;
            for (int i = 0; i < 100; i++) {
                EmbeddedObjects.runCycle(ctx, System.nanoTime());
            }
            assertTrue(port.receives >= receives + 100,
                "every call ran a duty cycle (a receive burst each): " + (port.receives - receives));
            assertEquals(reads, clockReads.get(), "the cycles ran at the caller's time: the device's clock was not read");
            ctx.progress();
            assertTrue(clockReads.get() > reads, "Context.progress, the path the lcore took before, reads the clock for its cycle");
        }
    }
    @Test
    void shouldTakeAsyncEventsAndCmMessagesWithoutRunningACycle() {
        SilentPort port = new SilentPort();
        try (Context ctx = Context.open(Device.of("silent", port, System::nanoTime), new ContextConfig())) {
            ConnectionManager cm = ConnectionManager.of(ctx);
            int receives = port.receives;
            for (int i = 0; i < 100; i++) {
                assertNull(EmbeddedObjects.pollAsyncEvent(ctx));
                cm.pollCompleted();
            }
            assertEquals(receives, port.receives, "the lcore runs the cycles once a pass: its event and CM polls add none");
            ctx.pollAsyncEvent();
            cm.poll();
            assertTrue(port.receives > receives, "Context.pollAsyncEvent and ConnectionManager.poll, the lcore's before, run cycles");
        }
    }
}
