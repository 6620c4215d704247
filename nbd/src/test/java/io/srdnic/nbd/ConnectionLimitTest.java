package io.srdnic.nbd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.srdnic.block.local.MemoryBlockDevice;
import java.io.EOFException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** At most maxConnections clients at once: one more is hung up on before the greeting and counted; a freed place is taken again. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ConnectionLimitTest {
    @Test
    void shouldRefuseAClientOverTheLimitAndAcceptOneWhenAPlaceIsFree() throws Exception {
        try (TestServer server = new TestServer(ServerLimits.defaults().withMaxConnections(2),
                new Export("d", new MemoryBlockDevice(1 << 20, false)));
             RawClient first = server.client()) {
            first.go("d", false);
            RawClient second = server.client();
            second.go("d", false);
            assertThrows(EOFException.class, () -> RawClient.connect(server.address), "the third client gets no greeting");
            assertEquals(1, server.server.refusedConnections());
            second.close();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (server.server.clientCount() > 1 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            try (RawClient again = server.client()) {
                again.go("d", false);
                again.request(0, Nbd.CMD_FLUSH, 5, 0, 0, null);
                assertEquals(5, again.reply(0).handle());
            }
        }
    }
}
