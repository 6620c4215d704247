package io.srdnic.cli.adversary;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * The classes of hostile frame {@code srdnic adversary} sends at the victim, by their command-line
 * names. Frames of the first group are malformed and must fail the parser; the rest parse and must
 * be rejected (or acted on harmlessly) by the transport. "Real" values are those of the live stream,
 * learned by sniffing it ({@link WireTap}) — an on-path attacker's knowledge. No class sends a frame
 * a correct transport would have to deliver: forged data carries a wrong Q_Key, or a PSN the real
 * sender is not about to use, or is a verbatim copy of a frame already received.
 */
public enum Attack {
    TRUNCATED("truncated", "a frame cut short: below 42 bytes, inside its IPv4 packet, or an SRD part shorter than its header"),
    OVERSIZED("oversized", "a payload length over the MTU, an ACK with over 16 drop entries, a frame as long as the link takes"),
    BAD_CHECKSUM("bad-checksum", "a wrong IPv4 header or UDP checksum"),
    BAD_VERSION("bad-version", "SRD version 0 or 2..15"),
    BAD_TYPE("bad-type", "SRD type 0 or 12..15, or well-formed RDMA from other addresses: WRITE, WRITE with immediate, READ naming"
        + " an rkey of the attacker's making, READ_RESPONSE to a read never made"),
    FAR_PSN("far-psn", "data with the real context ids and epoch, PSN far out of the window"),
    FAR_SEND_BASE("far-send-base", "data with the real context ids and epoch, send base far ahead of the real one"),
    FORGED_ACK("forged-ack", "ACKs with the real ids and echoed epoch acknowledging PSNs never sent (cumulative and SACK)"),
    FORGED_DROP("forged-drop", "ACKs with the real ids and echoed epoch reporting drops of PSNs never sent"),
    WRONG_QKEY("wrong-qkey", "data to the real QP with a wrong Q_Key (or to a QP that does not exist), from other addresses"),
    FORGED_CONTEXT("forged-context", "the real epoch under another context id, the real ids naming another destination context,"
        + " ACKs and probes naming contexts and epochs that do not exist"),
    STALE_EPOCH("stale-epoch", "data with the real context ids and a different epoch"),
    REPLAY("replay", "verbatim copies of data frames the victim already received"),
    SPOOF_PEER("spoof-peer", "data from the peer's IP (its MAC or another) under a context id and epoch of the attacker's"),
    SPOOF_SOURCE("spoof-source", "data from 0.0.0.0, broadcast, loopback, multicast, the victim's own IP, with spoofed MACs"),
    FLOOD("flood", "data from thousands of distinct source addresses, each a would-be new context");

    /** The name on the command line and in the JSON. */
    public final String cliName;
    public final String description;

    Attack(String cliName, String description) {
        this.cliName = cliName;
        this.description = description;
    }

    /** Parses {@code all} or a comma-separated list of class names. */
    public static Set<Attack> parseList(String text) {
        if (text == null || text.isBlank() || text.trim().equals("all")) {
            return EnumSet.allOf(Attack.class);
        }
        Set<Attack> set = EnumSet.noneOf(Attack.class);
        for (String name : text.split(",")) {
            String n = name.trim().toLowerCase(Locale.ROOT);
            if (n.equals("all")) {
                set.addAll(EnumSet.allOf(Attack.class));
                continue;
            }
            if (n.equals("none")) {
                continue;
            }
            Attack found = null;
            for (Attack a : values()) {
                if (a.cliName.equals(n) || a.name().equalsIgnoreCase(n)) {
                    found = a;
                }
            }
            if (found == null) {
                throw new IllegalArgumentException("unknown attack class '" + name.trim() + "'; known: all, none, " + names());
            }
            set.add(found);
        }
        return set;
    }

    public static String names() {
        StringBuilder sb = new StringBuilder();
        for (Attack a : values()) {
            if (sb.length() > 0) {
                sb.append(", ");
            }
            sb.append(a.cliName);
        }
        return sb.toString();
    }

    public static String listLine(Set<Attack> set) {
        if (set.equals(EnumSet.allOf(Attack.class))) {
            return "all";
        }
        if (set.isEmpty()) {
            return "none";
        }
        StringBuilder sb = new StringBuilder();
        for (Attack a : set) {
            if (sb.length() > 0) {
                sb.append(',');
            }
            sb.append(a.cliName);
        }
        return sb.toString();
    }
}
