/**
 * The transports of one device, in rooms that import one way only (docs/architecture.md draws
 * them; PackageLayeringTest enforces it, and that this package itself holds no class):
 * <ol>
 * <li><b>{@code device}: creation, posting, duty cycle</b> — {@code TransportDevice} (creates QPs,
 *     SRQs, SRC domains, address handles; the post entry points; introspection), {@code SendPosting}
 *     (the checks of a post and the hand-off to a message layer), {@code DutyCycle} (send, ACKs
 *     owed, timers, receive; next deadline), {@code PacketDispatcher} (parse, source check, route),
 *     {@code QpErrors} (CQ overrun, flush, destroy, QP events), {@code TransportCounters}.</li>
 * <li><b>The message layers</b>, which never import each other:
 *     <ul>
 *     <li>{@code srd}: the flow is an {@code SrdContext} per remote device (its {@code FlowKey},
 *         in {@code ContextTable}), shared by its QPs; {@code SrdRequester} (a SEND in one packet,
 *         RDMA segmented, completions in any order), {@code SendRequests}, {@code SrdAckIntake},
 *         {@code SrdRnrWaits}, {@code PathProbes}; responder: {@code SrdResponder} (transport
 *         checks, ACKs owed), then {@code SendDelivery} (port) or {@code RdmaDelivery}.</li>
 *     <li>{@code rc}: RC and SRC, the flow is the QP itself; {@code RcRequester} (post,
 *         segmentation, emission, READ answers), {@code RcCompleter} (ACK/NAK intake, in-order
 *         completion, responses, retry and RNR policy: a state machine as rxe_comp.c), both over
 *         the {@code RcSendQueue} of {@code RcSendSlot}s, {@code RcResponder} (rxe_resp.c's named
 *         stages), {@code RcConnections} (which RC QPs the duty cycle visits), {@code SrcDomain},
 *         {@code SrcSrqTable}; and {@code DeviceQp}, the transport QP plus RC's two halves.</li>
 *     <li>{@code ud}: one datagram, no flow ({@code UdDatagrams}: both halves).</li>
 *     </ul></li>
 * <li><b>{@code port}: what every QP type shares below them</b> — {@code TransportPort} hands out
 *     {@code TxBurst}, {@code FrameWriter} (every Ethernet/IPv4/UDP header), {@code AckWriter}
 *     (every ACK), {@code MemoryRegions}, {@code HeldPacketPool}, the counters, the epoch,
 *     {@code QpTable} and {@code AddressHandles}; with {@code CycleClock}, {@code WorkRequest}, {@code GatherList},
 *     {@code SendDelivery} and {@code RdmaLanding}.</li>
 * <li><b>{@code qp}</b>: the transport QP ({@code TransportQp}) and its state machine, receive
 *     queues, SRQs, the IBTA timer encodings, and what a QP is handed instead of the device.</li>
 * <li><b>{@code engine}</b>: the reliability engine, one per flow whatever the QP type.</li>
 * </ol>
 * Everything here runs on the transport's one thread; the wire codecs are in
 * {@code io.srdnic.srd.wire}, the completion and event queues the application reads in
 * {@code io.srdnic.srd.api}.
 */
package io.srdnic.srd.transport;
