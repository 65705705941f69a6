-- Wireshark dissector for Radial's datagrams (docs/wire.md).
--
-- Decodes the simulator's TCP-baseline segments (type 0), RCP and R²CP
-- requests and data (type 1), pTCP (type 7) and the real runtime's outer
-- framing: handshake (type 4) and sealed datagrams (type 5), whose contents
-- are encrypted. The runtime's inner messages (session, receipt-guard
-- envelope, bundle: types 2, 3 and 6) are decoded where they appear in the
-- clear.
--
-- Use:   wireshark -X lua_script:tools/wireshark/radial.lua trace.pcap
--        tshark -X lua_script:tools/wireshark/radial.lua -r trace.pcap
-- or copy the file into Wireshark's personal plugins folder.
--
-- It decodes UDP port 7400 (the port of serving agents in simulator
-- captures and of `radial serve`) and, heuristically, any UDP datagram
-- whose first byte is a Radial version 1 header of a known type with a
-- consistent length.

local radial = Proto("radial", "Radial transport")

local TYPES = {
    [0] = "TCP segment", [1] = "RCP", [2] = "session message",
    [3] = "receipt-guard envelope", [4] = "handshake", [5] = "sealed",
    [6] = "bundle", [7] = "pTCP",
}

local f = radial.fields
f.version = ProtoField.uint8("radial.version", "Version", base.DEC, nil, 0xf0)
f.type = ProtoField.uint8("radial.type", "Type", base.DEC, TYPES, 0x0f)

-- Type 0: TCP-baseline segment
f.tcp_flags = ProtoField.uint8("radial.tcp.flags", "Flags", base.HEX)
f.tcp_syn = ProtoField.bool("radial.tcp.flags.syn", "SYN", 8, nil, 0x01)
f.tcp_ack = ProtoField.bool("radial.tcp.flags.ack", "ACK", 8, nil, 0x02)
f.tcp_fin = ProtoField.bool("radial.tcp.flags.fin", "FIN", 8, nil, 0x04)
f.tcp_eln = ProtoField.bool("radial.tcp.flags.eln", "ELN", 8, nil, 0x08)
f.tcp_probe = ProtoField.bool("radial.tcp.flags.probe", "PROBE", 8, nil, 0x10)
f.tcp_nblocks = ProtoField.uint8("radial.tcp.nblocks", "SACK blocks")
f.tcp_options = ProtoField.uint8("radial.tcp.options", "Options", base.HEX)
f.tcp_conn = ProtoField.uint32("radial.tcp.conn", "Connection id", base.HEX)
f.tcp_seq = ProtoField.uint32("radial.tcp.seq", "Sequence number")
f.tcp_ack_no = ProtoField.uint32("radial.tcp.ack", "Acknowledgment number")
f.tcp_window = ProtoField.uint32("radial.tcp.window", "Receive window")
f.tcp_sack_start = ProtoField.uint32("radial.tcp.sack.start", "SACK start")
f.tcp_sack_end = ProtoField.uint32("radial.tcp.sack.end", "SACK end")
f.tcp_capability = ProtoField.uint32("radial.tcp.capability", "TCP-HO capability", base.HEX)
f.tcp_bandwidth = ProtoField.uint32("radial.tcp.bandwidth", "TCP-HO bandwidth (kbit/s)")
f.tcp_loss_seq = ProtoField.uint32("radial.tcp.loss.seq", "PRISM loss notice: lost sequence")
f.tcp_loss_share = ProtoField.uint16("radial.tcp.loss.share", "PRISM loss notice: share kept (1/10000)")
f.tcp_loss_link = ProtoField.uint16("radial.tcp.loss.link", "PRISM loss notice: link")
f.tcp_len = ProtoField.uint32("radial.tcp.len", "Payload length")

