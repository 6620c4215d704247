/**
 * A connection manager in the shape of rdma_cm: an {@link io.srdnic.verbs.cm.EventChannel}, CM ids
 * ({@link io.srdnic.verbs.cm.CmId}) that listen, connect with private data, accept or reject and
 * disconnect, and the events that report each step. Its messages travel over srdnic itself, between
 * the devices' management QPs (UD, QPN 1); docs/cm.md has the rules and docs/wire-format.md the format.
 */
package io.srdnic.verbs.cm;
