package io.srdnic.dataplane;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A dataplane's memif ports get file sockets in the run directory unless their spec says otherwise (DPDK 22.11's default is abstract). */
class MemifSocketsTest {
    private static final Path DIR = Path.of("/run/srdnic");

    @Test
    void shouldMakeAMemifSocketAFileUnlessTheSpecSaysOtherwise() {
        assertEquals("net_memif0,role=server,socket=/run/srdnic/net_memif0.sock,socket-abstract=no",
            MemifSockets.withDefaults("net_memif0,role=server", DIR), "no socket given: one in the run directory, not abstract");
        assertEquals("net_memif1,role=client,socket=/tmp/m.sock,socket-abstract=no",
            MemifSockets.withDefaults("net_memif1,role=client,socket=/tmp/m.sock", DIR), "the path given, as a file");
        assertEquals("net_memif0,role=server,socket=/tmp/m.sock,socket-abstract=yes",
            MemifSockets.withDefaults("net_memif0,role=server,socket=/tmp/m.sock,socket-abstract=yes", DIR), "the user's choice stands");
        assertEquals("net_ring0", MemifSockets.withDefaults("net_ring0", DIR), "other devices as given");
        assertEquals(List.of(Path.of("/run/srdnic/net_memif0.sock")), MemifSockets.serverSocketFiles(List.of(
            MemifSockets.withDefaults("net_memif0,role=server", DIR), MemifSockets.withDefaults("net_memif1,role=client", DIR),
            "net_memif2,role=server,socket=/x,socket-abstract=yes")), "servers' file sockets only");
    }
}
