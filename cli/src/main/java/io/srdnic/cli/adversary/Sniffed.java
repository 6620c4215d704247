package io.srdnic.cli.adversary;

/**
 * What an on-path attacker has learned about the live stream between the victim and its peer, from
 * the frames it saw (see {@link WireTap}). SRD names one context per remote device on each side:
 * {@code peerContext} is the peer's id for its context with the victim, {@code victimContext} the
 * victim's id for its context with the peer; each side's frames carry its own id as the source and
 * the other's as the destination. PSNs are the latest seen in each direction. A field not yet seen
 * is 0 and its {@code known*} flag false.
 * <p>
 * {@code followedEpoch} and {@code followedContext} name the incarnation of the peer that the
 * victim's responder is seen to follow: the one its ACKs to the peer answer, when it is one the
 * peer's own data frames carry. The peer's latest data can name an incarnation the victim has not
 * taken up yet (its first packets refused, say); a frame forged under that one before the victim
 * has heard it is indistinguishable from the peer's first packet, so the classes that forge "the
 * real ids" use the followed incarnation.
 */
public record Sniffed(boolean knownPeerData, boolean knownPeerAck, boolean knownVictimData, boolean knownFollowed,
                      int peerContext, int victimContext, int peerEpoch, int victimEpoch,
                      int peerPsn, int peerSendBase, int victimPsn, int victimSendBase,
                      int peerQpn, int victimQpn, int victimQkey, int peerQkey, int followedEpoch, int followedContext) {

    public static final Sniffed NOTHING = new Sniffed(false, false, false, false, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

    /** Whether the ids and epochs of the peer's side of the stream (what forging its data takes) are known. */
    public boolean knowsPeerSide() {
        return knownPeerData;
    }

    /** Whether the peer incarnation the victim follows is known (what forging data under the real ids takes). */
    public boolean knowsFollowedIncarnation() {
        return knownFollowed;
    }

    /** Whether what forging an ACK to the victim takes (both ids, the victim's epoch to echo, its PSNs) is known. */
    public boolean knowsVictimSide() {
        return knownVictimData && victimContext != 0 && peerContext != 0;
    }
}
