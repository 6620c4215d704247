package io.srdnic.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Netty's leak detector at PARANOID (every buffer tracked), its reports recorded instead of only
 * logged, so a test can fail on a ByteBuf that was never released. Installed before the first
 * buffer class loads (the detector is made in AbstractByteBuf's static initializer).
 */
final class LeakRecorder {
    private static final List<String> LEAKS = new CopyOnWriteArrayList<>();

    static {
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
        ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new ResourceLeakDetectorFactory() {
            @Override
            @SuppressWarnings("deprecation")
            public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval, long maxActive) {
                return new ResourceLeakDetector<T>(resource, samplingInterval, maxActive) {
                    @Override
                    protected void reportTracedLeak(String resourceType, String records) {
                        LEAKS.add(resourceType + " leaked: " + records);
                        super.reportTracedLeak(resourceType, records);
                    }

                    @Override
                    protected void reportUntracedLeak(String resourceType) {
                        LEAKS.add(resourceType + " leaked");
                        super.reportUntracedLeak(resourceType);
                    }
                };
            }
        });
    }

    private LeakRecorder() {
    }

    /** Call first in a test class's setup. */
    static void install() {
        assertEquals(ResourceLeakDetector.Level.PARANOID, ResourceLeakDetector.getLevel());
    }

    /** Collects garbage and lets the detector look (it reports when a new buffer is tracked); fails with the leaks it found. */
    static void assertNoLeaks() {
        for (int i = 0; i < 5; i++) {
            System.gc();
            for (int j = 0; j < 100; j++) {
                ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(16);
                b.release();
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        assertEquals(List.of(), LEAKS, "ByteBufs were never released");
    }
}
