package io.srdnic.cli.adversary;

/**
 * What the attacker knows before it sniffs anything: the victim's and its peer's addresses and QPs
 * (all of it on the wire in every frame; here from the run's side channel), the SRD port, the
 * victim's SRD MTU, and the longest frame the injection path carries.
 */
public record AttackTarget(long victimMac, int victimIp, int victimQpn, int victimQkey,
                           long peerMac, int peerIp, int peerQpn, int peerQkey,
                           int srdPort, int mtu, int maxFrame) {
}
