/**
 * RTRS (seed 002, Linux's drivers/infiniband/ulp/rtrs) on the verbs facade: a client session of
 * up to 128 paths to one server, each path a service connection and N IO connections (RC QPs
 * made through the connection manager), IO moved by RDMA WRITE WITH IMM into the server's chunks
 * and answered with immediates, paths watched by heartbeats, in-flight IO failed over.
 * <ul>
 * <li>{@code protocol}: the wire (CM private data, INFO messages, immediates, IO messages) and the
 * checks every peer-supplied field passes;</li>
 * <li>{@code client}: {@link io.srdnic.rtrs.client.RtrsClient} — permits, write/read with a
 * callback, paths, mp_policy, per-path stats;</li>
 * <li>{@code server}: {@link io.srdnic.rtrs.server.RtrsServer} — sessions, chunk pools, requests
 * handed to a {@link io.srdnic.rtrs.server.RtrsServerHandler};</li>
 * <li>{@code link}: what a path holds on its context (PD, CQ, receives) and its heartbeat.</li>
 * </ul>
 * Client and server each run in their {@code poll()}, called from one thread; nothing else may
 * call them concurrently. docs/rtrs-conformance.md says what follows Linux and what does not.
 */
package io.srdnic.rtrs;
