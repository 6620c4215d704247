package io.srdnic.cli.net;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** Runs the ip/sysctl commands that build test networks; a failure says which command and why. */
public final class Shell {
    private Shell() {
    }

    public static String run(String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            int rc = p.waitFor();
            if (rc != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed (exit " + rc + "): " + out
                    + (out.contains("Operation not permitted") ? " — run as root" : ""));
            }
            return out;
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + List.of(command) + ": " + e.getMessage() + " (is iproute2 installed?)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running " + List.of(command), e);
        }
    }

    /** Like {@link #run} but ignores failure: for clean-up of things that may already be gone. */
    public static void quietly(String... command) {
        try {
            run(command);
        } catch (IllegalStateException ignored) {
            // already removed
        }
    }
}
