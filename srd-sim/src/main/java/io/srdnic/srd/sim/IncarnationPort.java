package io.srdnic.srd.sim;

import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.PacketIo;

/**
 * One incarnation of a host's transport on the host's port. A crash ({@link #kill}) cuts it off:
 * from then on it receives nothing and whatever it still transmits (the old transport's
 * {@code close()} sends its owed ACKs) is freed, never sent; frames already on the wire, and those
 * waiting in the port's RX ring, are left for the next incarnation, as after a real restart.
 */
final class IncarnationPort implements PacketIo {
    private final PacketIo port;
    private boolean dead;

    IncarnationPort(PacketIo port) {
        this.port = port;
    }

    void kill() {
        dead = true;
    }

    @Override
    public int receive(MbufBatch batch) {
        if (dead) {
            batch.clear();
            return 0;
        }
        return port.receive(batch);
    }

    @Override
    public int transmit(MbufBatch batch) {
        if (dead) {
            port.free(batch);
            return 0;
        }
        return port.transmit(batch);
    }

    @Override
    public int allocate(MbufBatch batch, int n) {
        return port.allocate(batch, n);
    }

    @Override
    public void free(MbufBatch batch) {
        port.free(batch);
    }

    @Override
    public int maxFrameLength() {
        return port.maxFrameLength();
    }

    @Override
    public long macAddress() {
        return port.macAddress();
    }

    @Override
    public long txDropped() {
        return port.txDropped();
    }
}
