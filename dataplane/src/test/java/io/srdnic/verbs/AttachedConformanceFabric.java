package io.srdnic.verbs;

import io.srdnic.dataplane.attach.AllowRule;
import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.verbs.conformance.ConformanceFabric;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The conformance suite's attached fabric: a dataplane ({@link AttachedWorld}) serving two
 * simulated hosts of a seeded, faulty network on its own thread; each side of the pair is an
 * application attached to one of its ports through the real socket and shared files, in a
 * directory of its own.
 */
public final class AttachedConformanceFabric implements ConformanceFabric {
    private final Path dir;
    private final AttachedWorld world;
    /** The contexts opened, in port order: the i-th is attached to port i. */
    private final List<Context> opened = new ArrayList<>();

    public AttachedConformanceFabric(long seed, LinkConfig link) {
        try {
            dir = Files.createTempDirectory("srdnic-conformance-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        world = new AttachedWorld(dir, 2, AllowRule.ownUidOrRoot(), seed, link);
    }

    /** The next port's application; the threading mode is the dataplane's to choose (it has no driver here). */
    @Override
    public Context open(ThreadingMode mode) {
        Context c = Context.open(Device.attached(dir), new ContextConfig().attachedPort(opened.size()).attachedPoolBytes(4 << 20)
            .attachedRingBytes(1 << 20));
        opened.add(c);
        return c;
    }

    /** The dataplane's port {@code ctx} is attached to: its transport's counters, read on the dataplane's thread. */
    @Override
    public Map<String, Long> transportCounters(Context ctx) {
        int port = opened.indexOf(ctx);
        if (port < 0) {
            throw new IllegalArgumentException("not a context of this fabric: " + ctx);
        }
        return world.onLoop(() -> world.served(port).counters());
    }

    /** None: the dataplane's thread alone steps its world. */
    @Override
    public SimWorld world() {
        return null;
    }

    @Override
    public void close() {
        world.close();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
