package io.srdnic.pmd.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.srdnic.pmd.MacAddress;
import org.junit.jupiter.api.Test;

class SimConfigTest {
    static {
        SimFrames.forbidNativeDpdk();
    }

    @Test
    void shouldDefaultToAFaultFree100GbitLink() {
        LinkConfig link = LinkConfig.DEFAULT;
        assertEquals(100_000_000_000L, link.bitsPerSecond());
        assertEquals(2_000, link.delayNanos());
        assertEquals(0, link.jitterNanos());
        assertEquals(1 << 20, link.queueLimitBytes());
        assertEquals(0.0, link.lossProbability());
        assertEquals(0.0, link.duplicateProbability());
        assertEquals(0.0, link.reorderProbability());
        assertEquals(10_000, link.reorderDelayNanos());
        assertEquals(0.0, link.corruptProbability());
        assertEquals(link, link.toBuilder().build());
    }

    @Test
    void shouldDefaultToOnePathWithAPoolOfFrameSizedBuffers() {
        SimNetwork.Config config = SimNetwork.Config.builder().build();
        assertEquals(1, config.pathCount());
        assertEquals(4096 + 256, config.dataRoom());
        assertEquals(4096, config.poolSize());
        assertEquals(1024, config.rxRingCapacity());
        assertSame(PathSelector.UDP_SOURCE_PORT, config.pathSelector());
        assertSame(LinkConfig.DEFAULT, config.accessLink());
    }

    @Test
    void shouldRejectNonsenseSettings() {
        assertThrows(IllegalArgumentException.class, () -> LinkConfig.builder().lossProbability(1.5).build());
        assertThrows(IllegalArgumentException.class, () -> LinkConfig.builder().corruptProbability(Double.NaN).build());
        assertThrows(IllegalArgumentException.class, () -> LinkConfig.builder().bitsPerSecond(0).build());
        assertThrows(IllegalArgumentException.class, () -> LinkConfig.builder().delayNanos(-1).build());
        assertThrows(IllegalArgumentException.class, () -> SimNetwork.Config.builder().pathCount(0).build());
        assertThrows(IllegalArgumentException.class, () -> SimNetwork.Config.builder().rxRingCapacity(0).build());
    }

    @Test
    void shouldRejectDuplicateOrBroadcastHostMacs() {
        try (SimNetwork network = new SimNetwork(1, SimNetwork.Config.builder().poolSize(8).build())) {
            network.addHost(0x02_00_00_00_00_01L);
            assertThrows(IllegalArgumentException.class, () -> network.addHost(0x02_00_00_00_00_01L));
            assertThrows(IllegalArgumentException.class, () -> network.addHost(MacAddress.BROADCAST));
            assertEquals(1, network.hostCount());
        }
    }

    @Test
    void shouldMoveVirtualTimeOnlyForward() {
        SimClock clock = new SimClock();
        assertEquals(0, clock.now());
        clock.advanceTo(100);
        clock.advanceBy(50);
        assertEquals(150, clock.now());
        assertEquals(150, clock.getAsLong());
        assertThrows(IllegalArgumentException.class, () -> clock.advanceTo(149));
        assertThrows(IllegalArgumentException.class, () -> clock.advanceBy(-1));
        clock.advanceTo(150);
        assertEquals(150, clock.now());
    }
}
