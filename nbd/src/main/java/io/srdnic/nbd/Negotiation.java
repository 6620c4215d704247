package io.srdnic.nbd;

import io.srdnic.block.BlockDevice;
import io.srdnic.block.BlockSizes;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The fixed-newstyle handshake, server side: greeting, client flags, then options until one of
 * NBD_OPT_GO or NBD_OPT_EXPORT_NAME picks an export (transmission starts) or the client leaves.
 * Options it does not implement are answered NBD_REP_ERR_UNSUP, as fixed newstyle requires.
 * Metadata contexts: {@code base:allocation} only, for every export (a device that cannot tell
 * holes reports everything as data, which the spec allows).
 * Not the hot path: it allocates freely.
 */
final class Negotiation {
    private final WireReader in;
    private final WireWriter out;
    private final Exports exports;
    private boolean noZeroes;
    private boolean structuredReplies;
    /** The export the last NBD_OPT_SET_META_CONTEXT named, and whether it selected base:allocation. */
    private Export metaExport;
    private boolean baseAllocation;

    Negotiation(WireReader in, WireWriter out, Exports exports) {
        this.in = in;
        this.out = out;
        this.exports = exports;
    }

    /**
     * Runs the handshake. Returns the session, or null if the client aborted or went away.
     * Throws ProtocolViolation where the spec says to hang up.
     */
    Session run() throws IOException {
        ByteBuffer greeting = ByteBuffer.allocate(18);
        greeting.putLong(Nbd.NBDMAGIC).putLong(Nbd.IHAVEOPT).putShort((short) (Nbd.FLAG_FIXED_NEWSTYLE | Nbd.FLAG_NO_ZEROES));
        if (!send(greeting.flip()) || !in.fill(4)) {
            return null;
        }
        int clientFlags = in.getInt();
        if ((clientFlags & ~(Nbd.FLAG_C_FIXED_NEWSTYLE | Nbd.FLAG_C_NO_ZEROES)) != 0) {
            throw new ProtocolViolation("unknown client flags 0x" + Integer.toHexString(clientFlags));
        }
        noZeroes = (clientFlags & Nbd.FLAG_C_NO_ZEROES) != 0;
        while (true) {
            if (!in.fill(16)) {
                return null;
            }
            if (in.getLong() != Nbd.IHAVEOPT) {
                throw new ProtocolViolation("option without IHAVEOPT");
            }
            int option = in.getInt();
            long length = in.getInt() & 0xFFFF_FFFFL;
            if (length > Nbd.MAX_OPTION_LENGTH) {
                in.skip(length);
                if (option == Nbd.OPT_EXPORT_NAME) {
                    throw new ProtocolViolation("export name of " + length + " bytes");
                }
                if (!reply(option, Nbd.REP_ERR_INVALID, "option data too long")) {
                    return null;
                }
                continue;
            }
            ByteBuffer data = ByteBuffer.allocate((int) length);
            in.readFully(data);
            data.flip();
            Session session = option(option, data);
            if (session != null || out.broken()) {
                return session;
            }
            if (option == Nbd.OPT_ABORT) {
                return null;
            }
        }
    }

    /** Answers one option; returns the session if it starts transmission. */
    private Session option(int option, ByteBuffer data) throws IOException {
        switch (option) {
            case Nbd.OPT_EXPORT_NAME -> {
                return exportName(data);
            }
            case Nbd.OPT_ABORT -> reply(option, Nbd.REP_ACK, null);
            case Nbd.OPT_LIST -> list(data);
            case Nbd.OPT_STRUCTURED_REPLY -> {
                if (data.hasRemaining()) {
                    reply(option, Nbd.REP_ERR_INVALID, "NBD_OPT_STRUCTURED_REPLY takes no data");
                } else {
                    structuredReplies = true;
                    reply(option, Nbd.REP_ACK, null);
                }
            }
            case Nbd.OPT_LIST_META_CONTEXT, Nbd.OPT_SET_META_CONTEXT -> metaContext(option, data);
            case Nbd.OPT_INFO, Nbd.OPT_GO -> {
                return info(option, data);
            }
            default -> reply(option, Nbd.REP_ERR_UNSUP, null);
        }
        return null;
    }

