package io.srdnic.bench;

import io.srdnic.srd.counters.CountersLayout;
import io.srdnic.srd.counters.CountersWriter;
import io.srdnic.srd.transport.device.TransportCounters;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * CPU per SRD message, requester and responder together, on the simulated network
 * ({@link SimPathPair}): each invocation posts a batch of messages from A to B and runs both
 * transports (and the simulated wire) in virtual time until every one has completed, then reaps
 * the completions and reposts the receives. The result is wall nanoseconds per message;
 * {@code -prof gc} shows 0 B/op. {@code -p links=fast}: a burst's frames arrive together, so the
 * responder coalesces its ACKs (see SimPathPair); on a loaded machine, {@link SimPathCpuTime}
 * times the same loop in thread CPU time.
 * <p>
 * {@code exportCounters}: one copy of A's counts into a counters file (its device counters, its
 * context to B with 16 paths, its QP: about 200 values), what the dataplane does every
 * countersInterval; nanoseconds per export, 0 B/op.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Dsrdnic.shim.path=/nonexistent"})
@State(Scope.Thread)
public class SrdSimPathBench {
    @Param({"64", "4096"})
    int size;

    /** "default": 100 Gbit/s simulated links; "fast": a burst's frames arrive together. */
    @Param({"default"})
    String links;

    SimPathPair pair;

    @Setup(Level.Trial)
    public void setUp() {
        pair = new SimPathPair(size, links.equals("fast"));
    }

    Path countersFile;
    CountersWriter countersWriter;
    TransportCounters counters;

    /** A's counters file, made after one batch so that its context to B (and its paths) exist. */
    @Setup(Level.Trial)
    public void setUpCounters() throws IOException {
        postAndCompleteBatch();
        countersFile = Files.createTempFile("srdnic-bench", CountersLayout.FILE_SUFFIX);
        countersWriter = CountersWriter.create(countersFile, "bench", 4096);
        counters = new TransportCounters(pair.a, countersWriter, "device=a");
        counters.export();
    }

    @TearDown(Level.Trial)
    public void tearDownCounters() throws IOException {
        countersWriter.close();
        Files.deleteIfExists(countersFile);
    }

    @Benchmark
    public void exportCounters() {
        counters.export();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        pair.close();
    }

    @Benchmark
    @OperationsPerInvocation(SimPathPair.BATCH)
    public int postAndCompleteBatch() {
        return pair.postAndCompleteBatch();
    }
}
