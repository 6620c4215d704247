package io.srdnic.bench;

import io.srdnic.pmd.Eal;
import io.srdnic.pmd.EalConfig;
import io.srdnic.pmd.EthPacketIo;
import io.srdnic.pmd.EthPort;
import io.srdnic.pmd.ExternalBuffers;
import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.MbufPool;
import io.srdnic.pmd.PortConfig;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;

/**
 * The zero-copy threshold (issue 28, item 3), measured on real net_memif in one process: frames of
 * 64 header bytes and a payload of each size, the payload either copied from "registered memory"
 * into the mbuf (the copy path) or attached to a second mbuf as an external buffer (Mbuf.attachExternal,
 * a ticket of ExternalBuffers, polled once per burst), sent in bursts of 32 and received back on the
 * other end of the pair; the CPU time of the one thread doing both per frame, the two ways
 * interleaved block by block, medians printed. memif copies the frame into its ring either way, so
 * the difference is the sender's copy against the extra mbuf, ticket and segment.
 * <p>
 * {@code java --enable-native-access=ALL-UNNAMED -cp benchmarks.jar io.srdnic.bench.ZeroCopyCpuTime [SIZES] [BLOCKS] [FRAMES]}
 * (default sizes 256,512,1024,2048,4096, 7 blocks of 200,000 frames per way and size). Needs root
 * for memif's socket under /run unless the socket dir is writable (a temp dir is used).
 */
public final class ZeroCopyCpuTime {
    private static final int HEADERS = 64;
    private static final int BURST = 32;

    private ZeroCopyCpuTime() {
    }

    public static void main(String[] args) throws Exception {
        String[] sizes = (args.length > 0 ? args[0] : "256,512,1024,2048,4096").split(",");
        int blocks = args.length > 1 ? Integer.parseInt(args[1]) : 7;
        int frames = args.length > 2 ? Integer.parseInt(args[2]) : 200_000;
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        Path dir = Files.createTempDirectory("srdnic-zc-cpu");
        String socket = dir.resolve("zc.sock").toString();
        try (Eal eal = Eal.start(new EalConfig().memoryMb(512).logLevel("error"));
             Arena arena = Arena.ofConfined();
             MbufPool pool = MbufPool.create("zccpu", 8191, 8192 + 128);
             EthPort server = EthPort.attach("net_memif80,role=server,id=0,bsize=8192,socket=" + socket);
             EthPort client = EthPort.attach("net_memif81,role=client,id=0,bsize=8192,socket=" + socket)) {
            server.configure(PortConfig.DEFAULT, pool).start();
            client.configure(PortConfig.DEFAULT, pool).start();
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (!(server.link().up() && client.link().up()) && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            Loop loop = new Loop(arena, new EthPacketIo(client, 0, pool), new EthPacketIo(server, 0, pool));
            for (String s : sizes) {
                int size = Integer.parseInt(s.trim());
                long[] copy = new long[blocks];
                long[] zero = new long[blocks];
                loop.run(size, false, frames / 4); // warm-up, both ways
                loop.run(size, true, frames / 4);
                for (int b = 0; b < blocks; b++) {
                    long t = threads.getCurrentThreadCpuTime();
                    loop.run(size, false, frames);
                    copy[b] = threads.getCurrentThreadCpuTime() - t;
                    t = threads.getCurrentThreadCpuTime();
                    loop.run(size, true, frames);
                    zero[b] = threads.getCurrentThreadCpuTime() - t;
                }
                Arrays.sort(copy);
                Arrays.sort(zero);
                double c = copy[blocks / 2] / (double) frames;
                double z = zero[blocks / 2] / (double) frames;
                System.out.println(String.format(Locale.ROOT,
                    "{\"size\":%d,\"copy_cpu_ns_per_frame\":%.1f,\"zero_copy_cpu_ns_per_frame\":%.1f,"
                        + "\"zero_vs_copy\":%.3f,\"blocks\":%d,\"frames\":%d}",
                    size, c, z, z / c, blocks, frames));
            }
        } finally {
            Files.deleteIfExists(Path.of(socket));
            Files.deleteIfExists(dir);
        }
    }

    /** One thread sends bursts on one end of the pair and receives them on the other. */
    private static final class Loop {
        final EthPacketIo tx;
        final EthPacketIo rx;
        final MbufBatch out;
        final MbufBatch tails;
        final MbufBatch in;
        final Mbuf view = new Mbuf();
        final Mbuf tailView = new Mbuf();
        final MemorySegment memory;
        final ExternalBuffers tickets;
        final ExternalBuffers.Released ignore = owner -> { };
        long sink;

        Loop(Arena arena, EthPacketIo tx, EthPacketIo rx) {
            this.tx = tx;
            this.rx = rx;
            this.out = new MbufBatch(arena, BURST);
            this.tails = new MbufBatch(arena, BURST);
            this.in = new MbufBatch(arena, BURST);
            this.memory = arena.allocate(BURST * 4096L, 64);
            this.tickets = new ExternalBuffers(arena, 4096, tx.externalBufferFreeCallback());
        }

        void run(int size, boolean zeroCopy, int frames) {
            int sent = 0;
            int received = 0;
            while (received < frames) {
                if (sent < frames && tickets.outstanding() < 2048 && tx.allocate(out, BURST) == BURST) {
                    if (zeroCopy && tx.allocate(tails, BURST) != BURST) {
                        tx.free(out);
                        continue;
                    }
                    for (int i = 0; i < BURST; i++) {
                        Mbuf m = view.wrap(out.address(i));
                        long from = memory.address() + i * 4096L;
                        if (zeroCopy) {
                            m.frameLength(HEADERS);
                            m.putLongBE(0, sent + i);
                            tailView.wrap(tails.address(i)).attachExternal(from, size, tickets.acquire(i, from, size));
                            m.chain(tails.address(i));
                        } else {
                            m.frameLength(HEADERS + size);
                            m.putLongBE(0, sent + i);
                            m.copyFrom(memory, i * 4096L, HEADERS, size);
                        }
                    }
                    tails.clear();
                    sent += tx.transmit(out);
                }
                tickets.poll(ignore);
                int got = rx.receive(in);
                for (int i = 0; i < got; i++) {
                    sink += in.get(i).dataLength();
                }
                received += got;
                rx.free(in);
            }
            tickets.poll(ignore);
        }
    }
}