    private Session exportName(ByteBuffer data) throws ProtocolViolation {
        String name = StandardCharsets.UTF_8.decode(data).toString();
        Export export = exports.find(name);
        if (export == null) {
            // NBD_OPT_EXPORT_NAME cannot be refused: the spec says to terminate the session.
            throw new ProtocolViolation("NBD_OPT_EXPORT_NAME for unknown export '" + name + "'");
        }
        Session session = session(export);
        ByteBuffer reply = ByteBuffer.allocate(noZeroes ? 10 : 134);
        reply.putLong(export.device().size()).putShort((short) session.transmissionFlags());
        reply.position(reply.capacity());
        return send(reply.flip()) ? session : null;
    }

    private void list(ByteBuffer data) {
        if (data.hasRemaining()) {
            reply(Nbd.OPT_LIST, Nbd.REP_ERR_INVALID, "NBD_OPT_LIST takes no data");
            return;
        }
        for (Export e : exports.all()) {
            byte[] name = e.name().getBytes(StandardCharsets.UTF_8);
            ByteBuffer server = ByteBuffer.allocate(4 + name.length).putInt(name.length).put(name);
            if (!replyWith(Nbd.OPT_LIST, Nbd.REP_SERVER, server.flip())) {
                return;
            }
        }
        reply(Nbd.OPT_LIST, Nbd.REP_ACK, null);
    }

    /** NBD_OPT_INFO and NBD_OPT_GO: name, then a count of NBD_INFO requests, then the requests. */
    private Session info(int option, ByteBuffer data) {
        int length = data.remaining();
        if (length < 6) {
            reply(option, Nbd.REP_ERR_INVALID, "option data shorter than 6 bytes");
            return null;
        }
        long nameLength = data.getInt() & 0xFFFF_FFFFL;
        if (nameLength > length - 6) {
            reply(option, Nbd.REP_ERR_INVALID, "export name longer than the option");
            return null;
        }
        byte[] nameBytes = new byte[(int) nameLength];
        data.get(nameBytes);
        int requests = data.getShort() & 0xFFFF;
        if (data.remaining() != 2 * requests) {
            reply(option, Nbd.REP_ERR_INVALID, "information request count does not match the option length");
            return null;
        }
        boolean wantName = false;
        boolean wantDescription = false;
        for (int i = 0; i < requests; i++) {
            int type = data.getShort() & 0xFFFF;
            wantName |= type == Nbd.INFO_NAME;
            wantDescription |= type == Nbd.INFO_DESCRIPTION;
        }
        String name = new String(nameBytes, StandardCharsets.UTF_8);
        Export export = exports.find(name);
        if (export == null) {
            reply(option, Nbd.REP_ERR_UNKNOWN, "no export named '" + name + "'");
            return null;
        }
        Session session = session(export);
        BlockDevice device = export.device();
        // NBD_INFO_EXPORT always; block sizes always too: a server may send them unasked.
        ByteBuffer exportInfo = ByteBuffer.allocate(12).putShort((short) Nbd.INFO_EXPORT)
            .putLong(device.size()).putShort((short) session.transmissionFlags());
        boolean ok = replyWith(option, Nbd.REP_INFO, exportInfo.flip());
        if (ok && wantName) {
            ok = replyWith(option, Nbd.REP_INFO, infoString(Nbd.INFO_NAME, export.name()));
        }
        if (ok && wantDescription && !device.description().isEmpty()) {
            ok = replyWith(option, Nbd.REP_INFO, infoString(Nbd.INFO_DESCRIPTION, device.description()));
        }
        BlockSizes sizes = device.blockSizes();
        ByteBuffer blockSize = ByteBuffer.allocate(14).putShort((short) Nbd.INFO_BLOCK_SIZE)
            .putInt(sizes.minimum()).putInt(sizes.preferred()).putInt(sizes.maximum());
        ok = ok && replyWith(option, Nbd.REP_INFO, blockSize.flip()) && reply(option, Nbd.REP_ACK, null);
        return ok && option == Nbd.OPT_GO ? session : null;
    }

