package io.srdnic.pmd;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Run in a child JVM by {@link EalMemifTeardownTest}: in one EAL, connects a memif server and
 * client end over a fresh socket, closes the client, then the server a few microseconds later,
 * again and again. The client's close makes the server's driver disconnect on EAL's interrupt
 * thread; the gap sweeps 0..300 us so the server's own stop lands inside that disconnect in some
 * rounds. Prints {@code closed N pairs} if the process lived through all of them.
 * <p>Arguments: the most pairs, the time limit in milliseconds.
 */
public final class MemifPairCloser {
    private MemifPairCloser() {
    }

    public static void main(String[] args) throws Exception {
        int maxPairs = Integer.parseInt(args[0]);
        long until = System.nanoTime() + Long.parseLong(args[1]) * 1_000_000L;
        Path dir = Files.createTempDirectory("srdnic-memif-close");
        int pairs = 0;
        try (Eal eal = Eal.start(new EalConfig().memoryMb(256).logLevel("error"));
             MbufPool pool = MbufPool.create("closer", 2047, 2048 + 128)) {
            for (; pairs < maxPairs && System.nanoTime() < until; pairs++) {
                String socket = dir.resolve(pairs + ".sock").toString();
                EthPort server = EthPort.attach("net_memif" + 2 * pairs + ",role=server,id=0,socket=" + socket);
                EthPort client = EthPort.attach("net_memif" + (2 * pairs + 1) + ",role=client,id=0,socket=" + socket);
                server.configure(PortConfig.DEFAULT, pool).start();
                client.configure(PortConfig.DEFAULT, pool).start();
                awaitLink(server, client);
                Thread closer = new Thread(client::close, "srdnic-memif-client-close");
                closer.start();
                closer.join();
                long gapEnd = System.nanoTime() + (pairs * 7_919L) % 300_000L;
                while (System.nanoTime() - gapEnd < 0) {
                    Thread.onSpinWait();
                }
                server.close();
                Files.deleteIfExists(Path.of(socket));
            }
        } finally {
            Files.deleteIfExists(dir);
        }
        System.out.println("closed " + pairs + " pairs");
    }

    static void awaitLink(EthPort server, EthPort client) throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (!(server.link().up() && client.link().up())) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("the memif pair did not come up within 5 s");
            }
            Thread.sleep(1);
        }
    }
}
