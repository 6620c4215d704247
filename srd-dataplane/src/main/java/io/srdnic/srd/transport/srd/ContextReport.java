package io.srdnic.srd.transport.srd;

import io.srdnic.srd.transport.engine.PathSet;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/** The per-context and per-path counters of a transport as text, one line per live context (for {@code --stats}). */
public final class ContextReport {
    private ContextReport() {
    }

    public static List<String> lines(List<SrdContext> live) {
        List<SrdContext> sorted = new ArrayList<>(live);
        sorted.sort(Comparator.comparingInt(c -> c.index));
        List<String> lines = new ArrayList<>();
        for (SrdContext ctx : sorted) {
            StringBuilder sb = new StringBuilder(String.format(Locale.ROOT,
                "context %s: tx %d retx %d rto %d rack %d rx %d dup %d delivered %d drops %d srtt %.1f us cwnd %.1f paths:",
                FlowKey.toString(ctx.flow), ctx.sender.txPackets, ctx.sender.retransmits, ctx.sender.timeouts, ctx.sender.rackLosses,
                        ctx.rxPackets, ctx.duplicates,
                ctx.delivered, ctx.drops, ctx.sender.rtt.srtt() / 1000.0, ctx.sender.cwnd.window()));
            PathSet p = ctx.sender.paths;
            for (int i = 0; i < p.count(); i++) {
                sb.append(String.format(Locale.ROOT, " [%d%s tx %d lost %d rto %d rtt %.1f]", i, p.isHealthy(i) ? "" : " avoided",
                    p.transmits[i], p.losses[i], p.timeouts[i], p.srtt[i] / 1000.0));
            }
            lines.add(sb.toString());
        }
        return lines;
    }

    public static String ipv4(int ip) {
        return (ip >>> 24) + "." + ((ip >>> 16) & 0xFF) + "." + ((ip >>> 8) & 0xFF) + "." + (ip & 0xFF);
    }
}
