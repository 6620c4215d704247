package io.srdnic.srd.transport.srd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import org.junit.jupiter.api.Test;

class FlowKeyTest {

    @Test
    void shouldGiveBackTheAddressAndPortItPacked() {
        int[] ips = {0x0A00_0001, 0xC0A8_0101, 0xDFFF_FFFE, 1};
        int[] ports = {1, 21330, 49152, 65535};
        for (int ip : ips) {
            for (int port : ports) {
                long key = FlowKey.pack(ip, port);
                assertEquals(ip, FlowKey.ip(key), Integer.toHexString(ip));
                assertEquals(port, FlowKey.port(key));
            }
        }
    }

    @Test
    void shouldTellApartDevicesBehindOneAddress() {
        assertNotEquals(FlowKey.pack(0x0A00_0001, 21330), FlowKey.pack(0x0A00_0001, 21331));
        assertEquals("10.0.0.1:21331", FlowKey.toString(FlowKey.pack(0x0A00_0001, 21331)));
    }

    @Test
    void shouldTellApartOnePortAtTwoAddresses() {
        assertNotEquals(FlowKey.pack(0x0A00_0001, 21330), FlowKey.pack(0x0A00_0002, 21330));
    }

    @Test
    void shouldNeverBeZeroForAUsablePeer() {
        // The map reserves key 0: a usable source (not 0.0.0.0) on a real port never packs to it.
        assertNotEquals(0L, FlowKey.pack(0x0A00_0001, 0));
        assertNotEquals(0L, FlowKey.pack(0, 1));
    }
}
