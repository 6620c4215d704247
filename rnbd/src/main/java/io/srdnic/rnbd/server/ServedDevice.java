package io.srdnic.rnbd.server;

import io.srdnic.block.BlockDevice;

/** A backing device open on the server and who has it: every opener, and the writers among them (RW and MIGRATION). */
final class ServedDevice {
    final String name;
    final BlockDevice device;
    final boolean memory;
    /** IO on it may wait on a disk: it runs on the server's IO workers, not the poll thread. */
    final boolean mayBlock;
    int openers;
    /** Requests on the IO workers (poll thread only). */
    int inFlight;
    /** Closed by its last opener with requests still on the workers: the last one's answer closes it. */
    boolean closeWhenIdle;
    int writers;

    ServedDevice(String name, BlockDevice device, boolean memory, boolean mayBlock) {
        this.name = name;
        this.device = device;
        this.memory = memory;
        this.mayBlock = mayBlock;
    }
}
