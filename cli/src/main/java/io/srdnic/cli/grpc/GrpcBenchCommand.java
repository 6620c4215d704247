package io.srdnic.cli.grpc;

import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.stub.ClientCalls;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code srdnic grpc-bench}: gRPC-java over srdnic (net_ring, one JVM) against gRPC-java over
 * Netty's epoll transport on loopback TCP, in the same sitting: unary round-trip latency (p50,
 * p99) and client-streaming throughput, each transport measured in every round (their order
 * alternating), the median of the rounds reported with srdnic's ratio to epoll.
 */
@Command(name = "grpc-bench", mixinStandardHelpOptions = true,
    description = "gRPC unary latency and streaming throughput: srdnic (net_ring) vs Netty epoll on loopback TCP.")
public final class GrpcBenchCommand implements Callable<Integer> {

    @Option(names = "--rounds", defaultValue = "3", description = "Rounds; the median is reported (default ${DEFAULT-VALUE}).")
    int rounds;

    @Option(names = "--calls", defaultValue = "20000",
        description = "Unary calls measured per round and transport (default ${DEFAULT-VALUE}).")
    int calls;

    @Option(names = "--warmup", defaultValue = "5000", description = "Unary calls before each measurement (default ${DEFAULT-VALUE}).")
    int warmup;

    @Option(names = "--payload", defaultValue = "64", description = "Unary request and response bytes (default ${DEFAULT-VALUE}).")
    int payload;

    @Option(names = "--stream-mib", defaultValue = "256", description = "MiB streamed per round and transport (default ${DEFAULT-VALUE}).")
    int streamMib;

    @Option(names = "--message", defaultValue = "65536", description = "Streamed message bytes (default ${DEFAULT-VALUE}).")
    int message;

    @Option(names = "--port", defaultValue = "50071",
        description = "Server port; epoll's on 127.0.0.1, srdnic's on 10.0.0.2 (default ${DEFAULT-VALUE}).")
    int port;

    @Override
    public Integer call() throws Exception {
        double[][] p50 = new double[2][rounds];
        double[][] p99 = new double[2][rounds];
        double[][] mibs = new double[2][rounds];
        try (BenchEndpoints srdnic = BenchEndpoints.srdnic(port); BenchEndpoints epoll = BenchEndpoints.epoll(port)) {
            BenchEndpoints[] both = {srdnic, epoll};
            for (int r = 0; r < rounds; r++) {
                for (int k = 0; k < 2; k++) {
                    int t = (r % 2 == 0) ? k : 1 - k; // alternate which goes first
                    BenchEndpoints e = both[t];
                    Histogram h = unary(e);
                    p50[t][r] = h.getValueAtPercentile(50) / 1000.0;
                    p99[t][r] = h.getValueAtPercentile(99) / 1000.0;
                    mibs[t][r] = stream(e);
                    System.out.printf(Locale.ROOT, "round %d %-6s unary p50 %7.1f us  p99 %7.1f us   stream %8.1f MiB/s%n", r + 1, e.name,
                        p50[t][r], p99[t][r], mibs[t][r]);
                }
            }
        }
        System.out.printf(Locale.ROOT,
            "median of %d rounds: srdnic p50 %.1f us, p99 %.1f us, %.1f MiB/s; epoll p50 %.1f us, p99 %.1f us, %.1f MiB/s%n", rounds,
            median(p50[0]), median(p99[0]), median(mibs[0]), median(p50[1]), median(p99[1]), median(mibs[1]));
        System.out.printf(Locale.ROOT, "ratio srdnic/epoll: p50 %.2f, p99 %.2f, throughput %.2f%n", median(p50[0]) / median(p50[1]),
            median(p99[0]) / median(p99[1]), median(mibs[0]) / median(mibs[1]));
        return 0;
    }

    /** Round trips of blocking unary calls, one at a time, in nanoseconds. */
    private Histogram unary(BenchEndpoints e) {
        byte[] request = new byte[payload];
        Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        for (int i = 0; i < warmup + calls; i++) {
            long start = System.nanoTime();
            byte[] reply = ClientCalls.blockingUnaryCall(e.channel, BenchService.ECHO, CallOptions.DEFAULT, request);
            long took = System.nanoTime() - start;
            if (reply.length != payload) {
                throw new IllegalStateException(e.name + ": the echo came back with " + reply.length + " bytes, not " + payload);
            }
            if (i >= warmup) {
                h.recordValue(Math.min(took, h.getHighestTrackableValue()));
            }
        }
        return h;
    }

    /** MiB/s of one client-streaming call carrying {@link #streamMib} MiB (after a call of a tenth of it to warm up). */
    private double stream(BenchEndpoints e) throws Exception {
        streamOnce(e, Math.max(1, streamMib / 10));
        long start = System.nanoTime();
        long bytes = streamOnce(e, streamMib);
        return bytes / (1024.0 * 1024.0) / ((System.nanoTime() - start) / 1e9);
    }

    private long streamOnce(BenchEndpoints e, int mib) throws Exception {
        long messages = (long) mib * 1024 * 1024 / message;
        byte[] chunk = new byte[message];
        ClientCall<byte[], byte[]> call = e.channel.newCall(BenchService.SINK, CallOptions.DEFAULT);
        CompletableFuture<Long> done = new CompletableFuture<>();
        long[] sent = {0};
        Runnable pump = () -> {
            synchronized (sent) {
                while (sent[0] < messages && call.isReady()) {
                    call.sendMessage(chunk);
                    sent[0]++;
                }
                if (sent[0] == messages) {
                    sent[0]++;
                    call.halfClose();
                }
            }
        };
        call.start(new ClientCall.Listener<>() {
            private long total = -1;

            @Override
            public void onMessage(byte[] m) {
                total = ByteBuffer.wrap(m).getLong();
            }

            @Override
            public void onReady() {
                pump.run();
            }

            @Override
            public void onClose(Status status, Metadata trailers) {
                if (status.isOk()) {
                    done.complete(total);
                } else {
                    done.completeExceptionally(status.asRuntimeException());
                }
            }
        }, new Metadata());
        call.request(1);
        pump.run();
        long total = done.get(5, TimeUnit.MINUTES);
        if (total != messages * message) {
            throw new IllegalStateException(e.name + ": the server counted " + total + " bytes of " + messages * message);
        }
        return total;
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }
}
