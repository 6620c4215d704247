package io.srdnic.cli.pktgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** When a pktgen run passes, and how a side's result line crosses between processes. */
class PktgenResultTest {

    @Test
    void shouldPassOnlyWhenEveryLostFrameWasCountedAsDroppedByTheLink() {
        assertTrue(new PktgenResult(100, 100, 0, 0, 0, 0, 1.0).passed(100));
        assertTrue(new PktgenResult(100, 90, 0, 0, 0, 10, 1.0).passed(100), "ten lost, ten counted");
        assertFalse(new PktgenResult(100, 90, 0, 0, 0, 9, 1.0).passed(100), "one frame vanished");
        assertFalse(new PktgenResult(99, 99, 0, 0, 0, 0, 1.0).passed(100), "one never sent");
        assertFalse(new PktgenResult(100, 100, 1, 0, 0, 0, 1.0).passed(100), "corrupted");
        assertFalse(new PktgenResult(100, 100, 0, 1, 0, 0, 1.0).passed(100), "duplicated");
    }

    @Test
    void shouldReadBackWhatItWrites() {
        PktgenResult r = new PktgenResult(200000, 196928, 1, 2, 3, 3072, 0.25);
        assertEquals(r, PktgenResult.parse(r.json()));
    }

    @Test
    void shouldFindTheKernelInterfaceOfAVdevSpec() {
        assertEquals("vethB", LinkDrops.interfaceOf("net_af_xdp0,start_queue=0,queue_count=1,iface=vethB"));
        assertEquals("tap0", LinkDrops.interfaceOf("net_af_packet0,iface=tap0,qpairs=1"));
        assertNull(LinkDrops.interfaceOf("net_memif0,role=server,id=0"));
        assertNull(LinkDrops.interfaceOf("net_af_xdp0,iface="));
    }
}
