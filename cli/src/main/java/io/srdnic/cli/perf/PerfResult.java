package io.srdnic.cli.perf;

import io.srdnic.cli.Json;
import io.srdnic.cli.pktgen.LatencySummary;
import io.srdnic.srd.api.TransportConfig;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a perf run measured, printed as perftest-like text and as the JSON object whose keys are a
 * contract: {@code p50_us}, {@code p99_us}, {@code p999_us}, {@code msgs_per_sec}, {@code gbps} and
 * {@code raw_p50_us} are always present, null where the mode does not measure them.
 *
 * @param latency round trips (latency mode), else null
 * @param raw     the raw frame ping-pong run just before (latency mode on a DPDK link), else null
 * @param msgsPerSec latency mode: round trips per second; bandwidth mode: messages per second where they arrived
 *                   (for RDMA WRITE and READ, where the client's completions say they did)
 * @param server     what arrived where the server counts it, or for RDMA the client's completions do
 * @param clientCheck the client's check of the RDMA (or RC SEND) bytes that land there ({@link PayloadCheck#NONE} for none)
 */
record PerfResult(PerfParams params, String link, String threading, String clientCpus, boolean virtualTime, LatencySummary latency,
        LatencySummary raw,
                  double msgsPerSec, long sent, ServerCounts server, long errors, String firstError, PayloadCheck clientCheck,
                  List<String> stats) {
    private static final String SERVER_REGION = "the server's region";
    private static final String CLIENT_REGION = "the client's region";

    /** Frame length of a message of {@code size} bytes: Ethernet, IPv4, UDP and SRD headers (90 bytes) in front. */
    static int frameLength(int size) {
        return Math.max(60, size + TransportConfig.FRAME_OVERHEAD);
    }

    Double gbps() {
        return params.latency() ? null : msgsPerSec * params.size() * 8 / 1e9;
    }

    /** Messages that never arrived (UD); 0 on SRD unless something failed. */
    long lost() {
        return params.latency() ? latency.lost() : Math.max(0, sent - server.received());
    }

    /** Why the run failed, or null if it passed. */
    String failure() {
        if (errors > 0) {
            return errors + " completion(s) with an error status, the first " + firstError;
        }
        if (server.errors() > 0) {
            return "the server had " + server.errors() + " completion(s) with an error status, the first " + server.firstError();
        }
        boolean reliable = params.transport().reliable;
        if (params.latency()) {
            if (latency.count() == 0) {
                return "no round trip completed";
            }
            if (reliable && latency.lost() > 0) {
                String t = params.transport().name().toUpperCase(Locale.ROOT);
                return latency.lost() + " " + t + " round trips timed out: " + t + " must not lose a message";
            }
        } else {
            if (server.received() == 0) {
                return "nothing arrived";
            }
            if (reliable && server.received() != sent) {
                return params.transport().name().toUpperCase(Locale.ROOT) + " delivered " + server.received() + " of " + sent + " messages";
            }
        }
        String payload = params.serverChecks() ? server.check().failure(SERVER_REGION) : null;
        return payload == null && params.clientChecks() ? clientCheck.failure(CLIENT_REGION) : payload;
    }


    List<String> text() {
        List<String> lines = new ArrayList<>();
        String unit = virtualTime ? "virtual us" : "us";
        String warm = params.latency() ? String.format(Locale.ROOT, " in %.1f s", latency.warmupNs() / 1e9) : "";
        String what = String.format(Locale.ROOT, "perf %s %s%s over %s: %d B messages, %d iterations (+%d warm-up%s), %d QP%s, %s%s",
            params.mode(), params.transport(), params.op().rdma() ? " rdma " + params.op() : "", link, params.size(), params.iters(),
                    params.warmup(), warm, params.qps(),
            params.qps() == 1 ? "" : "s", threading.toLowerCase(Locale.ROOT), virtualTime ? ", simulated network in virtual time" : "");
        lines.add(what);
        if (params.latency()) {
            lines.add(String.format(Locale.ROOT, "  round trip %s: min %.2f  p50 %.2f  p99 %.2f  p99.9 %.2f  max %.2f", unit,
                us(latency.minNs()), us(latency.p50Ns()), us(latency.p99Ns()), us(latency.p999Ns()), us(latency.maxNs())));
            lines.add(String.format(Locale.ROOT, "  %.0f round trips/s%s", msgsPerSec,
                !params.transport().reliable ? ", " + latency.lost() + " timed out" : ""));
            if (raw != null) {
                lines.add(String.format(Locale.ROOT,
                        "  raw ping-pong, %d-byte frames, same ports: min %.2f  p50 %.2f  p99 %.2f us; %s p50 / raw p50 = %.2f",
                    frameLength(params.size()), us(raw.minNs()), us(raw.p50Ns()), us(raw.p99Ns()), params.transport(),
                    (double) latency.p50Ns() / Math.max(1, raw.p50Ns())));
            }
        } else {
            lines.add(String.format(Locale.ROOT,
                    "  %.0f messages/s, %.3f Gbit/s of payload (window %d per QP); sent %d, arrived %d, lost %d",
                msgsPerSec, gbps(), params.window(), sent, server.received(), lost()));
        }
        if (params.checksPayload()) {
            lines.add("  payload checked at the end: " + String.join("; ", payloadChecks()));
        }
        lines.addAll(stats);
        return lines;
    }

    private List<String> payloadChecks() {
        List<String> checks = new ArrayList<>();
        if (params.serverChecks()) {
            checks.add(server.check().text(SERVER_REGION));
        }
        if (params.clientChecks()) {
            checks.add(clientCheck.text(CLIENT_REGION));
        }
        return checks;
    }

    String json() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("mode", params.mode().name());
        m.put("transport", params.transport().name());
        m.put("link", link);
        m.put("size", params.size());
        m.put("iters", params.iters());
        m.put("warmup", params.warmup());
        m.put("warmup_ms", params.latency() ? latency.warmupNs() / 1e6 : null);
        m.put("qps", params.qps());
        m.put("window", params.latency() ? null : params.window());
        m.put("threading", threading.toLowerCase(Locale.ROOT));
        m.put("client_cpus", clientCpus);
        m.put("time", virtualTime ? "virtual" : "real");
        boolean lat = params.latency();
        m.put("min_us", lat ? us(latency.minNs()) : null);
        m.put("p50_us", lat ? us(latency.p50Ns()) : null);
        m.put("p99_us", lat ? us(latency.p99Ns()) : null);
        m.put("p999_us", lat ? us(latency.p999Ns()) : null);
        m.put("max_us", lat ? us(latency.maxNs()) : null);
        m.put("msgs_per_sec", msgsPerSec);
        m.put("gbps", gbps());
        m.put("raw_p50_us", raw != null ? us(raw.p50Ns()) : null);
        m.put("raw_p99_us", raw != null ? us(raw.p99Ns()) : null);
        m.put("raw_p999_us", raw != null ? us(raw.p999Ns()) : null);
        m.put("raw_frame_bytes", raw != null ? frameLength(params.size()) : null);
        m.put("sent", sent);
        m.put("received", server.received());
        m.put("lost", lost());
        m.put("timeouts", lat ? latency.lost() : null);
        m.put("errors", errors + server.errors());
        return Json.object(m);
    }

    private static Double us(long nanos) {
        return nanos / 1000.0;
    }
}
