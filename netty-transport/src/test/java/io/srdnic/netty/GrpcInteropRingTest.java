package io.srdnic.netty;

import org.junit.AfterClass;
import org.junit.BeforeClass;

/** The interop suite over a clean net_ring link; no ByteBuf left unreleased (PARANOID) at the end. */
public class GrpcInteropRingTest extends SrdnicInteropTest {

    @BeforeClass
    public static void openRing() {
        LeakRecorder.install();
        ring = RingPair.open();
    }

    @AfterClass
    public static void closeRing() {
        ring.close();
        LeakRecorder.assertNoLeaks();
    }
}
