import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.sim.SimBufferPool;
import java.lang.foreign.Arena;
import java.lang.management.ManagementFactory;
import java.util.Arrays;

/**
 * Thread CPU time of {@code Mbuf.onesComplementSum} (the UDP checksum's sum, built and verified in
 * software) over LEN bytes at the UDP header of 32 mbufs in turn, odd and even lengths alternating,
 * against any build's benchmarks.jar; CPU time so that a loaded machine's preemptions fall out. Usage:
 * java --enable-native-access=ALL-UNNAMED -cp benchmarks.jar scripts/lib/ChecksumCpu.java LEN (120: a 64 B message's UDP part)
 */
public final class ChecksumCpu {
    public static void main(String[] a) {
        System.setProperty("srdnic.shim.path", "/nonexistent");
        int len = Integer.parseInt(a[0]);
        Arena arena = Arena.ofConfined();
        SimBufferPool pool = new SimBufferPool(arena, 64, SimBufferPool.DEFAULT_DATA_ROOM);
        MbufBatch batch = new MbufBatch(arena, 32);
        pool.allocate(batch, 32, 0);
        Mbuf[] m = new Mbuf[32];
        for (int i = 0; i < 32; i++) {
            m[i] = new Mbuf().wrap(batch.address(i));
            for (int j = 0; j < 4200; j++) m[i].putByte(j, (byte) (j * 31 + i));
        }
        var t = ManagementFactory.getThreadMXBean();
        int n = 4_000_000; double[] v = new double[11]; long sink = 0;
        for (int b = -4; b < v.length; b++) {
            long c = t.getCurrentThreadCpuTime();
            for (int i = 0; i < n; i++) { Mbuf x = m[i & 31]; sink += x.onesComplementSum(34, len - (i & 1), sink & 1); }
            if (b >= 0) v[b] = (t.getCurrentThreadCpuTime() - c) / (double) n;
        }
        Arrays.sort(v);
        System.out.printf("sum of %d bytes: %.2f ns (median of %d blocks) %d%n", len, v[v.length / 2], v.length, sink & 1);
    }
}
