package io.srdnic.srd.transport.port;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.srdnic.srd.transport.srd.FlowKey;
import org.junit.jupiter.api.Test;

class LongIntMapTest {

    @Test
    void shouldKeepKeysApartThatDifferOnlyInTheirPort() {
        LongIntMap map = new LongIntMap(4);
        for (int port = 1; port <= 200; port++) { // grows several times, runs of collisions included
            map.put(FlowKey.pack(0x0A00_0001, port), port);
        }
        assertEquals(200, map.size());
        for (int port = 1; port <= 200; port++) {
            assertEquals(port, map.get(FlowKey.pack(0x0A00_0001, port)));
        }
        assertEquals(LongIntMap.MISSING, map.get(FlowKey.pack(0x0A00_0002, 1)), "same port, another address");
    }

    @Test
    void shouldFindTheRestOfAProbeRunAfterARemove() {
        LongIntMap map = new LongIntMap(64);
        for (int i = 1; i <= 40; i++) {
            map.put(FlowKey.pack(0x0A00_0000 + i, 21330), i);
        }
        for (int i = 1; i <= 40; i += 2) {
            map.remove(FlowKey.pack(0x0A00_0000 + i, 21330));
        }
        assertEquals(20, map.size());
        for (int i = 1; i <= 40; i++) {
            assertEquals(i % 2 == 0 ? i : LongIntMap.MISSING, map.get(FlowKey.pack(0x0A00_0000 + i, 21330)));
        }
    }

    @Test
    void shouldNeverAnswerOrCountTheReservedKey() {
        LongIntMap map = new LongIntMap(4);
        map.put(7, 3);
        assertEquals(LongIntMap.MISSING, map.get(0));
        map.remove(0);
        assertEquals(1, map.size(), "removing the reserved key removes nothing");
    }
}
