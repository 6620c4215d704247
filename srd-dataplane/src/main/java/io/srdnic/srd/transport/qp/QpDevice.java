package io.srdnic.srd.transport.qp;

import io.srdnic.srd.counters.SrdCounters;
import java.util.function.IntPredicate;

/**
 * What a {@link TransportQp} reads of its device, handed in at creation: the link MTU and the live
 * address handles (what modify checks against), the memory regions its receives were posted from,
 * and the counters it counts into.
 *
 * @param mtu              the largest payload a packet of the device carries
 * @param liveAddressHandle whether an address handle number names a live handle
 * @param regions          the device's memory regions, as a receive checks them
 * @param counters         the device's counters
 */
public record QpDevice(int mtu, IntPredicate liveAddressHandle, ReceiveRegions regions, SrdCounters counters) {
}
