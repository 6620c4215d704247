package io.srdnic.rnbd.server;

import io.srdnic.block.BlockDevice;

/** A backing device open on the server and who has it: every opener, and the writers among them (RW and MIGRATION). */
final class ServedDevice {
    final String name;
    final BlockDevice device;
    final boolean memory;
    int openers;
    int writers;

    ServedDevice(String name, BlockDevice device, boolean memory) {
        this.name = name;
        this.device = device;
        this.memory = memory;
    }
}
