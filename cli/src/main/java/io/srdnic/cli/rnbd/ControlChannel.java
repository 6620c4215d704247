package io.srdnic.cli.rnbd;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Function;

/**
 * nbd-local's control socket, next to its NBD socket ({@code PATH.ctl}): a client sends one line,
 * gets one answer and the connection closes. Lines: {@code path down I}, {@code path up I},
 * {@code stats}. Unix-socket permissions guard it as they guard the NBD socket.
 */
final class ControlChannel implements AutoCloseable {
    private final Path path;
    private final ServerSocketChannel server;
    private final Thread thread;

    private ControlChannel(Path path, ServerSocketChannel server, Function<String, String> handler) {
        this.path = path;
        this.server = server;
        this.thread = new Thread(() -> serve(handler), "srdnic-rtrs-control");
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /** The control socket of the NBD socket {@code nbdSocket}. */
    static Path pathFor(Path nbdSocket) {
        return Path.of(nbdSocket + ".ctl");
    }

    static ControlChannel open(Path path, Function<String, String> handler) throws IOException {
        ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        s.bind(UnixDomainSocketAddress.of(path));
        return new ControlChannel(path, s, handler);
    }

    private void serve(Function<String, String> handler) {
        while (server.isOpen()) {
            try (SocketChannel c = server.accept()) {
                String line = readLine(c);
                String answer;
                try {
                    answer = handler.apply(line.strip());
                } catch (RuntimeException e) {
                    answer = "error: " + e.getMessage();
                }
                c.write(ByteBuffer.wrap((answer + "\n").getBytes(StandardCharsets.UTF_8)));
            } catch (IOException e) {
                if (!server.isOpen()) {
                    return;
                }
            }
        }
    }

    private static String readLine(SocketChannel c) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(256);
        while (b.hasRemaining() && c.read(b) > 0) {
            if (b.get(b.position() - 1) == '\n') {
                break;
            }
        }
        return new String(b.array(), 0, b.position(), StandardCharsets.UTF_8);
    }

    /** Sends {@code line} to the control socket at {@code path} and returns the answer. */
    static String call(Path path, String line) throws IOException {
        try (SocketChannel c = SocketChannel.open(UnixDomainSocketAddress.of(path))) {
            c.write(ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8)));
            ByteBuffer b = ByteBuffer.allocate(1 << 16);
            while (c.read(b) > 0) {
                if (!b.hasRemaining()) {
                    break;
                }
            }
            return new String(b.array(), 0, b.position(), StandardCharsets.UTF_8).strip();
        }
    }

    @Override
    public void close() {
        try {
            server.close();
            Files.deleteIfExists(path);
        } catch (IOException ignored) {
            // best effort: the socket file goes with the process's directory otherwise
        }
    }
}
