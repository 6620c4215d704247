package io.srdnic.netty;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** A test class whose tests share one {@link RingPair}; PARANOID leak detection, and no buffer left unreleased at the end. */
abstract class RingTest {
    static RingPair ring;

    @BeforeAll
    static void openRing() {
        LeakRecorder.install();
        ring = RingPair.open();
    }

    @AfterAll
    static void closeRing() {
        ring.close();
        LeakRecorder.assertNoLeaks();
    }
}
