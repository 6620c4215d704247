-- srdnic.lua: a Wireshark / tshark dissector for srdnic's wire format (docs/wire-format.md).
--
--   tshark -X lua_script:tools/wireshark/srdnic.lua -r capture.pcap
--   or copy it to ~/.local/lib/wireshark/plugins/ (Wireshark 4.x) and restart Wireshark.
--
-- Ethernet / IPv4 / UDP are Wireshark's; this dissects the UDP payload (and, inside a UD SEND to
-- the management QP, the connection manager's message: srdnic.cm.*): the 48-byte SRD header of
-- data and probe packets (SEND, SEND_WITH_IMM, RDMA_WRITE, RDMA_READ, RDMA_WRITE_WITH_IMM,
-- READ_RESPONSE, ATOMIC_CMP_SWAP, ATOMIC_FETCH_ADD, PROBE, PROBE_REPLY), the extended header of the
-- RDMA types (24 bytes: remote address, rkey, the request's length, this packet's offset in it), of
-- READ_RESPONSE (16 bytes: read token, offset, the read's length, status) and of the atomics (32
-- bytes: remote address, rkey, reserved, swap or add, compare), then the data; UD datagrams (the same header with
-- the unreliable flag); and the SRD ACK (72 bytes: the cumulative PSN, echoed epoch and timestamp,
-- trigger PSN, four 64-bit SACK words, then 0..16 drop entries of PSN, reason and detail).
--
-- RC packets are these with FLAG_RC (docs/wire-format.md, "RC on this wire"): a data packet's
-- FLAG_FIRST / FLAG_LAST say where it sits in its message (srdnic.rc.segment: FIRST, MIDDLE, LAST,
-- ONLY) and its Q_Key field is the message's receive sequence number (srdnic.rc.recv_seq); an RC
-- ACK names the responder's and the requester's QPNs where SRD names contexts (srdnic.src_qpn,
-- srdnic.dst_qpn), its cumulative PSN is the next PSN the responder executes, FLAG_HELD says the
-- packet there waits at the responder, and its one drop entry is a NAK whose detail byte, for RNR,
-- is the RNR timer code (srdnic.ack.drop.rnr_timer). A READ_RESPONSE that answers an atomic (the
-- last READ or atomic with its token, from the QP it is addressed to, was an atomic) shows the
-- word's original value (srdnic.atomic.original) and the request's frame.
--
-- SRC packets (docs/wire-format.md, "SRC on this wire") are RC's with FLAG_SRC (srdnic.flags.src)
-- on every request packet: a data packet with FLAG_RC and FLAG_SRC carries the responder's SRQ
-- number in the destination context id field (srdnic.src.srq_number, shown there instead of
-- srdnic.dst_context), and its Info column starts with "SRC". READ_RESPONSEs and ACKs answer a QP
-- and are RC's.
--
-- Registered on UDP port 21330 (SrdPort.DEFAULT; the preference srdnic.udp_port moves it) and as
-- a heuristic dissector on UDP ("srdnic_udp") that claims a payload only if it passes the checks
-- SrdParser applies to the SRD part: version 1, a known type, lengths that agree (an RDMA packet's
-- payload holds at least its extended header), QPNs of 24 bits and drop reasons that exist. A
-- payload on the SRD port that fails them is still shown, with an expert error named after
-- SrdParser's ParseError (srdnic.wrong_version, srdnic.bad_length, ...).
-- The L2-L4 checks (IPv4 header, fragments, lengths and checksums) are Wireshark's own.
--
-- Field names: srdnic.<field> for the header every SRD packet starts with and for the data/probe
-- header, srdnic.rdma.<field> for the RDMA header, srdnic.read_response.<field> for READ_RESPONSE's,
-- srdnic.atomic.<field> for the atomics', srdnic.ack.<field> for the ACK, srdnic.ack.drop.<field> for a drop entry.
--
-- To add a packet type: give it a row in
-- PACKET_TYPES naming its header layout (and its extended header, if it has one); a new layout is
-- one entry in LAYOUTS with its length, the field in bytes 2..3, its check (what the Java parser
-- refuses past the length) and its dissect function, a new extended header one entry in EXTENDED;
-- new fields go through field(). check(), the heuristic and the port dissector all work from those
-- tables. Data is shown as bytes: srdnic does not know what applications put in it.

local srdnic = Proto("srdnic", "srdnic SRD transport")

local SRD_PORT_DEFAULT = 21330      -- SrdPort.DEFAULT, 0x5352 "SR"
local ENTROPY_BASE = 49152          -- SrdPort.ENTROPY_BASE: UDP source port = 49152 + path entropy
local VERSION = 1                   -- SrdHeader.VERSION
local DATA_LENGTH = 48              -- SrdHeader.LENGTH
local ACK_LENGTH = 72               -- SrdAck.LENGTH
local DROP_ENTRY_LENGTH = 8         -- SrdAck.DROP_ENTRY_LENGTH
local MAX_DROPS = 16                -- SrdAck.MAX_DROPS
local SACK_WORDS = 4                -- SrdAck.SACK_WORDS
local MAX_QPN = 0xFFFFFF            -- SrdParser.MAX_QPN
local FLAG_RETRANSMISSION = 0x01    -- SrdHeader.FLAG_RETRANSMISSION
local FLAG_UNRELIABLE = 0x02        -- SrdHeader.FLAG_UNRELIABLE
local FLAG_RC = 0x04                -- SrdHeader.FLAG_RC: an RC packet
local FLAG_FIRST = 0x08             -- SrdHeader.FLAG_FIRST: an RC data packet that starts its message
local FLAG_LAST = 0x10              -- SrdHeader.FLAG_LAST: an RC data packet that ends its message
local FLAG_HELD = 0x20              -- SrdHeader.FLAG_HELD: on an RC ACK, the packet at the cumulative PSN waits at the responder
local FLAG_SRC = 0x40               -- SrdHeader.FLAG_SRC: an SRC request packet, the SRQ number in the destination context id
local FLAG_DUPLICATE = 0x80         -- SrdHeader.FLAG_DUPLICATE: on an ACK, the duplicate PSN was received again (a DSACK)
local ATOMIC_ANSWER_LENGTH = 8      -- an atomic's answer: READ_RESPONSE data of the word's original value
local RNR = 2                       -- DropReason.RNR: an RC RNR NAK carries the RNR timer code in the detail byte

