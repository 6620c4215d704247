package io.srdnic.nbd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.srdnic.block.local.MemoryBlockDevice;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Several clients at once, on a unix socket and on loopback TCP, see each other's flushed writes. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class MultiConnectionTest {
    @Test
    void shouldShowAFlushedWriteOnOneConnectionToTheOthersOnUnixAndTcp() throws IOException {
        try (TestServer server = new TestServer(new Export("disk", new MemoryBlockDevice(1 << 20, false)))) {
            SocketAddress tcp = server.server.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            try (RawClient a = server.client(); RawClient b = RawClient.connect(tcp); RawClient c = server.client()) {
                assertEquals(Nbd.FLAG_CAN_MULTI_CONN, a.go("disk", false) & Nbd.FLAG_CAN_MULTI_CONN);
                b.go("disk", true);
                c.go("disk", false);
                byte[] data = "written on a, read on b and c".getBytes(StandardCharsets.UTF_8);
                a.request(0, Nbd.CMD_WRITE, 1, 100, data.length, data);
                assertEquals(0, a.reply(0).error());
                a.request(0, Nbd.CMD_FLUSH, 2, 0, 0, null);
                assertEquals(0, a.reply(0).error());
                b.request(0, Nbd.CMD_READ, 3, 100, data.length, null);
                byte[] viaB = b.reply(0).payload();
                assertArrayEquals(data, Arrays.copyOfRange(viaB, 8, viaB.length));
                c.request(0, Nbd.CMD_READ, 4, 100, data.length, null);
                assertArrayEquals(data, c.reply(data.length).payload());
                assertEquals(3, server.server.clientCount());
            }
        }
    }
}
