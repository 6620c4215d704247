package io.srdnic.verbs;

import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.PacketIo;

/** A port that receives nothing and drops what it is given: a context on a device of this machine without DPDK. */
public final class SilentPort implements PacketIo {
    /** Receive bursts asked for: a duty cycle asks for one. */
    int receives;

    @Override
    public int receive(MbufBatch batch) {
        receives++;
        batch.clear();
        return 0;
    }

    @Override
    public int transmit(MbufBatch batch) {
        batch.clear();
        return 0;
    }

    @Override
    public int allocate(MbufBatch batch, int n) {
        return 0;
    }

    @Override
    public void free(MbufBatch batch) {
        batch.clear();
    }

    @Override
    public int maxFrameLength() {
        return 4096 + 128;
    }

    @Override
    public long macAddress() {
        return 0x02_00_00_00_00_09L;
    }

    @Override
    public long txDropped() {
        return 0;
    }
}
