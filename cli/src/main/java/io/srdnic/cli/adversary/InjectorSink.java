package io.srdnic.cli.adversary;

import io.srdnic.pmd.fault.InjectingPacketIo;
import java.lang.foreign.MemorySegment;

/** Frames into the victim's own port decorator: they reach its transport with the next receive burst. */
public record InjectorSink(InjectingPacketIo port) implements FrameSink {

    @Override
    public boolean offer(MemorySegment frame, int length) {
        return port.inject(frame, length);
    }

    @Override
    public long injected() {
        return port.injected();
    }

    @Override
    public String describe() {
        return "an injecting decorator on the victim's port";
    }
}
