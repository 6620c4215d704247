/**
 * SRD's own state, below its message handlers: the contexts ({@code SrdContext}, one per peer flow,
 * with its {@code ReceiveWindow}, {@code PendingAck} and {@code PeerIncarnation}), their tables
 * ({@code ContextTable}, {@code ActiveContexts}, {@code FlowKey}, {@code ContextReport}), the owed
 * ACKs ({@code OwedAcks}), the send requests' columns ({@code SendRequests}, {@code RnrWaitList})
 * and the path probes ({@code PathProbes}). Knows {@code transport.port}, {@code transport.qp} and
 * {@code transport.engine}, never RC's or UD's classes nor the device (see docs/architecture.md).
 */
package io.srdnic.srd.transport.srd;
