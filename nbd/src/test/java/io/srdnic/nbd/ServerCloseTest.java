package io.srdnic.nbd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.block.local.MemoryBlockDevice;
import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Files;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Closing the server: what clients sent is answered, then they are hung up on; the socket file goes. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ServerCloseTest {
    @Test
    void shouldAnswerWhatIsInFlightThenHangUpAndRemoveTheSocket() throws Exception {
        InFlightTest.HeldDevice device = new InFlightTest.HeldDevice();
        try (TestServer server = new TestServer(new Export("held", device)); RawClient c = server.client();
             RawClient negotiating = server.client()) {
            c.go("held", false);
            c.request(0, Nbd.CMD_FLUSH, 7, 0, 0, null);
            InFlightTest.HeldDevice.Held held = device.next();
            Thread closer = Thread.ofPlatform().start(server.server::close);
            Thread.sleep(200);
            assertTrue(closer.isAlive(), "close waits for the request in flight");
            assertFalse(Files.exists(server.dir.resolve("nbd.sock")), "no new clients: the socket file is gone at once");
            held.done().complete(0);
            assertEquals(7, c.reply(0).handle(), "the request in flight is answered");
            assertTrue(c.closedByServer());
            assertTrue(negotiating.closedByServer(), "a client still negotiating is hung up on too");
            closer.join();
            assertEquals(0, server.server.clientCount());
        }
    }

    @Test
    void shouldRefuseASocketPathThatExists() throws IOException {
        try (TestServer server = new TestServer(new Export("m", new MemoryBlockDevice(1, false)))) {
            NbdServer other = new NbdServer(server.exports);
            assertThrows(IOException.class, () -> other.listen(UnixDomainSocketAddress.of(server.dir.resolve("nbd.sock"))));
            other.close();
            assertTrue(Files.exists(server.dir.resolve("nbd.sock")), "the first server's socket is left alone");
        }
    }
}
