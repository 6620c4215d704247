package io.srdnic.verbs.conformance;

import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.verbs.AttachedConformanceFabric;

/** {@link RcModifyTakesEffectTest}'s body against attached contexts of an in-process dataplane. */
class AttachedRcModifyTakesEffectTest extends RcModifyTakesEffectTest {
    @Override
    protected ConformanceFabric fabric(long seed, LinkConfig link) {
        return new AttachedConformanceFabric(seed, link);
    }
}
