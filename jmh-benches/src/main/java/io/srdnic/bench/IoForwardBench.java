package io.srdnic.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
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
 * testpmd's io forwarding loop ({@link IoForward}) over two self-looping net_ring ports with 64
 * mbufs in flight. One op is one RX+TX burst pair; each invocation does one pass over both streams
 * (two pairs). The {@code packets} counter is frames forwarded, so in this mode and unit it reads
 * directly in Mpps; {@code -prof gc} shows the loop allocates nothing (gc.alloc.rate.norm = 0 B/op).
 * <pre>java -jar jmh-benches/target/benchmarks.jar IoForwardBench -prof gc</pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xmx512m"})
public class IoForwardBench {

    @State(Scope.Thread)
    public static class Forwarder {
        @Param({"SHIM", "SHIM_LONG", "FP_OPS", "FP_OPS_LONG"})
        public IoForward.Path path;

        RingPorts ports;
        IoForward fwd;

        @Setup(Level.Trial)
        public void setUp() {
            ports = RingPorts.start();
            ports.eal().registerThread();
            fwd = new IoForward(path, ports.port0(), ports.port1());
            fwd.txFirst(ports.pool(), 64);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            long inFlight = ports.pool().inUse();
            ports.close(); // first: EAL's runtime directory goes even if the check below fails
            if (fwd.dropped() != 0 || inFlight != 2L * IoForward.BURST) {
                throw new IllegalStateException("expected 64 mbufs in flight and no drops, found " + inFlight + " in use, "
                        + fwd.dropped() + " dropped");
            }
        }
    }

    /** Frames forwarded: reported per unit of time, i.e. Mpps here. */
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    @State(Scope.Thread)
    public static class Packets {
        public long packets;

        @Setup(Level.Iteration)
        public void reset() {
            packets = 0;
        }
    }

    @Benchmark
    @OperationsPerInvocation(2)
    public int forward(Forwarder f, Packets p) {
        int n = f.fwd.forwardOnce();
        p.packets += n;
        return n;
    }
}
