package io.srdnic.cli.rnbd;

import io.srdnic.cli.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** What nbd-local's control socket does with a line: a path's link down or up, or the session's stats as JSON. */
final class GatewayControl {
    private GatewayControl() {
    }

    static String handle(RnbdGateway gateway, String line) {
        String[] w = line.split("\\s+");
        if (w.length == 3 && w[0].equals("path") && (w[1].equals("down") || w[1].equals("up"))) {
            return gateway.setPath(Integer.parseInt(w[2]), w[1].equals("up"));
        }
        if (line.equals("stats")) {
            return statsJson(gateway.stats(), gateway.stages());
        }
        return "error: unknown command '" + line + "' (path down I | path up I | stats)";
    }

    static String statsJson(List<Map<String, Object>> paths, Map<String, Long> stages) {
        List<String> each = new ArrayList<>();
        for (Map<String, Object> p : paths) {
            each.add(Json.object(p));
        }
        return "{\"paths\":[" + String.join(",", each) + "],\"stages\":" + Json.object(stages) + "}";
    }
}
