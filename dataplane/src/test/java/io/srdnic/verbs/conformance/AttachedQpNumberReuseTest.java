package io.srdnic.verbs.conformance;

import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.verbs.AttachedConformanceFabric;

/** {@link QpNumberReuseTest}'s body against attached contexts of an in-process dataplane. */
class AttachedQpNumberReuseTest extends QpNumberReuseTest {
    @Override
    protected ConformanceFabric fabric(long seed, LinkConfig link) {
        return new AttachedConformanceFabric(seed, link);
    }
}
