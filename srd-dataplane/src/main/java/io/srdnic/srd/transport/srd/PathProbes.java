package io.srdnic.srd.transport.srd;

import io.srdnic.pmd.Mbuf;
import io.srdnic.srd.counters.SrdCounters;
import io.srdnic.srd.transport.engine.ReliableSender;
import io.srdnic.srd.transport.port.FrameWriter;
import io.srdnic.srd.transport.port.TxBurst;
import io.srdnic.srd.wire.Ipv4UdpFrame;
import io.srdnic.srd.wire.PacketType;
import io.srdnic.srd.wire.SrdHeader;

/**
 * SRD's path probes, both ends: a path a context has avoided long enough (losses were seen on it)
 * is probed before it carries data again; a probe received is answered back on the path it came
 * by; a reply ends the probe of the path it names. Probes and replies are SRD headers without
 * payload or QPs.
 */
public final class PathProbes {
    private final TxBurst tx;
    private final FrameWriter frames;
    private final ContextTable contexts;
    private final SrdCounters counters;
    private final int epoch;

    public PathProbes(TxBurst tx, FrameWriter frames, ContextTable contexts, SrdCounters counters, int epoch) {
        this.tx = tx;
        this.frames = frames;
        this.contexts = contexts;
        this.counters = counters;
        this.epoch = epoch;
    }

    /** Probes {@code path} of {@code ctx}, which has been avoided long enough, and waits for the reply. */
    public void probe(SrdContext ctx, int path, long now) {
        ReliableSender sender = ctx.sender;
        send(ctx, path, now);
        sender.paths.onProbeSent(path, now, Math.max(sender.rtt.rto(), 4 * sender.rtt.srtt()));
    }

    private void send(SrdContext ctx, int path, long now) {
        long address = tx.take();
        if (address == 0) {
            return;
        }
        Mbuf m = tx.view.wrap(address);
        writeHeader(m, PacketType.PROBE, ctx.id, ctx.remoteContextId, path, ctx.sender.sendBase, now);
        frames.onPath(m, ctx.remoteMac, ctx.remoteIp, ctx.remotePort, path, SrdHeader.LENGTH);
        counters.txProbes++;
        tx.emit(address);
    }

    /** A probe from a peer: answered at once, back on its path, echoing its path number and timestamp. */
    public void onProbe(Mbuf m) {
        counters.rxProbes++;
        long address = tx.take();
        if (address == 0) {
            return;
        }
        SrdContext ctx = contexts.existing(contexts.flowFrom(Ipv4UdpFrame.sourceIp(m)));
        Mbuf reply = tx.view.wrap(address);
        writeHeader(reply, PacketType.PROBE_REPLY, ctx == null ? 0 : ctx.id, SrdHeader.sourceContext(m),
            SrdHeader.psn(m), 0, SrdHeader.timestamp(m));
        frames.answer(reply, Ipv4UdpFrame.sourceMac(m), Ipv4UdpFrame.sourceIp(m), Ipv4UdpFrame.sourcePort(m), SrdHeader.LENGTH);
        tx.emit(address);
    }

    /** The reply to one of our probes: the path it names carries data again. */
    public void onProbeReply(Mbuf m) {
        counters.rxProbes++;
        SrdContext ctx = contexts.existing(contexts.flowFrom(Ipv4UdpFrame.sourceIp(m)));
        if (ctx != null && SrdHeader.destinationContext(m) == ctx.id) {
            ctx.sender.paths.onProbeReply(SrdHeader.psn(m));
        }
    }

    /** The header of a packet without payload or QPs. */
    private void writeHeader(Mbuf m, int type, int srcContext, int dstContext, int psn, int sendBase, long timestamp) {
        SrdHeader.write(m, type, 0, 0, srcContext, dstContext, epoch, psn, sendBase, 0, 0, 0, 0, timestamp);
    }
}