-- PacketType: the low four bits of byte 0. layout names an entry of LAYOUTS, extended one of
-- EXTENDED (the header between the data header and the data, counted in the payload length);
-- data = isData(t). An RDMA_READ and an atomic request carry the requester's read token in the
-- immediate field (an atomic's answer is a READ_RESPONSE of 8 bytes: the word's original value).
local PACKET_TYPES = {
    [1] = { name = "SEND",                layout = "data", data = true },
    [2] = { name = "SEND_WITH_IMM",       layout = "data", data = true, immediate = true },
    [3] = { name = "RDMA_WRITE",          layout = "data", data = true, extended = "rdma" },
    [4] = { name = "RDMA_READ",           layout = "data", data = true, extended = "rdma", read_token = true },
    [5] = { name = "ACK",                 layout = "ack" },
    [6] = { name = "PROBE",               layout = "data", probe = true },
    [7] = { name = "PROBE_REPLY",         layout = "data", probe = true },
    [8] = { name = "RDMA_WRITE_WITH_IMM", layout = "data", data = true, extended = "rdma", immediate = true },
    [9] = { name = "READ_RESPONSE",       layout = "data", data = true, extended = "read_response" },
    [10] = { name = "ATOMIC_CMP_SWAP",    layout = "data", data = true, extended = "atomic", read_token = true },
    [11] = { name = "ATOMIC_FETCH_ADD",   layout = "data", data = true, extended = "atomic", read_token = true },
}

