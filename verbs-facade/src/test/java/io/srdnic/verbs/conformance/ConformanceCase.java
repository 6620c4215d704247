package io.srdnic.verbs.conformance;

import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.verbs.SimWorld;
import io.srdnic.verbs.ThreadingMode;

/**
 * A conformance test whose body runs against either provider: it makes its pair with
 * {@link #pair}, on the fabric {@link #fabric} gives (embedded here; the dataplane module's
 * {@code Attached*} subclasses give attached contexts of an in-process dataplane, same body).
 */
public abstract class ConformanceCase {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    /** The network the pair's contexts are on, seeded, with {@code link}'s faults. */
    protected ConformanceFabric fabric(long seed, LinkConfig link) {
        return new ConformanceFabric.Embedded(new SimWorld(seed, 16, link));
    }

    final RcConformancePair pair(long seed, LinkConfig link, int bufferBytes) {
        return pair(seed, link, bufferBytes, ThreadingMode.INVOKER);
    }

    final RcConformancePair pair(long seed, LinkConfig link, int bufferBytes, ThreadingMode mode) {
        return pair(seed, link, bufferBytes, mode, 7);
    }

    /** With side a's {@code rnrRetry} (7: for ever). */
    final RcConformancePair pair(long seed, LinkConfig link, int bufferBytes, ThreadingMode mode, int rnrRetry) {
        return new RcConformancePair(fabric(seed, link), bufferBytes, mode, rnrRetry);
    }
}
