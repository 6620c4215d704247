package io.srdnic.dataplane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The dataplane's --config file: what it reads, and what it refuses with the line that says why. */
class DataplaneConfigFileTest {

    @Test
    void shouldReadOptionsPortsAndTransportSettings() {
        DataplaneConfigFile c = DataplaneConfigFile.parse("dp.conf", List.of(
            "# the NIC-bound host's dataplane",
            "port = net_memif0,role=server,socket=/run/a.sock",
            "port = net_memif1,role=server,socket=/run/b.sock   # second port",
            "",
            "lcores = 2",
            "cpu = 1,3",
            "busy-spin = true",
            "set.rto-min-us = 200"));
        assertEquals(List.of("net_memif0,role=server,socket=/run/a.sock", "net_memif1,role=server,socket=/run/b.sock"), c.values("port"));
        assertEquals("2", c.value("lcores"));
        assertEquals("1,3", c.value("cpu"));
        assertEquals("true", c.value("busy-spin"));
        assertNull(c.value("dir"));
        assertEquals(Map.of("rto-min-us", "200"), c.settings());
    }

    @Test
    void shouldRefuseWhatItCannotReadWithTheLine() {
        assertTrue(refused("lcores 2").startsWith("dp.conf line 2: expected key = value"));
        assertTrue(refused("lcore = 2").startsWith("dp.conf line 2: no option 'lcore'"));
        assertTrue(refused("ip =").startsWith("dp.conf line 2: ip has no value"));
        assertTrue(refused("lcores = 2\nlcores = 3".split("\n")).startsWith("dp.conf line 3: lcores is set twice"));
    }

    private static String refused(String... lines) {
        List<String> all = new ArrayList<>(List.of("# header"));
        all.addAll(List.of(lines));
        return assertThrows(IllegalArgumentException.class, () -> DataplaneConfigFile.parse("dp.conf", all)).getMessage();
    }
}
