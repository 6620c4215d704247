package io.srdnic.verbs;

import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A context's own limits: a create refused at the limit takes no slot, so one destroyed makes room for one again. */
class ContextLimitsTest {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    @Test
    void shouldNotLoseACqSlotToARefusedCreate() {
        try (SimWorld world = new SimWorld(7); Context ctx = Context.open(Device.sim(world))) {
            List<CompletionQueue> cqs = new ArrayList<>();
            for (int i = 0; i < Context.MAX_CQ; i++) {
                cqs.add(ctx.createCq(1));
            }
            for (int i = 0; i < 3; i++) {
                assertThrows(VerbsException.class, () -> ctx.createCq(1), "past the context's CQs");
            }
            cqs.remove(0).destroy();
            ctx.createCq(1); // the slot the destroyed CQ gave back, not lost to the refusals
        }
    }
}
