package io.srdnic.srd.transport.port;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The address handle table: grown as handles are created, never past its capacity. */
class AddressHandlesTest {
    @Test
    void shouldKeepEveryHandleWhileTheTableGrows() {
        AddressHandles handles = new AddressHandles(1000);
        for (int i = 1; i < 1000; i++) {
            assertEquals(i, handles.create(0x02_0000_0000L | i, 0x0A00_0000 | i, 4791 + i), "handles are issued 1, 2, 3, ...");
        }
        assertEquals(-1, handles.create(1, 1, 1), "handle 0 is never issued: a table of 1000 holds 999");
        for (int i = 1; i < 1000; i++) {
            assertTrue(handles.isLive(i));
            assertEquals(0x02_0000_0000L | i, handles.mac(i));
            assertEquals(0x0A00_0000 | i, handles.ip(i));
            assertEquals(4791 + i, handles.port(i));
        }
        assertFalse(handles.isLive(0));
        assertFalse(handles.isLive(1000));
        assertFalse(handles.isLive(-1));
    }

    @Test
    void shouldReuseTheLastDestroyedHandleBeforeAFreshOne() {
        AddressHandles handles = new AddressHandles(65536);
        int a = handles.create(1, 0x0A00_0002, 4791);
        int b = handles.create(2, 0x0A00_0003, 4791);
        handles.destroy(a);
        assertFalse(handles.isLive(a));
        assertTrue(handles.isLive(b));
        assertEquals(a, handles.create(3, 0x0A00_0004, 4791));
        assertEquals(0x0A00_0004, handles.ip(a), "a reused handle says where its new remote is");
        assertEquals(b + 1, handles.create(4, 0x0A00_0005, 4791));
        assertFalse(handles.isLive(b + 2), "a handle never issued is not live, though the table has room for it");
    }
}
