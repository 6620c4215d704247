package io.srdnic.cli.perf;

/** Two ends of an in-memory side channel, for the two threads of a one-process run. */
final class MemoryChannel extends QueuedChannel {
    private MemoryChannel peer;

    private MemoryChannel(String name) {
        super(name);
    }

    /** A connected pair: what one end sends, the other takes. */
    static MemoryChannel[] pair() {
        MemoryChannel a = new MemoryChannel("the server thread");
        MemoryChannel b = new MemoryChannel("the client thread");
        a.peer = b;
        b.peer = a;
        return new MemoryChannel[] {a, b};
    }

    @Override
    public void send(String line) {
        peer.in.add(line);
    }

    @Override
    public void close() {
        peer.in.end();
    }
}
