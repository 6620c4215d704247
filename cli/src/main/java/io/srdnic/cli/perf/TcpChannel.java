package io.srdnic.cli.perf;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/** The perftest-style side channel: one TCP connection, one line per message. */
final class TcpChannel extends QueuedChannel {
    private final Socket socket;
    private final Writer out;

    private TcpChannel(Socket socket, String peer) throws IOException {
        super(peer);
        this.socket = socket;
        socket.setTcpNoDelay(true);
        this.out = new OutputStreamWriter(socket.getOutputStream(), StandardCharsets.UTF_8);
        Thread reader = new Thread(this::read, "srdnic-perf-oob");
        reader.setDaemon(true);
        reader.start();
    }

    /** Listens on {@code port} (all addresses) and accepts one client. */
    static TcpChannel accept(int port, long timeoutMillis) {
        try (ServerSocket server = new ServerSocket()) {
            server.setReuseAddress(true);
            server.bind(new InetSocketAddress(port));
            server.setSoTimeout((int) Math.min(Integer.MAX_VALUE, timeoutMillis));
            System.err.println("perf server: waiting for a client on TCP port " + server.getLocalPort());
            Socket s = server.accept();
            return new TcpChannel(s, "the client " + s.getRemoteSocketAddress());
        } catch (SocketTimeoutException e) {
            throw new IllegalStateException("no client connected to TCP port " + port + " within " + timeoutMillis + " ms");
        } catch (IOException e) {
            throw new IllegalStateException("cannot listen on TCP port " + port + ": " + e.getMessage()
                + " (is another perf server running? pick another with --oob-port)", e);
        }
    }

    /** Connects to a server at {@code host:port}, retrying while it is not up yet. */
    static TcpChannel connect(String host, int port, long timeoutMillis) {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        while (true) {
            Socket s = new Socket();
            try {
                s.connect(new InetSocketAddress(host, port), 1000);
                return new TcpChannel(s, "the server " + host + ":" + port);
            } catch (ConnectException | SocketTimeoutException e) {
                closeQuietly(s);
                if (System.currentTimeMillis() > deadline) {
                    throw new IllegalStateException("no perf server at " + host + ":" + port + " (" + e.getMessage()
                        + "): start one with srdnic perf --server", e);
                }
                sleep(100);
            } catch (IOException e) {
                closeQuietly(s);
                throw new IllegalStateException("cannot reach " + host + ":" + port + ": " + e.getMessage(), e);
            }
        }
    }

    private void read() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                in.add(line);
            }
        } catch (IOException ignored) {
            // closed
        }
        in.end();
    }

    @Override
    public synchronized void send(String line) {
        try {
            out.write(line + "\n");
            out.flush();
        } catch (IOException e) {
            throw new IllegalStateException("side channel to the other side broke: " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        closeQuietly(socket);
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
