package io.srdnic.cli.rnbd;

/**
 * One line per log record on stderr (time, level, message), instead of java.util.logging's two
 * (date and class, then level and message): path state changes are read, grepped and alerted on
 * line by line. Set before anything logs, unless the user chose a format
 * ({@code -Djava.util.logging.SimpleFormatter.format=...}).
 */
final class OneLineLog {
    static final String FORMAT_PROPERTY = "java.util.logging.SimpleFormatter.format";

    private OneLineLog() {
    }

    static void install() {
        if (System.getProperty(FORMAT_PROPERTY) == null) {
            System.setProperty(FORMAT_PROPERTY, "%1$tF %1$tT.%1$tL %4$s %5$s%6$s%n");
        }
    }
}
