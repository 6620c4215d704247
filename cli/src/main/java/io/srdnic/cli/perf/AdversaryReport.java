package io.srdnic.cli.perf;

import io.srdnic.cli.Json;
import io.srdnic.cli.adversary.Attack;
import io.srdnic.cli.adversary.StreamLedger.Direction;
import io.srdnic.cli.adversary.VictimCounters;
import io.srdnic.srd.api.WcStatus;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What an adversary run found: the verified stream in both directions (what was sent, delivered
 * intact, lost, duplicated, corrupted, falsely completed), the attack frames by class, the victim
 * transport's rejections and its process's peak RSS. The JSON object's keys {@code sent},
 * {@code delivered}, {@code lost}, {@code duplicated}, {@code corrupted}, {@code false_success},
 * {@code injected}, {@code rejected}, {@code peak_rss_mb}, {@code completions} and {@code errors}
 * are a contract; the first six are over both directions together.
 */
record AdversaryReport(String link, AdversaryParams params, AdversarySession.AttackPlan plan, long nanos, Direction victimToPeer,
                       Direction peerToVictim, Map<Attack, Long> attackSent, Map<Attack, Long> attackRefused, long injected,
                       long injectionRefused, String injectionError, Map<String, Long> counters, long lossDrops, long linkRxDropped,
                               double peakRssMb) {

    long sent() {
        return victimToPeer.sent() + peerToVictim.sent();
    }

    long delivered() {
        return victimToPeer.delivered() + peerToVictim.delivered();
    }

    long lost() {
        return victimToPeer.lost() + peerToVictim.lost();
    }

    long duplicated() {
        return victimToPeer.duplicated() + peerToVictim.duplicated();
    }

    long corrupted() {
        return victimToPeer.corrupted() + peerToVictim.corrupted();
    }

    long falseSuccess() {
        return victimToPeer.falseSuccess() + peerToVictim.falseSuccess();
    }

    /** Messages the stream got wrong: lost (false successes among them), duplicated, corrupted. */
    long violations() {
        return lost() + duplicated() + corrupted();
    }

    /** Why the run failed, or null. */
    String failure() {
        if (violations() == 0) {
            return null;
        }
        List<String> what = new ArrayList<>();
        add(what, lost(), "lost (of them " + (victimToPeer.uncompleted() + peerToVictim.uncompleted()) + " never completed)");
        add(what, duplicated(), "duplicated");
        add(what, corrupted(), "corrupted");
        add(what, falseSuccess(), "completed SUCCESS without a delivery (counted in lost)");
        return String.join(", ", what);
    }

    private static void add(List<String> what, long n, String text) {
        if (n != 0) {
            what.add(n + " " + text);
        }
    }

    List<String> text() {
        List<String> lines = new ArrayList<>();
        lines.add(String.format(Locale.ROOT,
                "adversary on %s: %.1f s of stream (%.1f s in all), attacks %s at %d frames/s (seed %d), loss %.3f"
            + " on the victim's transmit", link, params.streamNanos() / 1e9, nanos / 1e9, Attack.listLine(plan.attacks()),
                    (long) plan.rate(), plan.seed(), plan.loss()));
        StringBuilder byClass = new StringBuilder();
        attackSent.forEach((a, n) -> byClass.append(' ').append(a.cliName).append('=').append(n));
        lines.add("  attack frames injected " + injected + ", refused by the injection path " + injectionRefused
            + (injectionError != null ? " (last: " + injectionError + ")" : "") + "; by class:" + byClass);
        lines.add("  the victim's link lost " + lossDrops + " of its frames (--loss) and dropped " + linkRxDropped
            + " on the way in, unseen by its transport");
        lines.add(String.format(Locale.ROOT, "  %-16s %10s %10s %8s %10s %9s %13s %8s", "stream", "sent", "delivered", "lost", "duplicated",
            "corrupted", "false_success", "errors"));
        lines.add(row("victim -> peer", victimToPeer));
        lines.add(row("peer -> victim", peerToVictim));
        lines.add("  victim rejected: " + flat(VictimCounters.rejections(counters)));
        lines.add("  victim completions: " + flat(statuses(completions(), false)) + "; receive errors: "
            + flat(statuses(sum(victimToPeer.receiveErrorsByStatus(), peerToVictim.receiveErrorsByStatus()), false)));
        lines.add(String.format(Locale.ROOT, "  victim process peak RSS %.1f MiB%s", peakRssMb,
            link.equals("ring") ? " (one JVM holds both sides on ring)" : ""));
        String failure = failure();
        lines.add(failure == null ? "  no violations: every SUCCESS was delivered intact exactly once" : "  VIOLATIONS: " + failure);
        return lines;
    }

    private static String row(String name, Direction d) {
        long errors = 0;
        for (int s = 1; s < d.completionsByStatus().length; s++) {
            errors += d.completionsByStatus()[s];
        }
        return String.format(Locale.ROOT, "  %-16s %10d %10d %8d %10d %9d %13d %8d", name, d.sent(), d.delivered(),
                d.lost(), d.duplicated(),
            d.corrupted(), d.falseSuccess(), errors);
    }

    private static String flat(Map<String, Long> m) {
        if (m.isEmpty()) {
            return "none";
        }
        StringBuilder sb = new StringBuilder();
        m.forEach((k, v) -> sb.append(sb.length() > 0 ? " " : "").append(k).append('=').append(v));
        return sb.toString();
    }

    private long[] completions() {
        return sum(victimToPeer.completionsByStatus(), peerToVictim.completionsByStatus());
    }

    private static long[] sum(long[] a, long[] b) {
        long[] s = new long[Math.max(a.length, b.length)];
        for (int i = 0; i < s.length; i++) {
            s[i] = (i < a.length ? a[i] : 0) + (i < b.length ? b[i] : 0);
        }
        return s;
    }

    /** Non-zero counts by status name; {@code errorsOnly} leaves SUCCESS out. */
    private static Map<String, Long> statuses(long[] byStatus, boolean errorsOnly) {
        Map<String, Long> m = new LinkedHashMap<>();
        for (int s = errorsOnly ? 1 : 0; s < byStatus.length; s++) {
            if (byStatus[s] != 0) {
                m.put(WcStatus.name(s), byStatus[s]);
            }
        }
        return m;
    }

    private static Map<String, Object> direction(Direction d) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("sent", d.sent());
        m.put("delivered", d.delivered());
        m.put("lost", d.lost());
        m.put("uncompleted", d.uncompleted());
        m.put("duplicated", d.duplicated());
        m.put("corrupted", d.corrupted());
        m.put("false_success", d.falseSuccess());
        m.put("error_but_delivered", d.errorButDelivered());
        m.put("double_completions", d.doubleCompletions());
        m.put("completions", statuses(d.completionsByStatus(), false));
        m.put("errors", statuses(d.completionsByStatus(), true));
        Map<String, Long> defects = new LinkedHashMap<>();
        d.defects().forEach((k, v) -> defects.put(k.name().toLowerCase(Locale.ROOT), v));
        m.put("corrupted_by", defects);
        return m;
    }

    String json() {
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("command", "adversary");
        f.put("link", link);
        f.put("seconds", params.streamNanos() / 1e9);
        f.put("elapsed_s", nanos / 1e9);
        f.put("attacks", Attack.listLine(plan.attacks()));
        f.put("rate", (long) plan.rate());
        f.put("seed", plan.seed());
        f.put("loss", plan.loss());
        f.put("size", params.size());
        f.put("window", params.window());
        f.put("sent", sent());
        f.put("delivered", delivered());
        f.put("lost", lost());
        f.put("duplicated", duplicated());
        f.put("corrupted", corrupted());
        f.put("false_success", falseSuccess());
        f.put("uncompleted", victimToPeer.uncompleted() + peerToVictim.uncompleted());
        f.put("error_but_delivered", victimToPeer.errorButDelivered() + peerToVictim.errorButDelivered());
        f.put("violations", violations());
        f.put("completions", statuses(completions(), false));
        f.put("errors", statuses(completions(), true));
        f.put("receive_errors", statuses(sum(victimToPeer.receiveErrorsByStatus(), peerToVictim.receiveErrorsByStatus()), false));
        f.put("injected", injected);
        f.put("injection_refused", injectionRefused);
        Map<String, Long> byClass = new LinkedHashMap<>();
        attackSent.forEach((a, n) -> byClass.put(a.cliName, n));
        f.put("attack_frames", byClass);
        Map<String, Long> refusedByClass = new LinkedHashMap<>();
        attackRefused.forEach((a, n) -> {
            if (n != 0) {
                refusedByClass.put(a.cliName, n);
            }
        });
        f.put("attack_frames_refused", refusedByClass);
        f.put("rejected", VictimCounters.rejections(counters));
        f.put("victim_counters", VictimCounters.nonZero(counters));
        f.put("link_loss_drops", lossDrops);
        f.put("link_rx_dropped", linkRxDropped);
        f.put("peak_rss_mb", peakRssMb);
        f.put("victim_to_peer", direction(victimToPeer));
        f.put("peer_to_victim", direction(peerToVictim));
        return Json.object(f);
    }
}