-- Type 1: RCP
f.rcp_flags = ProtoField.uint8("radial.rcp.flags", "Flags", base.HEX)
f.rcp_syn = ProtoField.bool("radial.rcp.flags.syn", "SYN", 8, nil, 0x01)
f.rcp_ack = ProtoField.bool("radial.rcp.flags.ack", "ACK", 8, nil, 0x02)
f.rcp_fin = ProtoField.bool("radial.rcp.flags.fin", "FIN", 8, nil, 0x04)
f.rcp_pul = ProtoField.bool("radial.rcp.flags.pul", "PUL", 8, nil, 0x08)
f.rcp_req = ProtoField.bool("radial.rcp.flags.req", "REQ", 8, nil, 0x10)
f.rcp_probe = ProtoField.bool("radial.rcp.flags.probe", "PROBE", 8, nil, 0x20)
f.rcp_nblocks = ProtoField.uint8("radial.rcp.nblocks", "Pull blocks")
f.rcp_conn = ProtoField.uint32("radial.rcp.conn", "Connection id", base.HEX)
f.rcp_seq = ProtoField.uint32("radial.rcp.seq", "Seq (REQ: SEG.REQ; DATA: first byte)")
f.rcp_deq = ProtoField.uint32("radial.rcp.deq", "Deq (REQ: SEG.DEQ; DATA: end of sender's data)")
f.rcp_id = ProtoField.uint32("radial.rcp.id", "Pull id")
f.rcp_block_start = ProtoField.uint32("radial.rcp.block.start", "Pull start")
f.rcp_block_end = ProtoField.uint32("radial.rcp.block.end", "Pull end")
f.rcp_block_id = ProtoField.uint32("radial.rcp.block.id", "Pull number")
f.rcp_kind = ProtoField.string("radial.rcp.kind", "Kind")
f.rcp_len = ProtoField.uint32("radial.rcp.len", "Payload length")

-- Type 7: pTCP
f.ptcp_flags = ProtoField.uint8("radial.ptcp.flags", "Flags", base.HEX)
f.ptcp_data = ProtoField.bool("radial.ptcp.flags.data", "DATA", 8, nil, 0x01)
f.ptcp_ack = ProtoField.bool("radial.ptcp.flags.ack", "ACK", 8, nil, 0x02)
f.ptcp_syn = ProtoField.bool("radial.ptcp.flags.syn", "SYN", 8, nil, 0x04)
f.ptcp_fin = ProtoField.bool("radial.ptcp.flags.fin", "FIN", 8, nil, 0x08)
f.ptcp_close = ProtoField.bool("radial.ptcp.flags.close", "CLOSE", 8, nil, 0x10)
f.ptcp_drop = ProtoField.bool("radial.ptcp.flags.drop", "DROP", 8, nil, 0x20)
f.ptcp_aux = ProtoField.uint16("radial.ptcp.aux", "Aux")
f.ptcp_src = ProtoField.uint32("radial.ptcp.psrc", "pSRC", base.HEX)
f.ptcp_dst = ProtoField.uint32("radial.ptcp.pdst", "pDST", base.HEX)
f.ptcp_seq = ProtoField.uint32("radial.ptcp.pseq", "pSEQ")
f.ptcp_ack_no = ProtoField.uint32("radial.ptcp.pack", "pACK")

-- Type 4: handshake
local HS_KINDS = { [1] = "HELLO", [2] = "REPLY", [3] = "RETRY" }
f.hs_kind = ProtoField.uint8("radial.hs.kind", "Kind", base.DEC, HS_KINDS)
f.hs_tag = ProtoField.uint64("radial.hs.tag", "Tag", base.HEX)
f.hs_length = ProtoField.uint16("radial.hs.length", "Noise message length")
f.hs_noise = ProtoField.bytes("radial.hs.noise", "Noise message")

