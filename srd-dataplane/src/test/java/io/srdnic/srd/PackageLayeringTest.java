package io.srdnic.srd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The packages of srd-dataplane import one way only, as docs/architecture.md draws them: a package
 * may use its own rank and the ranks below it, never one above, and the message layers (srd, rc,
 * ud) never each other. Read from the sources, so an upward {@code import} or an inline
 * fully-qualified name fails the build with the file and line that broke the rule.
 */
class PackageLayeringTest {
    private static final Path SOURCES = Path.of("src/main/java");
    private static final String ROOT = "io.srdnic.srd";

    /** Rank of each package: higher knows lower. {@code transport.device} is what the device keeps. */
    private static final Map<String, Integer> RANK = Map.ofEntries(
        Map.entry("wire", 0),
        Map.entry("api", 1),
        Map.entry("counters", 1),
        Map.entry("transport.engine", 2),
        Map.entry("transport.qp", 3),
        Map.entry("transport.port", 4),
        Map.entry("transport.srd", 5),
        Map.entry("transport.rc", 5),
        Map.entry("transport.ud", 5),
        Map.entry("transport.device", 6));

    private static final Pattern PACKAGE = Pattern.compile("^package " + Pattern.quote(ROOT) + "\\.([\\w.]+);", Pattern.MULTILINE);
    /** An import or an inline qualified name of a class of this module: the package is all before the first capital. */
    private static final Pattern REFERENCE = Pattern.compile("\\b" + Pattern.quote(ROOT) + "\\.((?:[a-z]\\w*\\.)*[a-z]\\w*)\\.[A-Z]");

    @Test
    void everyPackageImportsOnlyItsOwnRankOrBelow() {
        List<String> violations = new ArrayList<>();
        for (Path file : javaFiles()) {
            String source = read(file);
            Matcher p = PACKAGE.matcher(source);
            assertTrue(p.find(), file + " has no package line");
            String from = p.group(1);
            Integer fromRank = RANK.get(from);
            assertTrue(fromRank != null, "package " + from + " (" + file + ") has no rank: give it one above");
            String[] lines = source.split("\n", -1);
            for (int i = 0; i < lines.length; i++) {
                String line = lines[i];
                if (isComment(line)) {
                    continue;
                }
                Matcher r = REFERENCE.matcher(line);
                while (r.find()) {
                    String to = r.group(1);
                    String why = rule(from, fromRank, to);
                    if (why != null) {
                        violations.add(SOURCES.relativize(file) + ":" + (i + 1) + ": " + from + " -> " + to + " (" + why + ")");
                    }
                }
            }
        }
        assertEquals(List.of(), violations, "imports against the layering of docs/architecture.md");
    }

    /** The rule a reference breaks, or null. */
    static String rule(String from, int fromRank, String to) {
        if (to.equals(from)) {
            return null;
        }
        Integer toRank = RANK.get(to);
        if (toRank == null) {
            return "unknown package";
        }
        if (toRank > fromRank) {
            return "upward";
        }
        if (toRank == fromRank && from.startsWith("transport.") && to.startsWith("transport.")) {
            return "sideways between message layers";
        }
        return null;
    }

    /**
     * The classes below the device that still take the device itself ({@code TransportDevice}) as a
     * field or parameter, reaching back into it: the list may only shrink. A room's collaborators
     * are handed in at construction (as {@code qp/}'s {@code QpDevice}, {@code QpEvents},
     * {@code SrqEvents}); the device may hand itself to none of the sub-packages at all.
     */
    private static final Set<String> REACHING_BACK = Set.of("transport/device/SendPosting.java", "transport/device/TransportCounters.java");
    private static final Pattern TAKES_DEVICE = Pattern.compile("\\bSrdTransport\\s+\\w+\\s*[,;)=]");

    @Test
    void onlyTheListedClassesReachBackIntoTheDevice() {
        List<String> reaching = new ArrayList<>();
        for (Path file : javaFiles()) {
            String name = SOURCES.resolve(ROOT.replace('.', '/')).relativize(file).toString().replace('\\', '/');
            if (!name.equals("transport/device/TransportDevice.java") && TAKES_DEVICE.matcher(read(file)).find()) {
                reaching.add(name);
            }
        }
        List<String> added = reaching.stream().filter(n -> !REACHING_BACK.contains(n)).toList();
        assertEquals(List.of(), added, "new reach-backs into TransportDevice: hand these classes what they use at construction instead");
        for (String n : reaching) {
            assertTrue(n.startsWith("transport/device/"), n + " is below the device and takes TransportDevice");
        }
    }

    /** Every class of the transport is in a room: the root package keeps only its package-info (the map of the rooms). */
    @Test
    void theTransportRootHoldsNoClass() {
        List<String> inRoot = javaFiles().stream()
            .filter(f -> f.getParent().equals(SOURCES.resolve(ROOT.replace('.', '/')).resolve("transport")))
            .map(f -> f.getFileName().toString())
            .toList();
        assertEquals(List.of(), inRoot, "classes in io.srdnic.srd.transport itself: give each a room (device, srd, rc, ud, port, qp, "
            + "engine)");
    }

    @Test
    void theRuleSeesUpwardOrSidewaysReferences() {
        assertEquals("upward", rule("transport.qp", RANK.get("transport.qp"), "transport.device"));
        assertEquals("upward", rule("transport.port", RANK.get("transport.port"), "transport.rc"));
        assertEquals("upward", rule("api", RANK.get("api"), "transport.device"));
        assertEquals("sideways between message layers", rule("transport.rc", RANK.get("transport.rc"), "transport.srd"));
        assertEquals(null, rule("transport.device", RANK.get("transport.device"), "transport.port"));
        assertEquals(null, rule("transport.port", RANK.get("transport.port"), "transport.qp"));
        assertEquals("upward", rule("transport.qp", RANK.get("transport.qp"), "transport.port"));
        assertEquals("upward", rule("transport.srd", RANK.get("transport.srd"), "transport.device"));
        assertEquals("upward", rule("transport.ud", RANK.get("transport.ud"), "transport.device"));
        assertEquals("sideways between message layers", rule("transport.srd", RANK.get("transport.srd"), "transport.rc"));
        assertEquals("sideways between message layers", rule("transport.ud", RANK.get("transport.ud"), "transport.srd"));
        assertEquals(null, rule("transport.srd", RANK.get("transport.srd"), "transport.qp"));
        assertEquals(null, rule("transport.device", RANK.get("transport.device"), "transport.srd"));
    }

    private static boolean isComment(String line) {
        String t = line.strip();
        return t.startsWith("*") || t.startsWith("/*") || t.startsWith("//");
    }

    private static List<Path> javaFiles() {
        try (Stream<Path> files = Files.walk(SOURCES.resolve(ROOT.replace('.', '/')))) {
            return files.filter(f -> f.toString().endsWith(".java") && !f.endsWith("package-info.java")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
