//! One validated pipe floods the server with requests that ask for an
//! answer (PROBEs, repeated SYN+ACKs) while it never echoes what it is
//! sent, so the receipt guard holds every answer back: whatever the server
//! queues for that pipe stays within a constant times what the guard lets
//! it have, and its memory does not grow with the flood, with and without
//! encryption. One test in its own binary, so the process's peak resident
//! memory is this flood's alone. Loopback only, bounded in count.

use std::time::Duration;

use radial_core::seq::SeqNum;
use radial_core::wire::rcp::{RcpFlags, RcpHeader};
use radial_net::ServerOptions;

mod common;
use common::raw::{peak_rss, pipe_id, pull, Raw};
use common::serve_opts;

/// Bundles sent per mode.
const BUNDLES: usize = 40_000;

/// A bundle of REQ+PROBEs (a cumulative request each, asking the sender to
/// say what it has) and SYN+ACKs of pipe 0 of `conn`, as many as fit.
fn probe_bundle(conn: u16, isn: SeqNum, k: u32) -> Vec<u8> {
    let mut b = Vec::new();
    let mut d = Vec::new();
    for i in 0.. {
        d.clear();
        let flags = if i % 4 == 3 {
            RcpFlags::SYN | RcpFlags::ACK
        } else {
            RcpFlags::REQ | RcpFlags::PROBE
        };
        let seq = isn + 1u32 + (k * 1200 + i * 10);
        RcpHeader::new(flags, pipe_id(conn, 0), seq, isn + 1u32, k).emit(&mut d);
        if !radial_net::bundle::push(&mut b, &d) {
            break;
        }
    }
    b
}

#[test]
fn a_pipe_flooding_probes_without_echoes_queues_a_bounded_answer() {
    let f = serve_opts(
        "probeflood",
        8_000_000,
        ServerOptions {
            allow_insecure: true,
            ..ServerOptions::default()
        },
    );
    let window = radial_net::config::rcp_config(0).window;
    // What one RCP sender may hold queued: its data ranges (twice the
    // receive window, and 16) and one of each control datagram.
    let per_pipe = 2 * window + 16 + 5;
    let before = peak_rss();
    for (conn, insecure) in [(71u16, false), (72, true)] {
        let mut raw = Raw::from("127.0.6.1", f.server);
        raw.insecure = insecure;
        raw.connect(conn);
        let challenge = raw.join(conn, 0).expect("joined");
        raw.validate(conn, 0, challenge);
        let isn = raw.open_pipe(conn, 0);
        // Data for the guard to hold back: never echoed.
        raw.send_sealed(0, &pull(conn, isn, 1, 0, 4_000_000));
        for k in 0..BUNDLES {
            let b = probe_bundle(conn, isn, k as u32);
            raw.send_sealed(0, &b);
            if k % 512 == 0 {
                // Drain what came back, so the flood's own socket does not
                // fill: nothing is echoed.
                let _ = raw.collect(Duration::from_millis(1));
            }
        }
        std::thread::sleep(Duration::from_millis(600));
        let s = f.now();
        assert!(
            s.queued_datagrams <= per_pipe * s.live_pipes.max(1),
            "insecure={insecure}: {} datagrams queued on {} pipes",
            s.queued_datagrams,
            s.live_pipes
        );
        assert!(s.receipt_waits > 0, "the guard held the pipe: {s:?}");
    }
    let grew = peak_rss().saturating_sub(before);
    assert!(grew < 200 << 20, "peak RSS grew by {} MB", grew >> 20);
    let stats = f.stats();
    assert!(stats.pipes >= 2, "{stats:?}");
}
