package io.srdnic.cli.pktgen;

import io.srdnic.cli.Json;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * What a blast run measured. {@code mpps}: frames received per second over the measured window, in
 * millions; {@code gbps}: the bits of those frames (Ethernet header to the end of the payload; no
 * CRC, preamble or gap) per second, in 10^9. {@code sent} can exceed {@code received} when the
 * receiver is the bottleneck and frames pile up in (or fall off) the link.
 */
record BlastResult(long sent, long received, long foreign, long txRefused, int frameLength, long windowFrames, long windowBytes,
                   long windowNanos) {

    double mpps() {
        return windowNanos <= 0 ? 0 : windowFrames * 1e3 / windowNanos;
    }

    double gbps() {
        return windowNanos <= 0 ? 0 : windowBytes * 8.0 / windowNanos;
    }

    boolean measured() {
        return windowNanos > 0 && windowFrames > 0;
    }

    BlastResult withSender(long sent, long txRefused) {
        return new BlastResult(sent, received, foreign, txRefused, frameLength, windowFrames, windowBytes, windowNanos);
    }

    Map<String, Object> fields() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("sent", sent);
        m.put("received", received);
        m.put("foreign", foreign);
        m.put("tx_refused", txRefused);
        m.put("window_frames", windowFrames);
        m.put("window_bytes", windowBytes);
        m.put("window_ns", windowNanos);
        m.put("mpps", mpps());
        m.put("gbps", gbps());
        return m;
    }

    String json() {
        return Json.object(fields());
    }

    String text() {
        return String.format(Locale.ROOT,
                "sent %d  received %d  foreign %d  refused by TX %d  measured %d frames in %.3f s: %.3f Mpps  %.3f Gbit/s",
            sent, received, foreign, txRefused, windowFrames, windowNanos / 1e9, mpps(), gbps());
    }

    /** Parses the flat JSON line a side process printed. */
    static BlastResult parse(String json, int frameLength) {
        Map<String, String> f = FlatJson.parse(json);
        return new BlastResult(Long.parseLong(f.get("sent")), Long.parseLong(f.get("received")), Long.parseLong(f.get("foreign")),
            Long.parseLong(f.get("tx_refused")), frameLength, Long.parseLong(f.get("window_frames")), Long.parseLong(f.get("window_bytes")),
            Long.parseLong(f.get("window_ns")));
    }
}
