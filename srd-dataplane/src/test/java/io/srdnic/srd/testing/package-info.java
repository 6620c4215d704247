/**
 * Test fixtures shared by every module's tests (srd-dataplane's test-jar): {@link FrameBytes}, a
 * frame as a byte array read and written at the offsets of docs/wire-format.md with an Internet
 * checksum of its own (so the codecs are checked against an independent reading, not against
 * themselves); {@link FrameForger}, which writes hand-made SRD frames — hostile ones included —
 * with the codecs into an mbuf; and {@link DeliveryLedger}, the books of a run of numbered
 * messages that fail a test on a message delivered or completed twice, or never.
 */
package io.srdnic.srd.testing;
