package io.srdnic.verbs.conformance;

import io.srdnic.verbs.Context;
import io.srdnic.verbs.ContextConfig;
import io.srdnic.verbs.Device;
import io.srdnic.verbs.SimWorld;
import io.srdnic.verbs.ThreadingMode;
import java.util.Map;

/**
 * Where the conformance suite's contexts come from, so that one test body runs against both
 * providers: {@link Embedded} contexts on one seeded simulated network, or (the dataplane module's
 * runs of the suite) attached contexts of a dataplane that serves such a network in-process.
 */
public interface ConformanceFabric extends AutoCloseable {
    /** A new context on the network, the next side of the pair; {@code mode} counts where the provider has one. */
    Context open(ThreadingMode mode);

    /** The simulated network when the test may add embedded hosts to it, else null. */
    SimWorld world();

    /**
     * The counters of the transport {@code ctx} runs on: its own embedded; attached, those of the
     * dataplane's port it is attached to (an attached context shows none of its own).
     */
    default Map<String, Long> transportCounters(Context ctx) {
        return ctx.counters();
    }

    @Override
    void close();

    /** Embedded contexts (this JVM's transport) on one {@link SimWorld}. */
    final class Embedded implements ConformanceFabric {
        private final SimWorld world;

        Embedded(SimWorld world) {
            this.world = world;
        }

        @Override
        public Context open(ThreadingMode mode) {
            return Context.open(Device.sim(world), new ContextConfig().mode(mode));
        }

        @Override
        public SimWorld world() {
            return world;
        }

        @Override
        public void close() {
            world.close();
        }
    }
}
