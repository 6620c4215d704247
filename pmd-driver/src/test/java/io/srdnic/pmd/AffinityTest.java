package io.srdnic.pmd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** Pinning a thread for a while and giving it its CPU set back (perf pins each side's polling thread for its run). */
class AffinityTest {

    @Test
    void shouldPinTheCallingThreadToOneCpu() {
        byte[] before = Affinity.currentThreadCpus();
        Affinity.pinCurrentThread(0);
        try {
            byte[] pinned = Affinity.currentThreadCpus();
            assertEquals(1, pinned[0], "only CPU 0");
            for (int i = 1; i < pinned.length; i++) {
                assertEquals(0, pinned[i]);
            }
        } finally {
            Affinity.restoreCurrentThread(before);
        }
    }

    @Test
    void shouldPutTheCallingThreadsCpuSetBack() {
        byte[] before = Affinity.currentThreadCpus();
        Affinity.pinCurrentThread(0);
        Affinity.restoreCurrentThread(before);
        assertArrayEquals(before, Affinity.currentThreadCpus());
    }

    @Test
    void shouldWriteACpuSetAsEalReadsACpuList() {
        assertEquals("1", Affinity.cpuList(new byte[] {2}));
        assertEquals("0-1", Affinity.cpuList(new byte[] {3}));
        assertEquals("0,2-4,9", Affinity.cpuList(new byte[] {(byte) 0b0001_1101, 0b10}));
        assertEquals("7-8", Affinity.cpuList(new byte[] {(byte) 0x80, 1}));
        assertThrows(IllegalArgumentException.class, () -> Affinity.cpuList(new byte[16]), "an empty set names no CPU to run on");
    }

    @Test
    void shouldRefuseACpuOutsideTheSet() {
        assertThrows(IllegalArgumentException.class, () -> Affinity.pinCurrentThread(-1));
        assertThrows(IllegalArgumentException.class, () -> Affinity.pinCurrentThread(1024));
    }
}
