package io.srdnic.srd.transport.device;

import io.srdnic.pmd.ForwardingPacketIo;
import io.srdnic.pmd.PacketIo;

/**
 * A driver that frees transmitted mbufs only when it chooses: reclaimTransmitted does nothing (the
 * zero-copy tests' NIC that cannot be made to free early).
 */
final class NoReclaim extends ForwardingPacketIo {
    NoReclaim(PacketIo io) {
        super(io);
    }

    @Override
    public boolean transmitsExternalBuffers() {
        return true;
    }
}
