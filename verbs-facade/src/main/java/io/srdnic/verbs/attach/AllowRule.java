package io.srdnic.verbs.attach;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.util.function.Predicate;

/**
 * Who may attach: the peer's credentials as the kernel gives them (SO_PEERCRED, which Java exposes
 * as a UnixDomainPrincipal: the uid as its user name; the pid is not exposed, so the dataplane
 * logs the pid the client states and checks only the uid). The default allows the dataplane's own
 * user and root.
 */
public record AllowRule(String description, Predicate<UserPrincipal> allows) {
    /** The user who owns {@code ownFile} (the dataplane's PID file) and root. */
    public static AllowRule sameUserOrRoot(Path ownFile) {
        try {
            String owner = Files.getOwner(ownFile).getName();
            return new AllowRule("uid of " + owner + " or root", u -> u.getName().equals(owner) || u.getName().equals("root"));
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the owner of " + ownFile + ": " + e.getMessage(), e);
        }
    }

    /** Nobody: for tests of the refusal. */
    public static AllowRule nobody() {
        return new AllowRule("nobody", u -> false);
    }
}
