/**
 * The reliability engine: the sending half of one flow, whatever the QP type above it. An SRD
 * context and an RC queue pair each own one {@link io.srdnic.srd.transport.engine.ReliableSender}.
 * <p>
 * The engine knows PSNs, packets and paths, never messages: the message layer above hands it
 * (owner, segment) pairs, builds each packet when told to {@code emit} it, and hears
 * {@code acked} and {@code exhausted} per packet through
 * {@link io.srdnic.srd.transport.engine.ReliableSender.Listener}. Inside: the PSN window and its
 * packet descriptors, cumulative and selective acknowledgement, RACK-like and RTO loss detection
 * with retry limits and holding (RNR), {@link io.srdnic.srd.transport.engine.RttEstimator},
 * congestion control ({@link io.srdnic.srd.transport.engine.DelayWindow}), spraying and path
 * avoidance ({@link io.srdnic.srd.transport.engine.PathSet}), and the check that an ACK names
 * only PSNs that were sent ({@link io.srdnic.srd.transport.engine.AckChecks}).
 * <p>
 * Its only dependencies upward are data: the transport's {@code TransportConfig} (read once, at
 * construction) and the {@code SrdCounters} it counts into. Everything here runs on the
 * transport's one thread and allocates nothing once a flow's window exists.
 */
package io.srdnic.srd.transport.engine;
