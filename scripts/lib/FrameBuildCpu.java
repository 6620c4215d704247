import io.srdnic.bench.SrdCodecBench;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Field;
import java.util.Arrays;

/**
 * Thread CPU time of writing a 64 B SEND's headers with its UDP checksum two ways, blocks interleaved:
 * {@code SrdCodecBench.encodeData} (the SRD header field by field, the checksum summed from the frame
 * read back) against {@code encodeDataSummed} (six 8-byte stores, the header's sum from its fields).
 * Usage: java --enable-native-access=ALL-UNNAMED -cp benchmarks.jar scripts/lib/FrameBuildCpu.java PAYLOAD BLOCKS
 */
public final class FrameBuildCpu {
    public static void main(String[] args) throws Exception {
        System.setProperty("srdnic.shim.path", "/nonexistent");
        SrdCodecBench b = new SrdCodecBench();
        Field p = SrdCodecBench.class.getDeclaredField("payload"); p.setAccessible(true); p.setInt(b, Integer.parseInt(args[0]));
        Field u = SrdCodecBench.class.getDeclaredField("udpChecksum"); u.setAccessible(true); u.setBoolean(b, true);
        b.setUp();
        ThreadMXBean t = ManagementFactory.getThreadMXBean();
        int n = 2_000_000, blocks = Integer.parseInt(args[1]);
        double[] a = new double[blocks], s = new double[blocks];
        long sink = 0;
        for (int w = 0; w < 5; w++) { for (int i = 0; i < n; i++) { sink += b.encodeData() + b.encodeDataSummed(); } }
        for (int k = 0; k < blocks; k++) {
            long c = t.getCurrentThreadCpuTime();
            for (int i = 0; i < n; i++) sink += b.encodeData();
            a[k] = (t.getCurrentThreadCpuTime() - c) / (double) n;
            c = t.getCurrentThreadCpuTime();
            for (int i = 0; i < n; i++) sink += b.encodeDataSummed();
            s[k] = (t.getCurrentThreadCpuTime() - c) / (double) n;
        }
        Arrays.sort(a); Arrays.sort(s);
        System.out.printf("fields+readback %.1f ns, summed %.1f ns (medians of %d blocks) %d%n", a[blocks / 2], s[blocks / 2], blocks, sink & 1);
    }
}
