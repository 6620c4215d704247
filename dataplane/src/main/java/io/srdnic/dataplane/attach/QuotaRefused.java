package io.srdnic.dataplane.attach;

/**
 * A create or an OPEN refused because it would pass a quota: one client's ({@link ClientQuota}) or
 * the total over all clients ({@link TotalQuota}). Thrown before anything is made; the server
 * answers it with an ERROR carrying the message, as any refused request, and counts it apart
 * ({@code quota_refusals}, {@code total_quota_refusals}) so an operator sees which limit bites.
 */
final class QuotaRefused extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Whether the total over all clients refused it (else the client's own quota). */
    final boolean total;

    QuotaRefused(boolean total, String message) {
        super(message, null, false, false); // a refusal is an answer, not a fault: no stack trace to fill
        this.total = total;
    }
}
