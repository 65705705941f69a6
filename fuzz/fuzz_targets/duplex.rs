//! Fuzzes a stream connection's two ends: a host and a server `Duplex`
//! joined by two in-process paths exchange a stream honestly while
//! arbitrary datagrams — raw bytes, or RCP headers built from the input
//! for either direction's pipes, with payloads — arrive at either end
//! among the honest ones. Nothing panics, and neither end holds more
//! than its limits allow, going out or coming in.
#![no_main]

use libfuzzer_sys::fuzz_target;
use radial_core::seq::SeqNum;
use radial_core::wire::rcp::{PullBlock, RcpFlags, RcpHeader};
use radial_core::{Duration, Instant, PathId};
use radial_net::duplex::{Duplex, DuplexConfig, UPLINK};
use radial_net::mux::Side;

const CONN: u16 = 7;

fn u32_of(b: &[u8]) -> u32 {
    let mut x = [0u8; 4];
    for (d, s) in x.iter_mut().zip(b) {
        *d = *s;
    }
    u32::from_be_bytes(x)
}

/// A datagram from the input: raw bytes, or an RCP header (flags, which
/// direction's pipe, path, numbers, pull blocks) and a payload.
fn datagram(rec: &[u8]) -> Vec<u8> {
    let Some((&kind, rest)) = rec.split_first() else {
        return Vec::new();
    };
    if kind & 1 == 0 || rest.len() < 16 {
        return rest.to_vec();
    }
    let path = u32::from(rest[1] & 1) | if rest[1] & 2 != 0 { u32::from(UPLINK) } else { 0 };
    let conn_id = u32::from(CONN) | (path << 16);
    let mut h = RcpHeader::new(
        RcpFlags(rest[0] & 0x3f),
        conn_id,
        SeqNum(u32_of(&rest[2..6])),
        SeqNum(u32_of(&rest[6..10])),
        u32_of(&rest[10..14]),
    );
    let blocks = usize::from(rest[14] % 5);
    let mut at = 15;
    for _ in 0..blocks {
        if at + 12 > rest.len() {
            break;
        }
        h.push_block(PullBlock {
            start: SeqNum(u32_of(&rest[at..])),
            end: SeqNum(u32_of(&rest[at + 4..])),
            id: u32_of(&rest[at + 8..]),
        });
        at += 12;
    }
    let mut d = Vec::new();
    h.emit(&mut d);
    d.extend_from_slice(rest.get(at..).unwrap_or_default());
    d
}

fuzz_target!(|data: &[u8]| {
    let config = DuplexConfig::new(CONN);
    let mut ends = [
        Duplex::new(Side::Host, config),
        Duplex::new(Side::Server, config),
    ];
    let mut now = Instant::ZERO;
    for e in &mut ends {
        for p in 0..2 {
            e.add_path(now, PathId(p), None).unwrap();
        }
    }
    let id = ends[0].streams().open().unwrap();
    let payload = vec![0x5a; 3_000];
    let mut buf = Vec::new();
    let mut read = [0u8; 4096];
    // Records: a length byte, then that many bytes; each goes to one end.
    let mut rest = data;
    let mut turn = 0u32;
    while turn < 150 {
        turn += 1;
        let _ = ends[0].streams().write(id, &payload);
        // The honest exchange, one step of a millisecond.
        now = now + Duration::from_millis(1);
        for from in 0..2 {
            let mut out = Vec::new();
            while let Some(p) = ends[from].poll_transmit(now, &mut buf) {
                out.push((p, buf.clone()));
                if out.len() > 64 {
                    break;
                }
            }
            for (p, d) in out {
                ends[1 - from].handle_datagram(now, p, &d);
            }
        }
        for e in &mut ends {
            if e.poll_timeout().is_some_and(|t| t <= now) {
                e.handle_timeout(now);
            }
            while let Some(s) = e.streams().accept() {
                let _ = e.streams().read(s, &mut read);
            }
        }
        // Then what the input has, if anything.
        if let Some((&len, tail)) = rest.split_first() {
            let n = usize::from(len).min(tail.len());
            let (rec, after) = tail.split_at(n);
            rest = after;
            let to = usize::from(rec.first().copied().unwrap_or(0) >> 7);
            let path = PathId(u16::from(rec.first().copied().unwrap_or(0) & 3));
            ends[to].handle_datagram(now, path, &datagram(rec.get(1..).unwrap_or_default()));
        }
        for e in &mut ends {
            let bound = config.send_limit + config.inbound.pipe.mss as usize;
            assert!(e.held() <= bound);
            assert!(e.streams().buffered() <= config.recv_limit);
        }
        if rest.is_empty() && turn > 30 {
            break;
        }
    }
});
