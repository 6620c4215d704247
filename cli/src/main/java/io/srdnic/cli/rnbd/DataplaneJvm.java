package io.srdnic.cli.rnbd;

import java.util.List;

/**
 * JVM options for nbd-local's RNBD server child, a dataplane process: one thread polls RTRS and
 * serves the device, and a pause longer than the peers' patience turns into path failures. Since
 * the memory device moved off the heap and the request path allocates nothing in steady state,
 * the heap holds only set-up objects, so (docs/rnbd.md, "The server child's JVM"):
 * <ul>
 * <li>the serial collector: no concurrent GC threads competing with the poll loops on a 2-core
 * machine, and with almost no garbage its rare young collections are short;</li>
 * <li>a small fixed heap ({@code -Xms} = {@code -Xmx}), touched at start: no resizing, no page
 * faults inside a collection;</li>
 * <li>native memory (RTRS chunks, allocated in FFM arenas and counted as direct memory) limited on
 * its own, not tied to the heap size;</li>
 * <li>no hsperfdata file: nothing mapped in /tmp for jstat to read.</li>
 * </ul>
 * {@code SRDNIC_PEER_JAVA_OPTS} adds options after these (the last of a repeated option wins).
 */
final class DataplaneJvm {
    static final List<String> OPTIONS = List.of("-XX:+UseSerialGC", "-Xms128m", "-Xmx128m", "-XX:+AlwaysPreTouch",
        "-XX:MaxDirectMemorySize=512m", "-XX:-UsePerfData");

    private DataplaneJvm() {
    }
}
