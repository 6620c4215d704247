package io.srdnic.pmd.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import java.lang.foreign.Arena;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class UdpSourcePortSelectorTest {
    static {
        SimFrames.forbidNativeDpdk();
    }

    private final Arena arena = Arena.ofConfined();
    private final SimBufferPool pool = new SimBufferPool(arena, 1);
    private final MbufBatch batch = new MbufBatch(arena, 1);
    private Mbuf frame;

    @BeforeEach
    void setUp() {
        pool.allocate(batch, 1, 0);
        frame = batch.get(0);
        SimFrames.writeUdp(frame, 2, 1, 4103, 100, 0);
    }

    @AfterEach
    void tearDown() {
        pool.free(batch);
        arena.close();
    }

    @Test
    void shouldTakeTheUdpSourcePortModuloThePathCount() {
        assertEquals(4103, UdpSourcePortSelector.udpSourcePort(frame));
        assertEquals(4103 % 4, PathSelector.UDP_SOURCE_PORT.selectPath(frame, 4));
        assertEquals(4103 % 7, PathSelector.UDP_SOURCE_PORT.selectPath(frame, 7));
        assertEquals(0, PathSelector.UDP_SOURCE_PORT.selectPath(frame, 1));
    }

    @Test
    void shouldFindThePortBehindIpv4Options() {
        frame.putByte(14, (byte) 0x46); // IHL 6: four bytes of options push UDP to offset 38
        frame.putShortBE(38, (short) 60001);
        assertEquals(60001, UdpSourcePortSelector.udpSourcePort(frame));
        assertEquals(60001 % 3, PathSelector.UDP_SOURCE_PORT.selectPath(frame, 3));
    }

    @Test
    void shouldUsePathZeroForFramesThatAreNotIpv4Udp() {
        frame.putShortBE(12, (short) 0x0806); // ARP
        assertEquals(-1, UdpSourcePortSelector.udpSourcePort(frame));
        assertEquals(0, PathSelector.UDP_SOURCE_PORT.selectPath(frame, 4));

        frame.putShortBE(12, (short) 0x0800);
        frame.putByte(23, (byte) 6); // TCP
        assertEquals(-1, UdpSourcePortSelector.udpSourcePort(frame));

        frame.putByte(23, (byte) 17);
        frame.putShortBE(20, (short) 0x0010); // a later fragment: no UDP header in it
        assertEquals(-1, UdpSourcePortSelector.udpSourcePort(frame));

        frame.putShortBE(20, (short) 0x4000);
        frame.putByte(14, (byte) 0x44); // IHL below the minimum
        assertEquals(-1, UdpSourcePortSelector.udpSourcePort(frame));
    }

    @Test
    void shouldUsePathZeroForFramesTooShortToHoldThePort() {
        frame.frameLength(14 + 20 + 1);
        assertEquals(-1, UdpSourcePortSelector.udpSourcePort(frame));
        frame.frameLength(14 + 20 + 2);
        assertEquals(4103, UdpSourcePortSelector.udpSourcePort(frame));
    }
}