-- DropReason, carried in ACK drop entries (and, non-zero, in a READ_RESPONSE's status).
local DROP_REASONS = {
    [1] = "BAD_DEST_QP",
    [2] = "RNR",
    [3] = "REMOTE_OPERATION",
    [4] = "REMOTE_INVALID_REQUEST",
    [5] = "REMOTE_ACCESS",
    [6] = "PSN_SEQUENCE",
}
local MAX_DROP_REASON = 6

-- RnrTimer: IBTA's five-bit RNR NAK timer codes and the waits they name (code 0 is the longest).
local RNR_TIMER_US = { [0] = 655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1280, 1920, 2560, 3840, 5120,
    7680, 10240, 15360, 20480, 30720, 40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520 }
local RNR_TIMERS = {}
for code, us in pairs(RNR_TIMER_US) do
    RNR_TIMERS[code] = string.format("%g ms", us / 1000)
end

-- READ_RESPONSE status: 0 is data, anything else the DropReason that failed the read.
local READ_STATUS = { [0] = "DATA" }
for value, name in pairs(DROP_REASONS) do
    READ_STATUS[value] = name
end

-- Header layouts and extended headers by name (filled in below, once their functions exist).
local LAYOUTS
local EXTENDED

local type_names = {}
for value, t in pairs(PACKET_TYPES) do
    type_names[value] = t.name
end

-- ------------------------------------------------------------------ fields

-- One ProtoField per header field, in wire order; srdnic.fields keeps that order (tshark -G fields).
local f = {}
local field_list = {}
local function field(key, protofield)
    f[key] = protofield
    field_list[#field_list + 1] = protofield
end

-- common to every SRD packet: byte 0..15
field("version", ProtoField.uint8("srdnic.version", "Version", base.DEC, nil, 0xF0))
field("type", ProtoField.uint8("srdnic.type", "Type", base.DEC, type_names, 0x0F))
field("flags", ProtoField.uint8("srdnic.flags", "Flags", base.HEX))
field("flag_retransmission", ProtoField.bool("srdnic.flags.retransmission", "Retransmission", 8, nil, FLAG_RETRANSMISSION))
field("flag_unreliable", ProtoField.bool("srdnic.flags.unreliable", "Unreliable (UD datagram)", 8, nil, FLAG_UNRELIABLE))
field("flag_rc", ProtoField.bool("srdnic.flags.rc", "RC", 8, nil, FLAG_RC))
field("flag_first", ProtoField.bool("srdnic.flags.first", "First packet of its message (RC)", 8, nil, FLAG_FIRST))
field("flag_last", ProtoField.bool("srdnic.flags.last", "Last packet of its message (RC)", 8, nil, FLAG_LAST))
field("flag_held", ProtoField.bool("srdnic.flags.held", "Held: the packet at the cumulative PSN waits at the responder (RC ACK)", 8, nil, FLAG_HELD))
field("flag_src", ProtoField.bool("srdnic.flags.src", "SRC: names the responder's SRQ (request packet)", 8, nil, FLAG_SRC))
field("flag_duplicate", ProtoField.bool("srdnic.flags.duplicate", "Duplicate: the ACK reports a PSN received again (DSACK)", 8, nil, FLAG_DUPLICATE))
field("src_context", ProtoField.uint32("srdnic.src_context", "Source context id", base.HEX))
field("dst_context", ProtoField.uint32("srdnic.dst_context", "Destination context id", base.HEX))
field("src_srq_number", ProtoField.uint32("srdnic.src.srq_number", "SRQ number (SRC: the responder's SRQ the message is for)", base.HEX))
field("epoch", ProtoField.uint32("srdnic.epoch", "Sender epoch", base.HEX))
-- data and probe header: bytes 2..3 and 16..47
field("payload_length", ProtoField.uint16("srdnic.payload_length", "Payload length", base.DEC))
field("psn", ProtoField.uint32("srdnic.psn", "PSN", base.DEC))
field("send_base", ProtoField.uint32("srdnic.send_base", "Send base PSN", base.DEC))
field("src_qpn", ProtoField.uint32("srdnic.src_qpn", "Source QPN", base.HEX))
field("dst_qpn", ProtoField.uint32("srdnic.dst_qpn", "Destination QPN", base.HEX))
field("qkey", ProtoField.uint32("srdnic.qkey", "Q_Key", base.HEX))
field("immediate", ProtoField.uint32("srdnic.immediate", "Immediate data", base.HEX))
field("timestamp", ProtoField.uint64("srdnic.timestamp", "Timestamp (ns)", base.DEC))
field("payload", ProtoField.bytes("srdnic.payload", "Payload"))

-- connection manager messages (CmMessage, docs/wire-format.md "Connection manager"): the payload of
-- a UD SEND to the management QP (QPN 1, Q_Key 0x80010000), 48 bytes and private data
local CM_QPN = 1
local CM_QKEY = 0x80010000
local CM_HEADER_LENGTH = 48
local cm_types = { [1] = "REQ", [2] = "REP", [3] = "RTU", [4] = "REJ", [5] = "DREQ", [6] = "DREP", [7] = "MRA" }
local cm_transports = { [0] = "RC", [1] = "XRC" }
field("cm_version", ProtoField.uint8("srdnic.cm.version", "CM version", base.DEC))
field("cm_type", ProtoField.uint8("srdnic.cm.type", "CM message", base.DEC, cm_types))
field("cm_private_length", ProtoField.uint16("srdnic.cm.private_length", "Private data length", base.DEC))
field("cm_local_comm_id", ProtoField.uint32("srdnic.cm.local_comm_id", "Sender's communication id", base.HEX))
field("cm_remote_comm_id", ProtoField.uint32("srdnic.cm.remote_comm_id", "Receiver's communication id", base.HEX))
field("cm_service_id", ProtoField.uint64("srdnic.cm.service_id", "Service id (port space << 16 | port)", base.HEX))
field("cm_transport", ProtoField.uint8("srdnic.cm.transport", "Transport (REQ, REP)", base.DEC, cm_transports))
field("cm_qpn", ProtoField.uint24("srdnic.cm.qpn", "QPN (REQ, REP)", base.HEX))
field("cm_psn", ProtoField.uint24("srdnic.cm.psn", "Starting PSN (REQ, REP)", base.DEC))
field("cm_responder_resources", ProtoField.uint8("srdnic.cm.responder_resources", "Responder resources", base.DEC))
field("cm_initiator_depth", ProtoField.uint8("srdnic.cm.initiator_depth", "Initiator depth", base.DEC))
field("cm_retry_count", ProtoField.uint8("srdnic.cm.retry_count", "Retry count", base.DEC, nil, 0xF0))
field("cm_rnr_retry_count", ProtoField.uint8("srdnic.cm.rnr_retry_count", "RNR retry count", base.DEC, nil, 0x0F))
field("cm_path_mtu", ProtoField.uint8("srdnic.cm.path_mtu", "Path MTU (IBTA code: 1 = 256 .. 5 = 4096)", base.DEC))
field("cm_mac", ProtoField.ether("srdnic.cm.mac", "Sender's MAC"))
field("cm_ip", ProtoField.ipv4("srdnic.cm.ip", "Sender's IPv4 address"))
field("cm_udp_port", ProtoField.uint16("srdnic.cm.udp_port", "Sender's SRD UDP port", base.DEC))
field("cm_reject_reason", ProtoField.uint16("srdnic.cm.reject_reason", "Reject reason (REJ)", base.DEC))
field("cm_private_data", ProtoField.bytes("srdnic.cm.private_data", "Private data"))
field("probe_path", ProtoField.uint32("srdnic.probe.path", "Probed path (the PSN field of a probe)", base.DEC))
-- RC data packets: FLAG_FIRST / FLAG_LAST by name, and what the Q_Key field carries on RC
field("rc_segment", ProtoField.string("srdnic.rc.segment", "Place in its message (RC)"))
field("rc_recv_seq", ProtoField.uint32("srdnic.rc.recv_seq",
    "Receive sequence number (RC: receive-consuming messages the QP sent before this one)", base.DEC))
-- RDMA extended header (RDMA_WRITE, RDMA_WRITE_WITH_IMM, RDMA_READ): bytes 48..71
field("rdma", ProtoField.none("srdnic.rdma", "RDMA header"))
field("rdma_address", ProtoField.uint64("srdnic.rdma.address", "Remote address", base.HEX))
field("rdma_rkey", ProtoField.uint32("srdnic.rdma.rkey", "rkey", base.HEX))
field("rdma_length", ProtoField.uint32("srdnic.rdma.length", "Length of the whole request", base.DEC))
field("rdma_offset", ProtoField.uint32("srdnic.rdma.offset", "Offset of this packet's data in the request", base.DEC))
field("rdma_reserved", ProtoField.uint32("srdnic.rdma.reserved", "Reserved", base.HEX))
field("rdma_read_token", ProtoField.uint32("srdnic.rdma.read_token", "Read token (the immediate field of an RDMA_READ or an atomic)", base.HEX))
-- READ_RESPONSE extended header: bytes 48..63
field("read_response", ProtoField.none("srdnic.read_response", "READ_RESPONSE header"))
field("rr_token", ProtoField.uint32("srdnic.read_response.token", "Read token", base.HEX))
field("rr_offset", ProtoField.uint32("srdnic.read_response.offset", "Offset of this data in the read", base.DEC))
field("rr_length", ProtoField.uint32("srdnic.read_response.length", "Length of the whole read", base.DEC))
field("rr_status", ProtoField.uint8("srdnic.read_response.status", "Status", base.DEC, READ_STATUS))
field("rr_reserved", ProtoField.uint24("srdnic.read_response.reserved", "Reserved", base.HEX))
-- atomic extended header (ATOMIC_CMP_SWAP, ATOMIC_FETCH_ADD): bytes 48..79
field("atomic", ProtoField.none("srdnic.atomic", "Atomic header"))
field("atomic_address", ProtoField.uint64("srdnic.atomic.address", "Remote address of the 64-bit word", base.HEX))
field("atomic_rkey", ProtoField.uint32("srdnic.atomic.rkey", "rkey", base.HEX))
field("atomic_reserved", ProtoField.uint32("srdnic.atomic.reserved", "Reserved", base.HEX))
field("atomic_swap_add", ProtoField.uint64("srdnic.atomic.swap_add", "Swap (CMP_SWAP) or add (FETCH_ADD)", base.HEX))
field("atomic_compare", ProtoField.uint64("srdnic.atomic.compare", "Compare (CMP_SWAP)", base.HEX))
-- an atomic's answer: a READ_RESPONSE of 8 bytes
field("atomic_original", ProtoField.uint64("srdnic.atomic.original", "Atomic's answer: the word's original value", base.HEX))
field("atomic_request_in", ProtoField.framenum("srdnic.atomic.request_in", "Answers the atomic in frame"))
-- generated from the UDP source port
field("entropy", ProtoField.uint16("srdnic.entropy", "Path entropy (UDP source port - 49152)", base.DEC))
-- ACK: bytes 2..3 and 16..71, then the drop entries
field("drop_count", ProtoField.uint16("srdnic.ack.drop_count", "Drop count", base.DEC))
field("cumulative_psn", ProtoField.uint32("srdnic.ack.cumulative_psn", "Cumulative PSN (first not received)", base.DEC))
field("echoed_epoch", ProtoField.uint32("srdnic.ack.echoed_epoch", "Echoed sender epoch", base.HEX))
field("trigger_psn", ProtoField.uint32("srdnic.ack.trigger_psn", "Trigger PSN", base.DEC))
field("ack_duplicate_psn", ProtoField.uint32("srdnic.ack.duplicate_psn", "Duplicate PSN (received again; 0 without the flag)", base.DEC))
field("echoed_timestamp", ProtoField.uint64("srdnic.ack.echoed_timestamp", "Echoed timestamp (ns)", base.DEC))
field("sack", ProtoField.uint64("srdnic.ack.sack", "SACK word", base.HEX))
field("sacked_psn", ProtoField.uint32("srdnic.ack.sacked_psn", "Selectively acknowledged PSN", base.DEC))
field("sack_count", ProtoField.uint16("srdnic.ack.sack_count", "PSNs selectively acknowledged", base.DEC))
field("drop", ProtoField.none("srdnic.ack.drop", "Drop entry"))
field("drop_psn", ProtoField.uint32("srdnic.ack.drop.psn", "PSN", base.DEC))
field("drop_reason", ProtoField.uint8("srdnic.ack.drop.reason", "Reason", base.DEC, DROP_REASONS))
field("drop_detail", ProtoField.uint8("srdnic.ack.drop.detail", "Detail", base.DEC))
field("drop_rnr_timer", ProtoField.uint8("srdnic.ack.drop.rnr_timer", "RNR timer (RC RNR NAK: how long the requester waits)", base.DEC, RNR_TIMERS))
field("drop_reserved", ProtoField.uint16("srdnic.ack.drop.reserved", "Reserved", base.HEX))
srdnic.fields = field_list

-- Expert infos: one per ParseError the SRD part can fail with (SrdParser checks 9-13).
local e = {
    truncated     = ProtoExpert.new("srdnic.truncated", "SRD part shorter than its header (TRUNCATED)", expert.group.MALFORMED, expert.severity.ERROR),
    wrong_version = ProtoExpert.new("srdnic.wrong_version", "SRD version not 1 (WRONG_VERSION)", expert.group.MALFORMED, expert.severity.ERROR),
    unknown_type  = ProtoExpert.new("srdnic.unknown_type", "Packet type not defined (UNKNOWN_TYPE)", expert.group.MALFORMED, expert.severity.ERROR),
    oversized     = ProtoExpert.new("srdnic.oversized", "Payload over the SRD MTU, or more than 16 drop entries (OVERSIZED)", expert.group.MALFORMED, expert.severity.ERROR),
    bad_length    = ProtoExpert.new("srdnic.bad_length", "Length fields disagree with the UDP length, or cut an extended header (BAD_LENGTH)", expert.group.MALFORMED, expert.severity.ERROR),
    out_of_range  = ProtoExpert.new("srdnic.out_of_range", "Field out of range: QPN over 24 bits or unknown drop reason (OUT_OF_RANGE)", expert.group.MALFORMED, expert.severity.ERROR),
    retransmission = ProtoExpert.new("srdnic.retransmission", "Retransmission (same PSN sent again)", expert.group.SEQUENCE, expert.severity.NOTE),
}
srdnic.experts = { e.truncated, e.wrong_version, e.unknown_type, e.oversized, e.bad_length, e.out_of_range, e.retransmission }

srdnic.prefs.udp_port = Pref.uint("UDP port", SRD_PORT_DEFAULT,
    "UDP destination port of SRD traffic (SrdPort.DEFAULT = 21330; srdnic's udp-port setting)")
srdnic.prefs.mtu = Pref.uint("SRD MTU", 4096,
    "Largest payload one packet may carry: a longer one is OVERSIZED (4096 on sim, ring and memif)")

-- ------------------------------------------------------------------ checks

-- Each layout's check mirrors SrdParser for that header, past the length check every layout has:
-- it returns nil when the SRD part (srd_length bytes, the UDP payload) is valid, else the expert
-- key and a message.
local function check_data(tvb, srd_length, ptype)
    local payload = tvb(2, 2):uint()
    if payload > srdnic.prefs.mtu then
        return "oversized", string.format("payload length %d over the SRD MTU %d", payload, srdnic.prefs.mtu)
    end
    if payload ~= srd_length - DATA_LENGTH then
        return "bad_length", string.format("payload length %d but %d bytes follow the header", payload, srd_length - DATA_LENGTH)
    end
    if not ptype.data and payload ~= 0 then
        return "bad_length", string.format("a %s carries no payload, payload length %d", ptype.name, payload)
    end
    local extended = ptype.extended and EXTENDED[ptype.extended]
    if extended and payload < extended.length then
        return "bad_length", string.format("payload length %d is shorter than the %d-byte %s header %s carries", payload,
            extended.length, extended.name, ptype.name)
    end
    local src_qpn, dst_qpn = tvb(24, 4):uint(), tvb(28, 4):uint()
    if src_qpn > MAX_QPN or dst_qpn > MAX_QPN then
        return "out_of_range", string.format("QPN over 24 bits (source 0x%08x, destination 0x%08x)", src_qpn, dst_qpn)
    end
    return nil
end

local function check_ack(tvb, srd_length)
    local drops = tvb(2, 2):uint()
    if drops > MAX_DROPS then
        return "oversized", string.format("%d drop entries, at most %d", drops, MAX_DROPS)
    end
    if srd_length ~= ACK_LENGTH + DROP_ENTRY_LENGTH * drops then
        return "bad_length", string.format("%d drop entries make %d bytes, the UDP payload is %d",
            drops, ACK_LENGTH + DROP_ENTRY_LENGTH * drops, srd_length)
    end
    for i = 0, drops - 1 do
        local reason = tvb(ACK_LENGTH + DROP_ENTRY_LENGTH * i + 4, 1):uint()
        if DROP_REASONS[reason] == nil then
            return "out_of_range", string.format("drop entry %d has reason %d, not 1..%d", i, reason, MAX_DROP_REASON)
        end
    end
    return nil
end

-- ------------------------------------------------------------------ dissection

local function hex32(v)
    return string.format("0x%08x", v)
end

-- Whether a packet is RC's: FLAG_RC, and not a UD datagram (FLAG_UNRELIABLE decides first).
local function is_rc(flags)
    return bit32.band(flags, FLAG_RC) ~= 0 and bit32.band(flags, FLAG_UNRELIABLE) == 0
end

-- Whether a packet is an SRC request: an RC data packet with FLAG_SRC, its SRQ number in bytes 8..11.
local function is_src(flags, ptype)
    return is_rc(flags) and ptype.data and bit32.band(flags, FLAG_SRC) ~= 0
end

-- An RC data packet's place in its message, from FLAG_FIRST and FLAG_LAST.
local function rc_segment(flags)
    local first = bit32.band(flags, FLAG_FIRST) ~= 0
    local last = bit32.band(flags, FLAG_LAST) ~= 0
    if first then
        return last and "ONLY" or "FIRST"
    end
    return last and "LAST" or "MIDDLE"
end

-- The READs and atomics seen so far, by requester, responder, requester's QPN and token: the last
-- request per key, {frame, atomic}. A READ_RESPONSE answers an atomic when the last request with its
-- token, from the QP it is addressed to, was an atomic; found on the first pass, in frame order, and
-- kept per frame for later passes (Wireshark's GUI dissects a frame again when it is clicked).
local requests = {}
local atomic_answers = {}

function srdnic.init()
    requests = {}
    atomic_answers = {}
end

local function request_key(requester, responder, qpn, token)
    return string.format("%s>%s:%d:%d", tostring(requester), tostring(responder), qpn, token)
end

-- The frame of the atomic the READ_RESPONSE in tvb answers, or nil; notes a READ or atomic request.
local function track_atomics(tvb, pinfo, ptype_value)
    if pinfo.visited then
        return atomic_answers[pinfo.number]
    end
    if ptype_value == 9 and tvb:len() >= DATA_LENGTH + 4 then
        local request = requests[request_key(pinfo.dst, pinfo.src, tvb(28, 4):uint(), tvb(DATA_LENGTH, 4):uint())]
        if request ~= nil and request.atomic then
            atomic_answers[pinfo.number] = request.frame
        end
    elseif ptype_value == 4 or ptype_value == 10 or ptype_value == 11 then
        requests[request_key(pinfo.src, pinfo.dst, tvb(24, 4):uint(), tvb(36, 4):uint())] = {
            frame = pinfo.number, atomic = ptype_value ~= 4 }
    end
    return atomic_answers[pinfo.number]
end

-- The header every SRD packet starts with (bytes 0..15, both layouts); bytes 2..3 differ, and an RC
-- ACK names QPNs in bytes 4..11 where everything else names contexts.
local function dissect_common(tvb, tree, ptype)
    local flags = tvb(1, 1):uint()
    tree:add(f.version, tvb(0, 1))
    tree:add(f.type, tvb(0, 1))
    local flags_item = tree:add(f.flags, tvb(1, 1))
    flags_item:add(f.flag_retransmission, tvb(1, 1))
    flags_item:add(f.flag_unreliable, tvb(1, 1))
    flags_item:add(f.flag_rc, tvb(1, 1))
    flags_item:add(f.flag_first, tvb(1, 1))
    flags_item:add(f.flag_last, tvb(1, 1))
    flags_item:add(f.flag_held, tvb(1, 1))
    flags_item:add(f.flag_src, tvb(1, 1))
    flags_item:add(f.flag_duplicate, tvb(1, 1))
    tree:add(LAYOUTS[ptype.layout].length_field, tvb(2, 2))
    if ptype.layout == "ack" and is_rc(flags) then
        tree:add(f.src_qpn, tvb(4, 4)):set_text(string.format("Source QPN (the responder's): 0x%x", tvb(4, 4):uint()))
        tree:add(f.dst_qpn, tvb(8, 4)):set_text(string.format("Destination QPN (the requester's): 0x%x", tvb(8, 4):uint()))
    elseif is_src(flags, ptype) then
        tree:add(f.src_context, tvb(4, 4))
        tree:add(f.src_srq_number, tvb(8, 4))
    else
        tree:add(f.src_context, tvb(4, 4))
        tree:add(f.dst_context, tvb(8, 4))
    end
    tree:add(f.epoch, tvb(12, 4))
end

-- A CM message in the data of a UD SEND to the management QP; returns the Info column's words for it.
local function dissect_cm(tvb, tree)
    local t = tree:add(srdnic, tvb, "Connection manager")
    local kind = tvb(1, 1):uint()
    t:add(f.cm_version, tvb(0, 1))
    t:add(f.cm_type, tvb(1, 1))
    t:add(f.cm_private_length, tvb(2, 2))
    t:add(f.cm_local_comm_id, tvb(4, 4))
    t:add(f.cm_remote_comm_id, tvb(8, 4))
    t:add(f.cm_service_id, tvb(12, 8))
    t:add(f.cm_transport, tvb(20, 1))
    t:add(f.cm_qpn, tvb(21, 3))
    t:add(f.cm_psn, tvb(25, 3))
    t:add(f.cm_responder_resources, tvb(28, 1))
    t:add(f.cm_initiator_depth, tvb(29, 1))
    t:add(f.cm_retry_count, tvb(30, 1))
    t:add(f.cm_rnr_retry_count, tvb(30, 1))
    t:add(f.cm_path_mtu, tvb(31, 1))
    t:add(f.cm_mac, tvb(34, 6))
    t:add(f.cm_ip, tvb(40, 4))
    t:add(f.cm_udp_port, tvb(44, 2))
    t:add(f.cm_reject_reason, tvb(46, 2))
    local private = tvb(2, 2):uint()
    if private > 0 and tvb:len() >= CM_HEADER_LENGTH + private then
        t:add(f.cm_private_data, tvb(CM_HEADER_LENGTH, private))
    end
    local info = string.format(" CM %s comm %s→%s", cm_types[kind] or ("type " .. kind), hex32(tvb(4, 4):uint()), hex32(tvb(8, 4):uint()))
    if kind == 1 or kind == 2 then
        info = info .. string.format(" %s qpn=0x%x psn=%d", cm_transports[tvb(20, 1):uint()] or "?", tvb(21, 3):uint(), tvb(25, 3):uint())
    end
    if kind == 4 then
        info = info .. " reason=" .. tvb(46, 2):uint()
    end
    return info .. " private=" .. private
end

local function dissect_data(tvb, pinfo, tree, ptype)
    local flags = tvb(1, 1):uint()
    local rc = is_rc(flags) and ptype.data
    local psn = tvb(16, 4):uint()
    local psn_item = tree:add(f.psn, tvb(16, 4))
    if ptype.probe then
        tree:add(f.probe_path, tvb(16, 4)):set_generated()
    end
    tree:add(f.send_base, tvb(20, 4))
    tree:add(f.src_qpn, tvb(24, 4))
    tree:add(f.dst_qpn, tvb(28, 4))
    if rc then
        tree:add(f.rc_segment, tvb(1, 1), rc_segment(flags))
        tree:add(f.rc_recv_seq, tvb(32, 4))
    else
        tree:add(f.qkey, tvb(32, 4))
    end
    tree:add(f.immediate, tvb(36, 4))
    if ptype.read_token then
        tree:add(f.rdma_read_token, tvb(36, 4)):set_generated()
    end
    tree:add(f.timestamp, tvb(40, 8))
    local payload_length = tvb(2, 2):uint()
    -- The extended header, when the frame holds it all (a malformed one may not), then the data.
    local extended = ptype.extended and EXTENDED[ptype.extended]
    local data_at = DATA_LENGTH
    local extended_info = ""
    if extended and tvb:len() >= DATA_LENGTH + extended.length and payload_length >= extended.length then
        extended_info = extended.dissect(tvb(DATA_LENGTH, extended.length), tree)
        data_at = DATA_LENGTH + extended.length
    end
    local data_length = payload_length - (data_at - DATA_LENGTH)
    if data_length > 0 and tvb:len() > data_at then
        tree:add(f.payload, tvb(data_at))
    end
    -- A UD SEND to the management QP carries a connection manager message.
    local cm_info = ""
    if bit32.band(flags, FLAG_UNRELIABLE) ~= 0 and tvb(28, 4):uint() == CM_QPN and tvb(32, 4):uint() == CM_QKEY
        and data_length >= CM_HEADER_LENGTH and tvb:len() >= data_at + CM_HEADER_LENGTH then
        cm_info = dissect_cm(tvb(data_at, data_length), tree)
    end
    -- An atomic's answer: the 8 bytes of data are the word's value before the atomic ran.
    local atomic_frame = track_atomics(tvb, pinfo, bit32.band(tvb(0, 1):uint(), 0x0F))
    if atomic_frame ~= nil and data_length == ATOMIC_ANSWER_LENGTH and tvb:len() >= data_at + ATOMIC_ANSWER_LENGTH then
        tree:add(f.atomic_original, tvb(data_at, ATOMIC_ANSWER_LENGTH))
        tree:add(f.atomic_request_in, atomic_frame):set_generated()
        extended_info = extended_info .. string.format(" original=0x%s (atomic in %d)", tvb(data_at, 8):uint64():tohex(), atomic_frame)
    end

    local info
    local qpns = string.format("qpn 0x%x→0x%x", tvb(24, 4):uint(), tvb(28, 4):uint())
    if bit32.band(flags, FLAG_UNRELIABLE) ~= 0 then
        info = string.format("UD %s %s qkey=%s len=%d", ptype.name, qpns, hex32(tvb(32, 4):uint()), payload_length) .. cm_info
    elseif ptype.probe then
        info = string.format("%s path=%d ctx %s→%s", ptype.name, psn, hex32(tvb(4, 4):uint()), hex32(tvb(8, 4):uint()))
    elseif rc then
        info = string.format("%s %s %s psn=%d %s%s rseq=%d len=%d", is_src(flags, ptype) and "SRC" or "RC", ptype.name,
            rc_segment(flags), psn, qpns, is_src(flags, ptype) and string.format(" srq=0x%x", tvb(8, 4):uint()) or "",
            tvb(32, 4):uint(), payload_length)
    else
        info = string.format("%s psn=%d ctx %s→%s %s len=%d", ptype.name, psn, hex32(tvb(4, 4):uint()),
            hex32(tvb(8, 4):uint()), qpns, payload_length)
    end
    info = info .. extended_info
    if ptype.immediate then
        info = info .. " imm=" .. hex32(tvb(36, 4):uint())
    end
    if ptype.read_token then
        info = info .. " token=" .. hex32(tvb(36, 4):uint())
    end
    if bit32.band(flags, FLAG_RETRANSMISSION) ~= 0 then
        info = info .. " [retransmission]"
        psn_item:add_proto_expert_info(e.retransmission)
    end
    return info
end

local function dissect_ack(tvb, pinfo, tree, ptype)
    local flags = tvb(1, 1):uint()
    local rc = is_rc(flags)
    local cumulative = tvb(16, 4):uint()
    local cumulative_item = tree:add(f.cumulative_psn, tvb(16, 4))
    if rc then
        cumulative_item:set_text(string.format("Next PSN to execute (RC: every PSN before it was executed, in order): %d%s",
            cumulative, bit32.band(flags, FLAG_HELD) ~= 0 and ", held at the responder" or ""))
    end
    tree:add(f.echoed_epoch, tvb(20, 4))
    tree:add(f.trigger_psn, tvb(24, 4))
    tree:add(f.ack_duplicate_psn, tvb(28, 4))
    tree:add(f.echoed_timestamp, tvb(32, 8))
    -- Bit i of word w: PSN cumulative + 1 + 64w + i was received (bit 0 = least significant); on RC, is held ahead of it.
    local sacked = 0
    for w = 0, SACK_WORDS - 1 do
        local at = 40 + 8 * w
        local first = (cumulative + 1 + 64 * w) % 4294967296
        local word_item = tree:add(f.sack, tvb(at, 8))
        word_item:set_text(string.format("SACK word %d (PSNs %d..%d): 0x%08x%08x", w, first, (first + 63) % 4294967296,
            tvb(at, 4):uint(), tvb(at + 4, 4):uint()))
        -- The low 32 bits are the last four bytes on the wire.
        local halves = { tvb(at + 4, 4):uint(), tvb(at, 4):uint() }
        for h = 1, 2 do
            local bits = halves[h]
            for i = 0, 31 do
                if bits == 0 then
                    break
                end
                if bits % 2 == 1 then
                    local psn = (first + 32 * (h - 1) + i) % 4294967296
                    word_item:add(f.sacked_psn, tvb(at, 8), psn):set_generated()
                    sacked = sacked + 1
                end
                bits = math.floor(bits / 2)
            end
        end
    end
    tree:add(f.sack_count, sacked):set_generated()

    local drops = tvb(2, 2):uint()
    local reasons = {}
    for i = 0, drops - 1 do
        local at = ACK_LENGTH + DROP_ENTRY_LENGTH * i
        if at + DROP_ENTRY_LENGTH > tvb:len() then
            break
        end
        local reason = tvb(at + 4, 1):uint()
        local name = DROP_REASONS[reason] or ("reason " .. reason)
        local rnr_timer = rc and reason == RNR
        if rnr_timer then
            local code = tvb(at + 5, 1):uint()
            name = string.format("%s timer=%d (%s)", name, code, RNR_TIMERS[code] or "not a timer code")
        end
        local entry = tree:add(f.drop, tvb(at, DROP_ENTRY_LENGTH))
        entry:set_text(string.format("%s %d: PSN %d, %s", rc and "NAK" or "Drop entry", i, tvb(at, 4):uint(), name))
        entry:add(f.drop_psn, tvb(at, 4))
        entry:add(f.drop_reason, tvb(at + 4, 1))
        entry:add(f.drop_detail, tvb(at + 5, 1))
        if rnr_timer then
            entry:add(f.drop_rnr_timer, tvb(at + 5, 1))
        end
        entry:add(f.drop_reserved, tvb(at + 6, 2))
        reasons[#reasons + 1] = string.format("%d %s", tvb(at, 4):uint(), name)
    end

    local info
    if rc then
        info = string.format("RC ACK next=%d trigger=%d sack=%d naks=%d qpn 0x%x→0x%x", cumulative, tvb(24, 4):uint(), sacked, drops,
            tvb(4, 4):uint(), tvb(8, 4):uint())
        if bit32.band(flags, FLAG_HELD) ~= 0 then
            info = info .. " [held]"
        end
    else
        info = string.format("ACK cum=%d trigger=%d sack=%d drops=%d ctx %s→%s", cumulative, tvb(24, 4):uint(),
            sacked, drops, hex32(tvb(4, 4):uint()), hex32(tvb(8, 4):uint()))
    end
    if #reasons > 0 then
        info = info .. " [" .. table.concat(reasons, ", ") .. "]"
    end
    return info
end

-- The RDMA header (RdmaHeader, 24 bytes at SRD offset 48); returns what the Info column adds.
local function dissect_rdma(tvb, tree)
    local item = tree:add(f.rdma, tvb())
    item:add(f.rdma_address, tvb(0, 8))
    item:add(f.rdma_rkey, tvb(8, 4))
    item:add(f.rdma_length, tvb(12, 4))
    item:add(f.rdma_offset, tvb(16, 4))
    item:add(f.rdma_reserved, tvb(20, 4))
    item:set_text(string.format("RDMA header: address 0x%s, rkey %s, length %d, offset %d", tvb(0, 8):uint64():tohex(),
        hex32(tvb(8, 4):uint()), tvb(12, 4):uint(), tvb(16, 4):uint()))
    return string.format(" rkey=%s addr=0x%s dma_len=%d off=%d", hex32(tvb(8, 4):uint()), tvb(0, 8):uint64():tohex(),
        tvb(12, 4):uint(), tvb(16, 4):uint())
end

-- The READ_RESPONSE header (ReadResponseHeader, 16 bytes at SRD offset 48).
local function dissect_read_response(tvb, tree)
    local status = tvb(12, 1):uint()
    local status_name = READ_STATUS[status] or ("status " .. status)
    local item = tree:add(f.read_response, tvb())
    item:add(f.rr_token, tvb(0, 4))
    item:add(f.rr_offset, tvb(4, 4))
    item:add(f.rr_length, tvb(8, 4))
    item:add(f.rr_status, tvb(12, 1))
    item:add(f.rr_reserved, tvb(13, 3))
    item:set_text(string.format("READ_RESPONSE header: token %s, offset %d of %d, %s", hex32(tvb(0, 4):uint()),
        tvb(4, 4):uint(), tvb(8, 4):uint(), status_name))
    local info = string.format(" token=%s off=%d read_len=%d", hex32(tvb(0, 4):uint()), tvb(4, 4):uint(), tvb(8, 4):uint())
    if status ~= 0 then
        info = info .. " status=" .. status_name
    end
    return info
end

-- The atomic header (AtomicHeader, 32 bytes at SRD offset 48).
local function dissect_atomic(tvb, tree)
    local item = tree:add(f.atomic, tvb())
    item:add(f.atomic_address, tvb(0, 8))
    item:add(f.atomic_rkey, tvb(8, 4))
    item:add(f.atomic_reserved, tvb(12, 4))
    item:add(f.atomic_swap_add, tvb(16, 8))
    item:add(f.atomic_compare, tvb(24, 8))
    item:set_text(string.format("Atomic header: address 0x%s, rkey %s, swap/add 0x%s, compare 0x%s", tvb(0, 8):uint64():tohex(),
        hex32(tvb(8, 4):uint()), tvb(16, 8):uint64():tohex(), tvb(24, 8):uint64():tohex()))
    return string.format(" rkey=%s addr=0x%s swap_add=0x%s compare=0x%s", hex32(tvb(8, 4):uint()), tvb(0, 8):uint64():tohex(),
        tvb(16, 8):uint64():tohex(), tvb(24, 8):uint64():tohex())
end

-- Extended headers: what follows the data header of some types, counted in the payload length.
EXTENDED = {
    rdma          = { name = "RDMA",          length = 24, dissect = dissect_rdma },
    read_response = { name = "READ_RESPONSE", length = 16, dissect = dissect_read_response },
    atomic        = { name = "atomic",        length = 32, dissect = dissect_atomic },
}

-- Header layouts: the fixed part's length, the field in bytes 2..3, what SrdParser checks beyond
-- the length, and how to show the rest. A new layout (RC, SRC) goes here.
LAYOUTS = {
    data = { length = DATA_LENGTH, length_field = f.payload_length, check = check_data, dissect = dissect_data },
    ack  = { length = ACK_LENGTH,  length_field = f.drop_count,     check = check_ack,  dissect = dissect_ack },
}

-- Checks an SRD part as SrdParser does after the UDP header: returns nil when valid, else the
-- expert key and a message. Reads only captured bytes (a frame cut by the snaplen is refused).
local function check(tvb)
    local srd_length = tvb:reported_length_remaining()
    if srd_length < 1 then
        return "truncated", "empty UDP payload"
    end
    if tvb:len() < srd_length then
        return "truncated", "frame cut short in the capture"
    end
    local version = bit32.rshift(tvb(0, 1):uint(), 4)
    if version ~= VERSION then
        return "wrong_version", string.format("version %d, this dissector speaks %d", version, VERSION)
    end
    local ptype = PACKET_TYPES[bit32.band(tvb(0, 1):uint(), 0x0F)]
    if ptype == nil then
        return "unknown_type", string.format("type %d is not defined", bit32.band(tvb(0, 1):uint(), 0x0F))
    end
    local layout = LAYOUTS[ptype.layout]
    if srd_length < layout.length then
        return "truncated", string.format("%d bytes, the %s header is %d", srd_length, ptype.name, layout.length)
    end
    return layout.check(tvb, srd_length, ptype)
end

-- ------------------------------------------------------------------ entry points

-- The port dissector: every UDP payload to the SRD port, valid or not (then with an expert error).
local function dissect(tvb, pinfo, tree)
    local srd_length = tvb:reported_length_remaining()
    if srd_length < 1 then
        return 0
    end
    pinfo.cols.protocol = "srdnic"
    local root = tree:add(srdnic, tvb())
    if pinfo.src_port >= ENTROPY_BASE then
        root:add(f.entropy, pinfo.src_port - ENTROPY_BASE):set_generated()
    end
    local err, message = check(tvb)
    local type_value = bit32.band(tvb(0, 1):uint(), 0x0F)
    local ptype = PACKET_TYPES[type_value]
    local layout = ptype and LAYOUTS[ptype.layout]
    local info
    if err == nil or (err ~= "wrong_version" and err ~= "truncated" and layout ~= nil) then
        dissect_common(tvb, root, ptype)
        info = layout.dissect(tvb, pinfo, root, ptype)
    else
        root:add(f.version, tvb(0, 1))
        root:add(f.type, tvb(0, 1))
        info = string.format("%s (version %d)", ptype and ptype.name or ("type " .. type_value), bit32.rshift(tvb(0, 1):uint(), 4))
    end
    if err ~= nil then
        local text = string.upper(err) .. ": " .. message
        root:add_proto_expert_info(e[err], text)
        info = info .. " [malformed " .. text .. "]"
    end
    pinfo.cols.info:set(info)
    local rc = err == nil and ptype ~= nil and not ptype.probe and is_rc(tvb(1, 1):uint())
    root:append_text(", " .. (rc and "RC " or "") .. (ptype and ptype.name or ("type " .. type_value)))
    return srd_length
end

srdnic.dissector = dissect

-- The heuristic claims only what SrdParser would accept, whatever the port.
local function heuristic(tvb, pinfo, tree)
    if tvb:reported_length_remaining() < DATA_LENGTH or check(tvb) ~= nil then
        return false
    end
    -- dissect itself, not srdnic.dissector: that is a handle whose call would add a second srdnic layer
    dissect(tvb, pinfo, tree)
    return true
end

-- ------------------------------------------------------------------ registration

local udp_port_table = DissectorTable.get("udp.port")
local registered_port = srdnic.prefs.udp_port
udp_port_table:add(registered_port, srdnic)

function srdnic.prefs_changed()
    if registered_port ~= srdnic.prefs.udp_port then
        udp_port_table:remove(registered_port, srdnic)
        registered_port = srdnic.prefs.udp_port
        udp_port_table:add(registered_port, srdnic)
    end
end

srdnic:register_heuristic("udp", heuristic)
