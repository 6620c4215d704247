package io.srdnic.verbs;

import io.srdnic.srd.api.WcOpcode;

/**
 * An embedded completion queue: the transport's {@link io.srdnic.srd.api.CompletionQueue}, polled
 * into the caller's reusable {@link WorkCompletion}s. Polling an empty one runs the duty cycle in
 * INVOKER mode; polling one that holds completions transmits what was posted since.
 */
final class EmbeddedCq implements VerbsProvider.Cq,
        io.srdnic.srd.api.CompletionQueue.CompletionSink { // fully qualified: the facade has one too
    final io.srdnic.srd.api.CompletionQueue ring; // fully qualified: the facade has one too
    private final EmbeddedProvider provider;
    private WorkCompletion[] target;
    private int filled;

    EmbeddedCq(EmbeddedProvider provider, int depth) {
        this.provider = provider;
        this.ring = new io.srdnic.srd.api.CompletionQueue(depth); // fully qualified: the facade has one too
    }

    @Override
    public int poll(WorkCompletion[] out, int max) {
        if (ring.size() == 0) {
            provider.dataplane.progress();
        } else {
            provider.dataplane.transmitPosted();
        }
        return take(out, max);
    }

    @Override
    public int pollCompleted(WorkCompletion[] out, int max) {
        return take(out, max);
    }

    private int take(WorkCompletion[] out, int max) {
        target = out;
        filled = 0;
        ring.poll(this, Math.min(max, out.length));
        target = null;
        return filled;
    }

    @Override
    public void destroy() {
        // the transport's CQ is the QPs' to drop; nothing of it is left once they are destroyed
    }

    @Override
    public long overruns() {
        return ring.overruns();
    }

    @Override
    public void onCompletion(long wrId, int status, int opcode, int byteLength, boolean hasImmediate, int immediate, int qpn,
                             int sourceQpn, int sourceIp) {
        WorkCompletion wc = target[filled++];
        wc.wrId = wrId;
        wc.status = status;
        wc.opcode = opcode;
        wc.byteLength = byteLength;
        wc.hasImmediate = hasImmediate;
        wc.immediate = immediate;
        wc.qpNum = qpn;
        wc.sourceQpn = sourceQpn;
        wc.sourceIp = sourceIp;
        if (opcode == WcOpcode.RECV || opcode == WcOpcode.RECV_WITH_IMM || opcode == WcOpcode.RECV_RDMA_WITH_IMM) {
            provider.receiveConsumed(qpn);
        }
    }
}
