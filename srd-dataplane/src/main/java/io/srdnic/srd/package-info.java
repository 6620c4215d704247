/**
 * The SRD transport: contexts, reliability, multipath spraying and congestion control, written
 * against {@code io.srdnic.pmd.PacketIo}. Arrives with the issue "SRD transport core".
 */
package io.srdnic.srd;
