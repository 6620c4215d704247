/**
 * Live counters in a memory-mapped file: {@link io.srdnic.srd.counters.CountersWriter} on the
 * dataplane thread that owns them (opaque stores, no locks), {@link io.srdnic.srd.counters.CountersReader}
 * in any other process ({@code srdnic stat}, the Prometheus endpoint). The byte layout is
 * {@link io.srdnic.srd.counters.CountersLayout}'s, documented in docs/counters.md.
 */
package io.srdnic.srd.counters;
