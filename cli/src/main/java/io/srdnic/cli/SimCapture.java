package io.srdnic.cli;

import io.srdnic.pmd.PacketIo;
import io.srdnic.pmd.pcap.CapturingPacketIo;
import io.srdnic.pmd.pcap.PcapWriter;
import io.srdnic.pmd.sim.SimPort;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.function.Function;

/** {@code srdnic sim --pcap}: every frame a simulated host sends goes to the file, stamped with virtual time. */
final class SimCapture {
    private SimCapture() {
    }

    /** Runs {@code run} with the port decorator it must apply to each host: a capture into {@code pcap}, or none when null. */
    static <T> T run(Path pcap, Function<Function<SimPort, PacketIo>, T> run) {
        if (pcap == null) {
            return run.apply(port -> port);
        }
        T result;
        try (PcapWriter writer = new PcapWriter(pcap)) {
            result = run.apply(port -> new CapturingPacketIo(port, writer, port.network().clock()::now));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + pcap + ": " + e.getMessage(), e);
        }
        System.err.println("sim: frames written to " + pcap);
        return result;
    }
}
