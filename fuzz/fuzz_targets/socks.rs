//! Fuzzes the tunnel's SOCKS5 handshake: arbitrary bytes cut into
//! arbitrary pieces. Nothing panics, no piece is read past its end, the
//! handshake reads nothing after it ends, and what it sends back is a
//! SOCKS5 message no longer than a method selection and a reply.
#![no_main]

use libfuzzer_sys::fuzz_target;
use radial_net::tunnel::{Handshake, Progress};

fuzz_target!(|data: &[u8]| {
    // The first byte cuts the rest into pieces of 1 to 16 bytes.
    let Some((&cut, bytes)) = data.split_first() else {
        return;
    };
    let piece = usize::from(cut % 16) + 1;
    let mut h = Handshake::new();
    let mut out = Vec::new();
    let mut ended = false;
    for chunk in bytes.chunks(piece) {
        match h.input(chunk) {
            Ok((p, n)) => {
                assert!(n <= chunk.len());
                if ended {
                    assert_eq!(n, 0, "read after the handshake ended");
                }
                if let Progress::Connect(d) = p {
                    assert!(d.port() != 0);
                    ended = true;
                }
            }
            Err(_) => ended = true,
        }
        out.extend(h.take_output());
    }
    assert!(out.is_empty() || out[0] == 5);
    assert!(out.len() <= 2 + 4 + 16 + 2);
});
