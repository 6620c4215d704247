package io.srdnic.srd.transport.engine;

import io.srdnic.pmd.Mbuf;
import io.srdnic.srd.wire.SrdAck;

/** What every requester checks of an ACK before acting on any of it, whatever the QP type. */
public final class AckChecks {
    private AckChecks() {
    }

    /**
     * An honest responder acknowledges only PSNs it received, all below our next PSN: an ACK whose
     * cumulative PSN, selective bits, duplicate report or drop entries reach past it is forged or corrupt, and is
     * refused whole rather than trusted in part.
     */
    public static boolean namesOnlySentPsns(ReliableSender sender, Mbuf m, int cumulative, long[] sack, int drops) {
        if (cumulative - sender.nextPsn > 0) {
            return false;
        }
        for (int w = SrdAck.SACK_WORDS - 1; w >= 0; w--) {
            long bits = sack[w];
            if (bits != 0) {
                int highest = cumulative + 1 + 64 * w + 63 - Long.numberOfLeadingZeros(bits);
                if (highest - sender.nextPsn >= 0) {
                    return false;
                }
                break;
            }
        }
        if (SrdAck.hasDuplicate(m) && SrdAck.duplicatePsn(m) - sender.nextPsn >= 0) {
            return false; // a duplicate of a packet never sent
        }
        for (int i = 0; i < drops; i++) {
            if (SrdAck.dropPsn(m, i) - sender.nextPsn >= 0) {
                return false;
            }
        }
        return true;
    }
}
