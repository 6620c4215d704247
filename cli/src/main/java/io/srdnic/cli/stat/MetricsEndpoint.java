package io.srdnic.cli.stat;

import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;

/** A Prometheus scrape endpoint ({@code /metrics}) over a directory's counters files: the client library's HTTP server. */
final class MetricsEndpoint implements AutoCloseable {
    private final HTTPServer server;

    private MetricsEndpoint(HTTPServer server) {
        this.server = server;
    }

    /** Serves {@code dir}'s counters on {@code port} (0: any free port; see {@link #port()}). */
    static MetricsEndpoint start(CountersDirectory dir, int port) {
        PrometheusRegistry registry = new PrometheusRegistry();
        registry.register(new CountersMetrics(dir));
        try {
            return new MetricsEndpoint(HTTPServer.builder().port(port).registry(registry).buildAndStart());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serve metrics on port " + port + ": " + e.getMessage()
                    + " (choose another --metrics-port)", e);
        }
    }

    int port() {
        return server.getPort();
    }

    @Override
    public void close() {
        server.close();
    }
}
