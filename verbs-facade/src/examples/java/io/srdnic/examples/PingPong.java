package io.srdnic.examples;

import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.verbs.Access;
import io.srdnic.verbs.AddressHandle;
import io.srdnic.verbs.CompletionQueue;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.ContextConfig;
import io.srdnic.verbs.Device;
import io.srdnic.verbs.MemoryRegion;
import io.srdnic.verbs.ProtectionDomain;
import io.srdnic.verbs.QpInitAttributes;
import io.srdnic.verbs.QueuePair;
import io.srdnic.verbs.RecvWr;
import io.srdnic.verbs.SendWr;
import io.srdnic.verbs.SimWorld;
import io.srdnic.verbs.WorkCompletion;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * The smallest SRD program: two hosts bounce a message back and forth. Copy it and change the
 * Device lines to {@code Device.dpdk("net_memif0,role=server,socket=/run/m.sock")} (and the client
 * in another process) to run it over DPDK; here both hosts live on a simulated network in one
 * thread, so it runs anywhere. {@code PingPong ROUNDS --attached DIR} runs the same code attached
 * to the {@code srdnic dataplane} in DIR (host a on its port 0, b on its port 1): only the line
 * that opens the context differs, which is why the memory comes from {@code allocateRegion}
 * (the shared pool attached, an arena embedded).
 */
public final class PingPong {
    static final int QKEY = 0x1234;     // both sides agree on it, as with UD
    static final int SIZE = 64;

    /** One host: its context (device + dataplane) and the verbs objects a ping-pong needs. */
    record Host(Context ctx, ProtectionDomain pd, CompletionQueue cq, QueuePair qp, MemoryRegion mr) {
        static Host open(Context ctx) {                                  // 1. open the device (the caller)
            ProtectionDomain pd = ctx.allocPd();                        // 2. a protection domain
            MemoryRegion mr = pd.allocateRegion(2 * SIZE, Access.LOCAL_WRITE); // 3. registered memory
            CompletionQueue cq = ctx.createCq(16);                      // 4. one CQ for sends and receives
            QueuePair qp = pd.createQueuePair(QpInitAttributes.builder(QpType.SRD).cq(cq).maxSendWr(8).maxRecvWr(8).build());
            qp.modify(QpState.INIT, QKEY);                              // 5. UD's state machine: INIT, RTR, RTS
            qp.modify(QpState.RTR, 0);
            qp.modify(QpState.RTS, 0);
            return new Host(ctx, pd, cq, qp, mr);
        }

        /** Posts a receive into the second half of the region. */
        void postReceive(RecvWr wr) {
            wr.wrId(1).sge().set(mr, SIZE, SIZE);
            qp.postRecv(wr);
        }

        /** Sends the first half of the region to the peer. */
        void send(SendWr wr, AddressHandle peer, int peerQpn) {
            wr.wrId(2).destination(peer, peerQpn, QKEY).numSge(1).sge(0).set(mr, 0, SIZE);
            qp.postSend(wr);
        }

        /** Waits for the receive, reaping the send completion on the way; returns the received text. */
        String awaitMessage(WorkCompletion[] wcs) {
            while (true) {
                int n = cq.await(wcs, 1, TimeUnit.SECONDS);             // 6. poll completions (reused objects)
                for (int i = 0; i < n; i++) {
                    if (!wcs[i].ok()) {
                        throw new IllegalStateException("completion failed: " + wcs[i]);
                    }
                    if (wcs[i].wrId() == 1) {
                        return mr.segment().getString(SIZE);
                    }
                }
            }
        }
    }

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        if (args.length > 2 && args[1].equals("--attached")) {
            Path dir = Path.of(args[2]);
            run(rounds, port -> Context.open(Device.attached(dir), new ContextConfig().attachedPort(port)));
            return;
        }
        try (SimWorld world = new SimWorld(42)) {
            run(rounds, port -> Context.open(Device.sim(world)));
        }
    }

    /** The ping-pong between host a (opened by {@code open.apply(0)}) and host b ({@code open.apply(1)}). */
    static void run(int rounds, IntFunction<Context> open) {
        Host a = Host.open(open.apply(0));
        Host b = Host.open(open.apply(1));
        // Address handles: where the peer is (MAC, IPv4, UDP port). A real program exchanges
        // these and the QP numbers out of band (srdnic perf uses a TCP side channel).
        AddressHandle toB = a.pd().createAddressHandle(b.ctx().mac(), b.ctx().ip());
        AddressHandle toA = b.pd().createAddressHandle(a.ctx().mac(), a.ctx().ip());
        SendWr send = new SendWr();                                  // work requests are reusable
        RecvWr recv = new RecvWr();
        WorkCompletion[] wcs = CompletionQueue.array(4);
        for (int round = 0; round < rounds; round++) {
            b.postReceive(recv);
            a.mr().segment().setString(0, "ping " + round);
            a.send(send, toB, b.qp().qpNum());
            System.out.println("b got: " + b.awaitMessage(wcs));
            a.postReceive(recv);
            b.mr().segment().setString(0, "pong " + round);
            b.send(send, toA, a.qp().qpNum());
            System.out.println("a got: " + a.awaitMessage(wcs));
        }
        a.ctx().close();                                             // 7. close: stops the dataplane
        b.ctx().close();
    }
}
