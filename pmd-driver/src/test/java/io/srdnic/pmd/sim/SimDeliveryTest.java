package io.srdnic.pmd.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.srdnic.ffm.Dpdk;
import io.srdnic.pmd.MacAddress;
import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class SimDeliveryTest {
    static {
        SimFrames.forbidNativeDpdk();
    }

    static final long MAC_A = 0x02_00_00_00_00_0AL;
    static final long MAC_B = 0x02_00_00_00_00_0BL;
    static final long MAC_C = 0x02_00_00_00_00_0CL;
    static final long MAC_D = 0x02_00_00_00_00_0DL;

    private final Arena arena = Arena.ofConfined();
    private final MbufBatch batch = new MbufBatch(arena);
    private SimNetwork network;

    @BeforeEach
    void setUp() {
        network = new SimNetwork(42);
    }

    @AfterEach
    void tearDown() {
        network.close();
        arena.close();
    }

    @Test
    void shouldDeliverAFrameIntactNoSoonerThanTheConfiguredDelay() {
        SimPort a = network.addHost(MAC_A);
        SimPort b = network.addHost(MAC_B);
        int length = 1000;
        LinkConfig link = LinkConfig.DEFAULT;
        long serialization = length * 8L * 1_000_000_000L / link.bitsPerSecond();
        long expectedArrival = 3 * (serialization + link.delayNanos()); // uplink, fabric path, downlink

        assertEquals(1, a.allocate(batch, 1));
        long sentAddress = batch.address(0);
        SimFrames.writeUdp(batch.get(0), MAC_B, MAC_A, 1234, length, 7);
        assertEquals(1, a.transmit(batch));
        assertEquals(0, batch.count(), "transmit clears the batch");

        network.clock().advanceTo(expectedArrival - 1);
        assertEquals(0, b.receive(batch), "arrived before the configured delay");
        assertEquals(expectedArrival, network.nextEventTime());

        network.clock().advanceTo(expectedArrival);
        assertEquals(1, b.receive(batch));
        Mbuf frame = batch.get(0);
        assertEquals(sentAddress, frame.address(), "zero copy: the sender's buffer is what arrives");
        assertEquals(length, frame.dataLength());
        assertEquals(length, frame.packetLength());
        assertEquals(b.id(), frame.port());
        assertEquals(128, frame.dataOffset());
        assertArrayEquals(SimFrames.expectedUdp(MAC_B, MAC_A, 1234, length, 7), SimFrames.bytes(frame));
        b.free(batch);

        assertEquals(1, a.counters().txFrames());
        assertEquals(1, b.counters().rxFrames());
        assertEquals(0, network.totals().dropped());
        assertEquals(0, network.pool().inUse());
        assertEquals(Long.MAX_VALUE, network.nextEventTime());
    }

    @Test
    void shouldDeliverInSendOrderOnAFaultFreeNetwork() {
        SimPort a = network.addHost(MAC_A);
        network.addHost(MAC_B);
        for (int round = 0; round < 10; round++) {
            SimFrames.send(a, batch, MAC_B, 1, 512, round * 32, 32);
        }
        List<Integer> received = new ArrayList<>();
        SimFrames.runUntilIdle(network, batch, (port, frame, now) -> received.add(SimFrames.sequence(frame)));
        assertEquals(320, received.size());
        for (int i = 0; i < received.size(); i++) {
            assertEquals(i, received.get(i));
        }
        assertEquals(0, network.pool().inUse());
    }

    @Test
    void shouldDeliverOnlyToTheHostWithTheDestinationMac() {
        SimPort a = network.addHost(MAC_A);
        SimPort b = network.addHost(MAC_B);
        SimPort c = network.addHost(MAC_C);
        SimFrames.send(a, batch, MAC_B, 1, 100, 0, 3);
        SimFrames.send(a, batch, MAC_C, 1, 100, 100, 5);
        List<String> got = new ArrayList<>();
        SimFrames.runUntilIdle(network, batch, (port, frame, now) -> {
            assertEquals(port.macAddress(), MacAddress.read(frame.data(), 0));
            got.add(port.id() + ":" + SimFrames.sequence(frame));
        });
        assertEquals(List.of("1:0", "1:1", "1:2", "2:100", "2:101", "2:102", "2:103", "2:104"), got);
        assertEquals(3, b.counters().rxFrames());
        assertEquals(5, c.counters().rxFrames());
        assertEquals(0, a.counters().rxFrames());
        assertEquals(0, network.pool().inUse());
    }

    @Test
    void shouldBroadcastToEveryOtherHost() {
        SimPort a = network.addHost(MAC_A);
        network.addHost(MAC_B);
        network.addHost(MAC_C);
        network.addHost(MAC_D);
        SimFrames.send(a, batch, MacAddress.BROADCAST, 9, 300, 5, 1);
        byte[] expected = SimFrames.expectedUdp(MacAddress.BROADCAST, MAC_A, 9, 300, 5);
        List<Integer> receivers = new ArrayList<>();
        SimFrames.runUntilIdle(network, batch, (port, frame, now) -> {
            receivers.add(port.id());
            assertArrayEquals(expected, SimFrames.bytes(frame));
            assertEquals(port.id(), frame.port());
        });
        receivers.sort(null);
        assertEquals(List.of(1, 2, 3), receivers);
        assertEquals(1, a.counters().txFrames());
        assertEquals(3, network.totals().rxFrames());
        assertEquals(0, network.pool().inUse());
    }

    @Test
    void shouldCountABroadcastWithNoOtherHostAsUnknownDestination() {
        SimPort a = network.addHost(MAC_A);
        SimFrames.send(a, batch, MacAddress.BROADCAST, 9, 300, 5, 1);
        SimFrames.runUntilIdle(network, batch, (port, frame, now) -> {
            throw new AssertionError("nobody to deliver to");
        });
        assertEquals(1, a.counters().unknownDestination());
        assertEquals(0, network.pool().inUse());
    }

    @Test
    void shouldRunWithoutLoadingDpdk() throws IOException {
        SimPort a = network.addHost(MAC_A);
        network.addHost(MAC_B);
        SimFrames.send(a, batch, MAC_B, 1, 64, 0, 4);
        SimFrames.runUntilIdle(network, batch, (port, frame, now) -> { });
        assertEquals(4, network.totals().rxFrames());

        String maps = Files.readString(Path.of("/proc/self/maps"));
        assertFalse(maps.contains("librte_"), "a DPDK library is mapped into the sim test JVM");
        assertFalse(maps.contains("srdnic_shim"), "the DPDK shim is mapped into the sim test JVM");
        assertEquals(SimFrames.NO_SHIM, System.getProperty(Dpdk.SHIM_PATH_PROPERTY));
        assertFalse(Dpdk.available(), "an accidental native load must fail in sim tests");
        assertEquals(0, network.pool().inUse());
    }
}