-- Type 5: sealed
f.sealed_conn = ProtoField.uint64("radial.sealed.conn", "Connection id", base.HEX)
f.sealed_path = ProtoField.uint16("radial.sealed.path", "Path")
f.sealed_pn = ProtoField.uint64("radial.sealed.pn", "Packet number")
f.sealed_body = ProtoField.bytes("radial.sealed.body", "Ciphertext and tag")

-- Type 2: session message
local SESSION_KINDS = {
    [1] = "GET", [2] = "OFFER", [3] = "ERROR", [4] = "JOIN", [5] = "JOINED",
    [6] = "VALIDATE", [7] = "ECHO",
}
f.session_kind = ProtoField.uint8("radial.session.kind", "Kind", base.DEC, SESSION_KINDS)
f.session_conn = ProtoField.uint16("radial.session.conn", "Connection")
f.session_body = ProtoField.bytes("radial.session.body", "Body")

-- Type 3: receipt-guard envelope; type 6: bundle
f.guard_nonce = ProtoField.uint32("radial.guard.nonce", "Nonce", base.HEX)
f.bundle_len = ProtoField.uint16("radial.bundle.len", "Datagram length")

local function rcp_kind(flags)
    local req = bit.band(flags, 0x10) ~= 0
    if bit.band(flags, 0x01) ~= 0 then
        if req then return "SYN" end
        if bit.band(flags, 0x02) ~= 0 then return "SYN+ACK" end
        return "SYN"
    end
    if req then
        if bit.band(flags, 0x20) ~= 0 then return "PROBE" end
        if bit.band(flags, 0x04) ~= 0 then return "REQ FIN" end
        if bit.band(flags, 0x08) ~= 0 then return "REQ PUL" end
        return "REQ"
    end
    if bit.band(flags, 0x02) ~= 0 then return "ACK" end
    return "DATA"
end

local dissect_datagram

