package io.srdnic.netty;

import io.srdnic.dataplane.ClientsDuty;
import io.srdnic.dataplane.attach.AllowRule;
import io.srdnic.dataplane.attach.AttachServer;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.ContextConfig;
import io.srdnic.verbs.Device;
import io.srdnic.verbs.SimWorld;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.agrona.concurrent.CachedNanoClock;

/**
 * Two applications attached to a dataplane in this JVM: the dataplane's thread serves two hosts of
 * a simulated network through the real attach socket and shared files in a temporary directory
 * (as {@code srdnic dataplane} serves its ports, with its clients' duty cycle), and each side is a
 * {@link SrdnicEventLoopGroup} whose context is {@code Device.attached(dir)} on its own port: the
 * client's at host 1's address, the server's at host 2's.
 */
final class AttachedLoops implements AutoCloseable {
    final Path dir;
    final SrdnicEventLoopGroup client;
    final SrdnicEventLoopGroup server;
    private final Thread dataplane;
    private volatile boolean running = true;

    /** The client application's shared pool holds {@code clientPool} bytes, the server's {@code serverPool}. */
    AttachedLoops(long clientPool, long serverPool) {
        try {
            dir = Files.createTempDirectory("srdnic-netty-attached-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        CompletableFuture<Void> serving = new CompletableFuture<>();
        dataplane = new Thread(() -> serve(serving), "netty-attached-dataplane");
        dataplane.setDaemon(true);
        dataplane.start();
        serving.join();
        client = new SrdnicEventLoopGroup(() -> attach(0, clientPool));
        server = new SrdnicEventLoopGroup(() -> attach(1, serverPool));
    }

    private Context attach(int port, long poolBytes) {
        return Context.open(Device.attached(dir), new ContextConfig().attachedPort(port).attachedPoolBytes(poolBytes));
    }

    /** The dataplane's loop: it alone steps the simulated world, through the served contexts' duty cycle. */
    private void serve(CompletableFuture<Void> serving) {
        SimWorld world = new SimWorld(29);
        List<Context> ports;
        AttachServer attach;
        try {
            ports = List.of(Context.open(Device.sim(world)), Context.open(Device.sim(world)));
            attach = new AttachServer(dir, ports, AllowRule.ownUidOrRoot(), dir);
        } catch (Throwable t) {
            serving.completeExceptionally(t);
            return;
        }
        serving.complete(null);
        CachedNanoClock clock = new CachedNanoClock();
        ClientsDuty duty = new ClientsDuty(attach, clock);
        while (running) {
            clock.update(System.nanoTime());
            if (duty.doWork() == 0) {
                Thread.yield();
            }
        }
        attach.close();
        ports.forEach(Context::close);
        world.close();
    }

    static InetSocketAddress serverAddress(int port) {
        return new InetSocketAddress(SrdnicSocketChannel.toAddress(SimWorld.ipOf(2)), port);
    }

    /** Stops both applications' loops (which close their contexts), then the dataplane, then removes its directory. */
    @Override
    public void close() {
        client.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        server.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        running = false;
        try {
            dataplane.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