    private Session session(Export export) {
        // Contexts selected for another export do not carry over to this one.
        boolean blockStatus = structuredReplies && baseAllocation && metaExport == export;
        return new Session(export, Session.transmissionFlags(export.device(), structuredReplies), structuredReplies, blockStatus);
    }

    /**
     * NBD_OPT_LIST_META_CONTEXT and NBD_OPT_SET_META_CONTEXT: export name, then queries. LIST with
     * no query, or with "base:", lists base:allocation (id 0, as the spec asks); SET selects it
     * when a query names it exactly, and replaces whatever an earlier SET selected.
     */
    private void metaContext(int option, ByteBuffer data) {
        if (!structuredReplies) {
            reply(option, Nbd.REP_ERR_INVALID, "negotiate structured replies (NBD_OPT_STRUCTURED_REPLY) first");
            return;
        }
        String name = string(data);
        if (name == null || data.remaining() < 4) {
            reply(option, Nbd.REP_ERR_INVALID, "malformed export name or query count");
            return;
        }
        long queries = data.getInt() & 0xFFFF_FFFFL;
        boolean selected = queries == 0 && option == Nbd.OPT_LIST_META_CONTEXT;
        for (long i = 0; i < queries; i++) {
            String query = string(data);
            if (query == null) {
                reply(option, Nbd.REP_ERR_INVALID, "malformed query " + i);
                return;
            }
            selected |= query.equals(Nbd.CONTEXT_BASE_ALLOCATION) || option == Nbd.OPT_LIST_META_CONTEXT && query.equals("base:");
        }
        if (data.hasRemaining()) {
            reply(option, Nbd.REP_ERR_INVALID, "bytes after the last query");
            return;
        }
        Export export = exports.find(name);
        if (export == null) {
            reply(option, Nbd.REP_ERR_UNKNOWN, "no export named '" + name + "'");
            return;
        }
        boolean set = option == Nbd.OPT_SET_META_CONTEXT;
        if (set) {
            metaExport = export;
            baseAllocation = selected;
        }
        if (selected) {
            byte[] context = Nbd.CONTEXT_BASE_ALLOCATION.getBytes(StandardCharsets.UTF_8);
            ByteBuffer reply = ByteBuffer.allocate(4 + context.length).putInt(set ? Nbd.CONTEXT_BASE_ALLOCATION_ID : 0).put(context);
            if (!replyWith(option, Nbd.REP_META_CONTEXT, reply.flip())) {
                return;
            }
        }
        reply(option, Nbd.REP_ACK, null);
    }

    /** A u32 length and that many bytes of UTF-8, or null if the data ends first. */
    private static String string(ByteBuffer data) {
        if (data.remaining() < 4) {
            return null;
        }
        long length = data.getInt() & 0xFFFF_FFFFL;
        if (length > data.remaining()) {
            return null;
        }
        byte[] bytes = new byte[(int) length];
        data.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static ByteBuffer infoString(int type, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(2 + bytes.length).putShort((short) type).put(bytes).flip();
    }

    /** A reply with no data, or with a message (error replies carry text for a human). */
    private boolean reply(int option, int type, String message) {
        ByteBuffer data = ByteBuffer.wrap(message == null ? new byte[0] : message.getBytes(StandardCharsets.UTF_8));
        return replyWith(option, type, data);
    }

    private boolean replyWith(int option, int type, ByteBuffer data) {
        ByteBuffer reply = ByteBuffer.allocate(20 + data.remaining());
        reply.putLong(Nbd.OPTION_REPLY_MAGIC).putInt(option).putInt(type).putInt(data.remaining()).put(data);
        return send(reply.flip());
    }

    private boolean send(ByteBuffer message) {
        return out.write(message);
    }
}