local function dissect_tcp(buf, tree)
    if buf:len() < 20 then return "short TCP segment" end
    local flags = buf(1, 1):uint()
    local nblocks = buf(2, 1):uint()
    local options = buf(3, 1):uint()
    local ft = tree:add(f.tcp_flags, buf(1, 1))
    ft:add(f.tcp_syn, buf(1, 1)); ft:add(f.tcp_ack, buf(1, 1)); ft:add(f.tcp_fin, buf(1, 1))
    ft:add(f.tcp_eln, buf(1, 1)); ft:add(f.tcp_probe, buf(1, 1))
    tree:add(f.tcp_nblocks, buf(2, 1))
    tree:add(f.tcp_options, buf(3, 1))
    tree:add(f.tcp_conn, buf(4, 4))
    tree:add(f.tcp_seq, buf(8, 4))
    tree:add(f.tcp_ack_no, buf(12, 4))
    tree:add(f.tcp_window, buf(16, 4))
    local at = 20
    for _ = 1, nblocks do
        if buf:len() < at + 8 then return "truncated SACK block" end
        tree:add(f.tcp_sack_start, buf(at, 4))
        tree:add(f.tcp_sack_end, buf(at + 4, 4))
        at = at + 8
    end
    if bit.band(options, 0x01) ~= 0 and buf:len() >= at + 4 then
        tree:add(f.tcp_capability, buf(at, 4)); at = at + 4
    end
    if bit.band(options, 0x02) ~= 0 and buf:len() >= at + 4 then
        tree:add(f.tcp_bandwidth, buf(at, 4)); at = at + 4
    end
    if bit.band(options, 0x04) ~= 0 and buf:len() >= at + 8 then
        tree:add(f.tcp_loss_seq, buf(at, 4))
        tree:add(f.tcp_loss_share, buf(at + 4, 2))
        tree:add(f.tcp_loss_link, buf(at + 6, 2))
        at = at + 8
    end
    local len = buf:len() - at
    tree:add(f.tcp_len, len):set_generated()
    local names = {}
    if bit.band(flags, 0x01) ~= 0 then names[#names + 1] = "SYN" end
    if bit.band(flags, 0x02) ~= 0 then names[#names + 1] = "ACK" end
    if bit.band(flags, 0x04) ~= 0 then names[#names + 1] = "FIN" end
    if bit.band(flags, 0x08) ~= 0 then names[#names + 1] = "ELN" end
    if bit.band(flags, 0x10) ~= 0 then names[#names + 1] = "PROBE" end
    return string.format("TCP [%s] seq=%u ack=%u win=%u len=%d", table.concat(names, ","),
        buf(8, 4):uint(), buf(12, 4):uint(), buf(16, 4):uint(), len)
end

local function dissect_rcp(buf, tree)
    if buf:len() < 20 then return "short RCP header" end
    local flags = buf(1, 1):uint()
    local nblocks = buf(2, 1):uint()
    local ft = tree:add(f.rcp_flags, buf(1, 1))
    ft:add(f.rcp_syn, buf(1, 1)); ft:add(f.rcp_ack, buf(1, 1)); ft:add(f.rcp_fin, buf(1, 1))
    ft:add(f.rcp_pul, buf(1, 1)); ft:add(f.rcp_req, buf(1, 1)); ft:add(f.rcp_probe, buf(1, 1))
    local kind = rcp_kind(flags)
    tree:add(f.rcp_kind, kind):set_generated()
    tree:add(f.rcp_nblocks, buf(2, 1))
    tree:add(f.rcp_conn, buf(4, 4))
    tree:add(f.rcp_seq, buf(8, 4))
    tree:add(f.rcp_deq, buf(12, 4))
    tree:add(f.rcp_id, buf(16, 4))
    local at = 20
    for _ = 1, nblocks do
        if buf:len() < at + 12 then return "truncated pull block" end
        tree:add(f.rcp_block_start, buf(at, 4))
        tree:add(f.rcp_block_end, buf(at + 4, 4))
        tree:add(f.rcp_block_id, buf(at + 8, 4))
        at = at + 12
    end
    local len = buf:len() - at
    tree:add(f.rcp_len, len):set_generated()
    if bit.band(flags, 0x10) ~= 0 then
        return string.format("RCP %s req=%u deq=%u id=%u", kind,
            buf(8, 4):uint(), buf(12, 4):uint(), buf(16, 4):uint())
    end
    return string.format("RCP %s seq=%u len=%d id=%u", kind, buf(8, 4):uint(), len, buf(16, 4):uint())
end

local function dissect_ptcp(buf, tree, pinfo)
    if buf:len() < 20 then return "short pTCP header" end
    local flags = buf(1, 1):uint()
    local ft = tree:add(f.ptcp_flags, buf(1, 1))
    ft:add(f.ptcp_data, buf(1, 1)); ft:add(f.ptcp_ack, buf(1, 1)); ft:add(f.ptcp_syn, buf(1, 1))
    ft:add(f.ptcp_fin, buf(1, 1)); ft:add(f.ptcp_close, buf(1, 1)); ft:add(f.ptcp_drop, buf(1, 1))
    tree:add(f.ptcp_aux, buf(2, 2))
    tree:add(f.ptcp_src, buf(4, 4))
    tree:add(f.ptcp_dst, buf(8, 4))
    tree:add(f.ptcp_seq, buf(12, 4))
    tree:add(f.ptcp_ack_no, buf(16, 4))
    local info = string.format("pTCP pseq=%u pack=%u", buf(12, 4):uint(), buf(16, 4):uint())
    if buf:len() > 20 then
        local inner = dissect_datagram(buf(20):tvb(), pinfo, tree)
        info = info .. " | " .. inner
    end
    return info
end

local function dissect_handshake(buf, tree)
    if buf:len() < 12 then return "short handshake" end
    local kind = buf(1, 1):uint()
    tree:add(f.hs_kind, buf(1, 1))
    tree:add(f.hs_tag, buf(2, 8))
    if kind == 3 then return "handshake RETRY" end
    tree:add(f.hs_length, buf(10, 2))
    local n = buf(10, 2):uint()
    if buf:len() >= 12 + n and n > 0 then tree:add(f.hs_noise, buf(12, n)) end
    return "handshake " .. (HS_KINDS[kind] or "?")
end

local function dissect_sealed(buf, tree)
    if buf:len() < 17 then return "short sealed datagram" end
    tree:add(f.sealed_conn, buf(1, 8))
    tree:add(f.sealed_path, buf(9, 2))
    tree:add(f.sealed_pn, buf(11, 6))
    if buf:len() > 17 then tree:add(f.sealed_body, buf(17)) end
    return string.format("sealed path=%u pn=%s", buf(9, 2):uint(), tostring(buf(11, 6):uint64()))
end

local function dissect_session(buf, tree)
    if buf:len() < 4 then return "short session message" end
    tree:add(f.session_kind, buf(1, 1))
    tree:add(f.session_conn, buf(2, 2))
    if buf:len() > 4 then tree:add(f.session_body, buf(4)) end
    return "session " .. (SESSION_KINDS[buf(1, 1):uint()] or "?")
end

local function dissect_envelope(buf, tree, pinfo)
    if buf:len() < 5 then return "short envelope" end
    tree:add(f.guard_nonce, buf(1, 4))
    if buf:len() > 5 then
        return "guard | " .. dissect_datagram(buf(5):tvb(), pinfo, tree)
    end
    return "guard"
end

local function dissect_bundle(buf, tree, pinfo)
    local at, parts = 1, {}
    while at + 2 <= buf:len() do
        local n = buf(at, 2):uint()
        tree:add(f.bundle_len, buf(at, 2))
        if at + 2 + n > buf:len() then break end
        parts[#parts + 1] = dissect_datagram(buf(at + 2, n):tvb(), pinfo, tree)
        at = at + 2 + n
    end
    return "bundle [" .. table.concat(parts, "; ") .. "]"
end

-- Adds one datagram's subtree; returns its one-line summary.
dissect_datagram = function(buf, pinfo, parent)
    local t = buf(0, 1):uint() % 16
    local tree = parent:add(radial, buf(), "Radial " .. (TYPES[t] or "unknown type"))
    tree:add(f.version, buf(0, 1))
    tree:add(f.type, buf(0, 1))
    if t == 0 then return dissect_tcp(buf, tree)
    elseif t == 1 then return dissect_rcp(buf, tree)
    elseif t == 2 then return dissect_session(buf, tree)
    elseif t == 3 then return dissect_envelope(buf, tree, pinfo)
    elseif t == 4 then return dissect_handshake(buf, tree)
    elseif t == 5 then return dissect_sealed(buf, tree)
    elseif t == 6 then return dissect_bundle(buf, tree, pinfo)
    elseif t == 7 then return dissect_ptcp(buf, tree, pinfo)
    end
    return "unknown type " .. t
end

function radial.dissector(buf, pinfo, tree)
    if buf:len() < 1 then return 0 end
    pinfo.cols.protocol = "Radial"
    pinfo.cols.info = dissect_datagram(buf, pinfo, tree)
    return buf:len()
end

-- A first byte of version 1 and a known type, and a length its header allows.
local MIN_LEN = { [0] = 20, [1] = 20, [2] = 4, [3] = 5, [4] = 12, [5] = 17, [6] = 1, [7] = 20 }
local function heuristic(buf, pinfo, tree)
    if buf:len() < 1 then return false end
    local b = buf(0, 1):uint()
    local version, t = math.floor(b / 16), b % 16
    if version ~= 1 or MIN_LEN[t] == nil or buf:len() < MIN_LEN[t] then return false end
    radial.dissector(buf, pinfo, tree)
    return true
end

DissectorTable.get("udp.port"):add(7400, radial)
radial:register_heuristic("udp", heuristic)
