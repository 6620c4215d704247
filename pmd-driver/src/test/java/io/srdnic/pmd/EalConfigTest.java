package io.srdnic.pmd;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** lcore 0's default map, as EAL's --lcores parser reads it. */
class EalConfigTest {
    private static byte[] cpus(int... list) {
        byte[] set = new byte[128];
        for (int cpu : list) {
            set[cpu / 8] |= (byte) (1 << (cpu % 8));
        }
        return set;
    }

    @Test
    void shouldMapLcoreZeroToTheStartingThreadsCpus() {
        assertEquals("0@(1)", EalConfig.lcoreMap(cpus(1)));
        assertEquals("0@(0-3)", EalConfig.lcoreMap(cpus(0, 1, 2, 3)));
        assertEquals("0@(2-3,6)", EalConfig.lcoreMap(cpus(2, 3, 6)));
    }

    @Test
    void shouldNotStartARangeAtRteMaxLcore() {
        // EAL reads "128-255" as CPU 255 alone: 128 is its "no range start" marker
        assertEquals("0@(128,129-131)", EalConfig.lcoreMap(cpus(128, 129, 130, 131)));
        assertEquals("0@(64,128,129)", EalConfig.lcoreMap(cpus(64, 128, 129)));
        assertEquals("0@(127-130)", EalConfig.lcoreMap(cpus(127, 128, 129, 130)), "a range through 128 is read right");
    }
}
