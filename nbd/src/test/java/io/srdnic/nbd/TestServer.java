package io.srdnic.nbd;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** An NbdServer on a unix socket in a temporary directory, closed (socket and devices) after the test. */
final class TestServer implements AutoCloseable {
    final NbdServer server;
    final Exports exports;
    final Path dir;
    final SocketAddress address;

    TestServer(Export... exports) {
        this(ServerLimits.defaults(), exports);
    }

    TestServer(ServerLimits limits, Export... exports) {
        try {
            this.exports = new Exports(List.of(exports));
            this.dir = Files.createTempDirectory("nbd-test");
            this.server = new NbdServer(this.exports, limits);
            this.address = server.listen(UnixDomainSocketAddress.of(dir.resolve("nbd.sock")));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    RawClient client() throws IOException {
        return RawClient.connect(address);
    }

    @Override
    public void close() throws IOException {
        server.close();
        exports.closeAll();
        Files.deleteIfExists(dir.resolve("nbd.sock"));
        Files.delete(dir);
    }
}
