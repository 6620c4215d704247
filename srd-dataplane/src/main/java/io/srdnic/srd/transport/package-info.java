/**
 * The transports of one device, in layers. The reliability engine is a package of its own (it
 * shares nothing with the layers above but its interface), and so are the shared parts below the
 * message layers ({@code port}) and the QP state machine's stand-alone parts ({@code qp}); the
 * layering is docs/architecture.md's and PackageLayeringTest enforces it. The duty cycle, the
 * message layers and the QP objects stay in this one package because they share package-private state (the
 * transport's tables, TX burst, counters, a QP's fields) that splitting them would make public
 * API; the class names carry the layer ({@code Rc*} for RC, {@code Srd*}/{@code Send*} for SRD):
 * <ol>
 * <li><b>Device: creation, posting, duty cycle</b> — {@link io.srdnic.srd.transport.device.SrdTransport} (creates
 *     QPs, SRQs, address handles; the post entry points; introspection), {@code SendPosting} (the
 *     checks of a post and the hand-off to a message layer), {@code DutyCycle} (send, ACKs owed,
 *     timers, receive; next deadline) with its {@code CycleClock}, {@code PacketDispatcher}
 *     (parse, source check, route), {@code QpErrors} (CQ overrun, flush, destroy, QP events).</li>
 * <li><b>Port: what every QP type shares below it</b> — {@code TransportPort} hands out
 *     {@code TxBurst}, {@code FrameWriter} (every Ethernet/IPv4/UDP header this device writes),
 *     {@code AckWriter} (every ACK, SRD's and RC's), {@link io.srdnic.srd.transport.port.MemoryRegions},
 *     {@code HeldPacketPool}, the counters, the epoch and the tables ({@code QpTable},
 *     {@code AddressHandles}, {@code SrcSrqTable}, {@code ContextTable}).</li>
 * <li><b>Reliability engine</b>, one per flow whatever the QP type — its own package,
 *     {@link io.srdnic.srd.transport.engine} ({@code ReliableSender}: PSN space, per-packet
 *     descriptors with an owner token, selective ACK, RACK and RTO, retry limits, holding for RNR;
 *     with {@code RttEstimator}, {@code DelayWindow} and {@code PathSet}), with a narrow public
 *     interface the message layers above use; {@code ReceiveWindow} (SRD's responder dedup) stays
 *     here with SRD.</li>
 * <li><b>Message layers</b> above it:
 *     <ul>
 *     <li>SRD: the flow is an {@code SrdContext} per remote device (its {@code FlowKey}: IPv4
 *         address and UDP port, in {@code ContextTable}), shared by its QPs, on the duty cycle's
 *         list while busy ({@code ActiveContexts}); {@code SrdRequester} (a SEND in one packet,
 *         RDMA segmented, completions in any order), {@code SendRequests}, {@code SrdAckIntake}
 *         (the ACKs of its peer), {@code SrdRnrWaits} (RNR backoffs), {@code PathProbes} (both
 *         ends of a probe); responder: {@code SrdResponder} (transport checks, ACKs owed) then a
 *         delivery policy per packet type, {@code SendDelivery} and {@code RdmaDelivery}.</li>
 *     <li>RC: the flow is the QP itself; {@code RcRequester} (post, segmentation, emission,
 *         READ answers), {@code RcCompleter} (ACK/NAK intake, in-order completion, responses, retry
 *         and RNR policy: a state machine as rxe_comp.c), both over the {@code RcSendQueue} of
 *         {@code RcSendSlot}s, {@code RcResponder} (execution in PSN order, {@code RcReorderBuffer},
 *         NAKs, coalesced ACKs), {@code RcConnections} (which RC QPs the duty cycle visits).</li>
 *     <li>UD: one datagram, no flow ({@code UdDatagrams}, {@code SendDelivery}).</li>
 *     </ul></li>
 * <li><b>Queue pairs and their objects</b> — {@link io.srdnic.srd.transport.rc.SrdQp} (the transport QP of
 *     {@code transport.qp}, {@code TransportQp}, plus RC's two halves) and its state
 *     machine ({@code QpTransitions}, {@code QpAttributes}, {@code QpAttributeChecks}),
 *     {@code ReceiveQueue}, {@link io.srdnic.srd.transport.qp.SharedReceiveQueue}, the IBTA timer
 *     encodings {@code LocalAckTimeout} and {@code RnrTimer}.</li>
 * </ol>
 * Everything here runs on the transport's one thread; the wire codecs are in
 * {@code io.srdnic.srd.wire}, the completion and event queues the application reads in
 * {@code io.srdnic.srd.api}.
 */
package io.srdnic.srd.transport;
