package io.srdnic.pmd.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.MbufBatch;
import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class SimBlackholeTest {
    static {
        SimFrames.forbidNativeDpdk();
    }

    static final long MAC_A = 0x02_00_00_00_00_0AL;
    static final long MAC_B = 0x02_00_00_00_00_0BL;
    static final int PATHS = 4;
    static final int DEAD = 2;
    static final int FIRST_PORT = 1000;
    static final int FLOWS = 1000;

    private final Arena arena = Arena.ofConfined();
    private final MbufBatch batch = new MbufBatch(arena, 1);
    private SimNetwork network;
    private SimPort a;
    private SimPort b;

    @BeforeEach
    void setUp() {
        network = new SimNetwork(5, SimNetwork.Config.builder().pathCount(PATHS).build());
        a = network.addHost(MAC_A);
        b = network.addHost(MAC_B);
    }

    @AfterEach
    void tearDown() {
        assertEquals(0, network.pool().inUse(), "leaked buffers");
        network.close();
        arena.close();
    }

    /** One frame per UDP source port FIRST_PORT.., then runs until idle; returns the frames per path received. */
    private int[] sendOnEveryFlowAndCountByPath() {
        for (int i = 0; i < FLOWS; i++) {
            SimFrames.send(a, batch, MAC_B, FIRST_PORT + i, 100, i, 1);
        }
        int[] perPath = new int[PATHS];
        SimFrames.runUntilIdle(network, batch,
            (port, frame, now) -> perPath[UdpSourcePortSelector.udpSourcePort(frame) % PATHS]++);
        return perPath;
    }

    @Test
    void shouldSprayFlowsOverPathsByUdpSourcePort() {
        List<Integer> tracedPaths = new ArrayList<>();
        network.trace((time, event, from, to, path, length) -> {
            if (event == SimEvent.DELIVERED) {
                tracedPaths.add(path);
            }
        });
        for (int i = 0; i < FLOWS; i++) {
            SimFrames.send(a, batch, MAC_B, FIRST_PORT + i, 100, i, 1);
        }
        List<Integer> expectedPaths = new ArrayList<>();
        SimFrames.runUntilIdle(network, batch,
            (port, frame, now) -> expectedPaths.add(UdpSourcePortSelector.udpSourcePort(frame) % PATHS));
        assertEquals(FLOWS, tracedPaths.size());
        assertEquals(expectedPaths, tracedPaths, "one RX ring: frames are received in the order they were delivered");
        for (int p = 0; p < PATHS; p++) {
            assertEquals(FLOWS / PATHS, Collections.frequency(tracedPaths, p), "path " + p);
        }
    }

    @Test
    void shouldDropEveryFrameOnABlackholedPathButNoOther() {
        network.blackhole(DEAD, true);
        assertTrue(network.isBlackholed(DEAD));
        int[] perPath = sendOnEveryFlowAndCountByPath();
        assertEquals(0, perPath[DEAD]);
        for (int p = 0; p < PATHS; p++) {
            if (p != DEAD) {
                assertEquals(FLOWS / PATHS, perPath[p], "path " + p);
            }
        }
        assertEquals(FLOWS / PATHS, a.counters().blackholed());
        assertEquals(FLOWS - FLOWS / PATHS, b.counters().rxFrames());
    }

    @Test
    void shouldDeliverAgainWhenABlackholedPathIsRevived() {
        network.blackhole(DEAD, true);
        sendOnEveryFlowAndCountByPath();
        network.blackhole(DEAD, false);
        assertFalse(network.isBlackholed(DEAD));
        int[] perPath = sendOnEveryFlowAndCountByPath();
        for (int p = 0; p < PATHS; p++) {
            assertEquals(FLOWS / PATHS, perPath[p], "path " + p);
        }
        assertEquals(FLOWS / PATHS, a.counters().blackholed(), "no new blackhole drops after revival");
    }

    @Test
    void shouldDropFramesAlreadyOnAPathWhenItDies() {
        int flows = 100;
        for (int i = 0; i < flows; i++) {
            SimFrames.send(a, batch, MAC_B, FIRST_PORT + i, 100, i, 1);
        }
        // 100 frames of 100 bytes leave the 100G uplink within 800 ns and reach the fabric 2 us later; none
        // leaves its path before 4 us. At 3 us every frame is on a path: kill one.
        network.clock().advanceTo(3_000);
        network.deliverDue();
        assertEquals(flows, network.inFlight());
        network.blackhole(DEAD, true);
        int[] perPath = new int[PATHS];
        SimFrames.runUntilIdle(network, batch,
            (port, frame, now) -> perPath[UdpSourcePortSelector.udpSourcePort(frame) % PATHS]++);
        assertEquals(0, perPath[DEAD]);
        assertEquals(flows / PATHS, a.counters().blackholed());
        for (int p = 0; p < PATHS; p++) {
            if (p != DEAD) {
                assertEquals(flows / PATHS, perPath[p], "path " + p);
            }
        }
    }

    @Test
    void shouldDropEveryFrameOfACutHostLinkUntilItIsRestored() {
        SimPort c = network.addHost(0x02_00_00_00_00_0CL);
        int[] received = new int[2];
        network.blackholeHost(b.id(), true);
        for (int i = 0; i < 10; i++) {
            SimFrames.send(a, batch, MAC_B, FIRST_PORT + i, 100, i, 1); // to the cut host
            SimFrames.send(b, batch, MAC_A, FIRST_PORT + i, 100, i, 1); // from it
            SimFrames.send(a, batch, 0x02_00_00_00_00_0CL, FIRST_PORT + i, 100, i, 1); // elsewhere: unaffected
        }
        SimFrames.runUntilIdle(network, batch, (port, frame, now) -> received[port == c ? 1 : 0]++);
        assertEquals(0, received[0], "nothing crosses the cut link, either way");
        assertEquals(10, received[1]);
        assertEquals(10, a.counters().blackholed(), "frames to the cut host are counted as their sender's");
        assertEquals(10, b.counters().blackholed(), "and the cut host's own");
        network.blackholeHost(b.id(), false);
        for (int i = 0; i < 10; i++) {
            SimFrames.send(a, batch, MAC_B, FIRST_PORT + i, 100, i, 1);
        }
        SimFrames.runUntilIdle(network, batch, (port, frame, now) -> received[0]++);
        assertEquals(10, received[0], "restored: delivered again");
    }
}
