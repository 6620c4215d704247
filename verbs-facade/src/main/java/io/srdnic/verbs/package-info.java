/**
 * The ibverbs-shaped API of srdnic: {@link io.srdnic.verbs.Context} (a device with its embedded
 * dataplane), {@link io.srdnic.verbs.ProtectionDomain}, {@link io.srdnic.verbs.MemoryRegion},
 * {@link io.srdnic.verbs.CompletionQueue}, {@link io.srdnic.verbs.AddressHandle},
 * {@link io.srdnic.verbs.SharedReceiveQueue} and {@link io.srdnic.verbs.QueuePair} of type SRD or UD. Work requests and completions are
 * reusable
 * objects: a steady-state post or poll allocates nothing.
 */
package io.srdnic.verbs;
