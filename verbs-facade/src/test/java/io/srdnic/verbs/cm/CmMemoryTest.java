package io.srdnic.verbs.cm;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.verbs.Context;
import io.srdnic.verbs.Device;
import io.srdnic.verbs.SimWorld;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * The CM's native memory (its management QP's message slots) is freed when its context closes,
 * not when a GC finds it unreachable: a dataplane's ports and an application that opens and closes
 * contexts get it back at once.
 */
class CmMemoryTest {
    @Test
    void shouldFreeTheCmsMessageSlotsWhenItsContextCloses() {
        try (SimWorld world = new SimWorld(5)) {
            Context ctx = Context.open(Device.sim(world));
            MemorySegment slots = ConnectionManager.of(ctx).embedded().slots();
            assertTrue(slots.scope().isAlive(), "in use while the context is open");
            ctx.close();
            assertFalse(slots.scope().isAlive(), "freed with the context, though this test still holds the segment");
        }
    }
}
