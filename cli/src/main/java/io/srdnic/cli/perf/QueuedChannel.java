package io.srdnic.cli.perf;

/** A channel whose incoming lines land in a {@link LineQueue} (filled by a reader or the peer). */
abstract class QueuedChannel implements Channel {
    final LineQueue in;

    QueuedChannel(String peer) {
        this.in = new LineQueue(peer);
    }

    @Override
    public String poll() {
        return in.poll();
    }

    @Override
    public String take(long timeoutMillis) {
        return in.take(timeoutMillis);
    }
}
