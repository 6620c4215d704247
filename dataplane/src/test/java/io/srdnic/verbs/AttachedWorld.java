package io.srdnic.verbs;

import io.srdnic.dataplane.ClientsDuty;
import io.srdnic.dataplane.attach.AllowRule;
import io.srdnic.dataplane.attach.AttachPolicy;
import io.srdnic.dataplane.attach.AttachServer;
import io.srdnic.pmd.sim.LinkConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import org.agrona.concurrent.CachedNanoClock;

/**
 * Test fixture: a dataplane serving {@code ports} simulated hosts of one SimWorld on its own thread
 * (which alone steps the world), as {@code srdnic dataplane} serves its ports; clients attach from
 * the test thread through the real socket and shared files in {@code dir}.
 */
final class AttachedWorld implements AutoCloseable {
    final Path dir;
    final AttachServer server;
    private final Thread loop;
    private final ConcurrentLinkedQueue<FutureTask<?>> onLoop = new ConcurrentLinkedQueue<>();
    private volatile boolean running = true;
    /** While set the loop runs only what {@link #onLoop} hands it: a test steps the server itself. */
    private volatile boolean paused;
    /** The hosts the dataplane serves (made on the loop; use them there only). */
    private final List<Context> served = new ArrayList<>();
    /** Hosts of the same world that the dataplane does not serve: embedded peers, touched only on the loop ({@link #onLoop}). */
    private final List<Context> embedded = new ArrayList<>();

    AttachedWorld(Path dir, int ports, AllowRule allow) {
        this(dir, ports, 0, allow);
    }

    /** One served port under {@code policy} (who may connect, how many, how long before OPEN). */
    AttachedWorld(Path dir, AttachPolicy policy) {
        this(dir, 1, 0, policy, dir, 0, 1);
    }

    /** One served port under {@code policy}, its clients' memory sealed memfds ({@code shmDir} null) or files in {@code shmDir}. */
    AttachedWorld(Path dir, AttachPolicy policy, Path shmDir) {
        this(dir, 1, 0, policy, shmDir, 0, 1);
    }

    /** As above, with {@code embeddedHosts} more hosts in the world that applications use embedded, on the loop. */
    AttachedWorld(Path dir, int ports, int embeddedHosts, AllowRule allow) {
        this(dir, ports, embeddedHosts, AttachPolicy.of(allow), dir, 0, 1);
    }

    /** The server of lcore {@code lcore} of {@code lcores} in one process, its clients' shared files in {@code shmDir}. */
    AttachedWorld(Path dir, int ports, AllowRule allow, Path shmDir, int lcore, int lcores) {
        this(dir, ports, 0, AttachPolicy.of(allow), shmDir, lcore, lcores);
    }

    private AttachedWorld(Path dir, int ports, int embeddedHosts, AttachPolicy allow, Path shmDir, int lcore, int lcores) {
        this(dir, ports, embeddedHosts, allow, shmDir, lcore, lcores, 42, LinkConfig.DEFAULT);
    }

    /** {@code ports} served hosts of a world seeded with {@code seed} whose links have {@code link}'s faults. */
    AttachedWorld(Path dir, int ports, AllowRule allow, long seed, LinkConfig link) {
        this(dir, ports, 0, AttachPolicy.of(allow), dir, 0, 1, seed, link);
    }

    private AttachedWorld(Path dir, int ports, int embeddedHosts, AttachPolicy allow, Path shmDir, int lcore, int lcores, long seed,
                          LinkConfig link) {
        this.dir = dir;
        CompletableFuture<AttachServer> made = new CompletableFuture<>();
        loop = new Thread(() -> {
            SimWorld world = new SimWorld(seed, 16, link);
            List<Context> contexts = new ArrayList<>();
            AttachServer s;
            try {
                for (int i = 0; i < ports; i++) {
                    contexts.add(Context.open(Device.sim(world)));
                }
                served.addAll(contexts);
                for (int i = 0; i < embeddedHosts; i++) {
                    embedded.add(Context.open(Device.sim(world)));
                }
                s = new AttachServer(dir, contexts, allow, shmDir, lcore, lcores);
                made.complete(s);
            } catch (Throwable t) {
                made.completeExceptionally(t);
                return;
            }
            CachedNanoClock clock = new CachedNanoClock();
            ClientsDuty duties = new ClientsDuty(s, clock);
            while (running) {
                FutureTask<?> t;
                while ((t = onLoop.poll()) != null) {
                    t.run();
                }
                if (paused) {
                    Thread.onSpinWait();
                    continue;
                }
                clock.update(System.nanoTime());
                int work = duties.doWork(); // the lcore's client duty, as the dataplane runs it
                for (int i = 0; i < embedded.size(); i++) {
                    work += embedded.get(i).progress();
                }
                if (work == 0) {
                    Thread.yield();
                }
            }
            s.close();
            contexts.forEach(Context::close);
            embedded.forEach(Context::close);
            world.close();
        }, "attached-world");
        loop.setDaemon(true);
        loop.start();
        server = made.join();
    }

    /** The dataplane's thread, for what it allocates. */
    long loopThreadId() {
        return loop.threadId();
    }

    /** Runs {@code call} on the dataplane's thread (its counters are that thread's). */
    <T> T onLoop(Callable<T> call) {
        FutureTask<T> t = new FutureTask<>(call);
        onLoop.add(t);
        try {
            return t.get(10, TimeUnit.SECONDS); // a loop that died fails the test, not hangs it
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Stops or resumes the loop's own duty cycles (what {@link #onLoop} hands it still runs). */
    void pause(boolean pause) {
        onLoop(() -> paused = pause);
    }

    /** Served host {@code i}, the embedded context behind port {@code i} (use it on the loop only). */
    Context served(int i) {
        return served.get(i);
    }

    /** Embedded host {@code i} (made on the loop; use it there only). */
    Context embedded(int i) {
        return embedded.get(i);
    }

    long counter(String name) {
        return onLoop(() -> server.counters().get(name));
    }

    /** Stops serving, as a dataplane that dies would (its sockets close). */
    @Override
    public void close() {
        running = false;
        try {
            loop.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
