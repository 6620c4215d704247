package io.srdnic.verbs.conformance;

import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.verbs.AttachedConformanceFabric;
import io.srdnic.verbs.Context;

/**
 * {@link PostDestroyRaceTest}'s races against attached contexts: the posts go through the shared
 * rings while the destroy goes over the control socket, and the dataplane's lcore serves both. A
 * fault on that thread would stop it: the last control call of each race would not be answered.
 */
class AttachedPostDestroyRaceTest extends PostDestroyRaceTest {
    @Override
    protected ConformanceFabric fabric(long seed, LinkConfig link) {
        return new AttachedConformanceFabric(seed, link);
    }

    /** Fewer: each round's create and destroy are control calls over the socket. */
    @Override
    protected int rounds() {
        return 100;
    }

    /** The dataplane's lcore has no fault record here: a dead one fails the race's closing control call instead. */
    @Override
    protected RuntimeException driverFault(Context ctx) {
        return null;
    }
}
