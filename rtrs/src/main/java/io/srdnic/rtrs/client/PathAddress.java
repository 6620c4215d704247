package io.srdnic.rtrs.client;

import io.srdnic.verbs.Context;

/** Where a path goes: this side's context (its link) and the server's IPv4 address on that link. */
public record PathAddress(Context context, int serverIp) {
}
