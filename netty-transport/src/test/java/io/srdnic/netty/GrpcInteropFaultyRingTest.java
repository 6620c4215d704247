package io.srdnic.netty;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.AfterClass;
import org.junit.BeforeClass;

/**
 * The interop suite over a link that loses 1 % of the frames each side sends, duplicates 1 % and
 * holds 2 % back behind the next burst (seeded): RC below the channels repairs it all, so the
 * channels and gRPC see an intact stream and every case passes as on a clean link.
 */
public class GrpcInteropFaultyRingTest extends SrdnicInteropTest {

    @BeforeClass
    public static void openRing() {
        LeakRecorder.install();
        ring = RingPair.faulty(0.01, 0.01, 0.02, 29);
    }

    @AfterClass
    public static void closeRing() {
        ring.close();
        long[] n = ring.faultCounts();
        System.out.println("faults injected: dropped " + n[0] + ", duplicated " + n[1] + ", delayed " + n[2]);
        assertTrue(n[0] > 0 && n[1] > 0 && n[2] > 0, "the link must really have lost, duplicated and reordered: " + Arrays.toString(n));
        LeakRecorder.assertNoLeaks();
    }
}
