package io.srdnic.rtrs.server;

import java.util.LinkedHashMap;
import java.util.Map;

/** What a server refused and dropped, by reason: each a count, none a log line (a peer controls their rate). */
public final class ServerCounters {
    long rejectedMalformed;
    long rejectedNoSession;
    long rejectedTooManyPaths;
    long rejectedBadConnection;
    long badIoRequests;
    long badChunkIds;
    long badInfoRequests;
    long superseded;
    long staleResponses;
    /** Answers whose post found the send queue full and went again from a later poll. */
    long deferredResponses;
    long pathsClosed;

    public Map<String, Long> snapshot() {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("rejected_malformed", rejectedMalformed);
        m.put("rejected_no_session", rejectedNoSession);
        m.put("rejected_too_many_paths", rejectedTooManyPaths);
        m.put("rejected_bad_connection", rejectedBadConnection);
        m.put("bad_io_requests", badIoRequests);
        m.put("bad_chunk_ids", badChunkIds);
        m.put("bad_info_requests", badInfoRequests);
        m.put("superseded", superseded);
        m.put("stale_responses", staleResponses);
        m.put("deferred_responses", deferredResponses);
        m.put("paths_closed", pathsClosed);
        return m;
    }
}
