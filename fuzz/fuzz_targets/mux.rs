//! Fuzzes the stream frames: arbitrary bytes, cut into pieces, as a
//! connection's incoming sequence, to a host's and a server's mux, each
//! reading what its streams hold and sending what it owes as it goes. The
//! pieces go in whole (`Mux::on_bytes`) or, as a connection's receiver
//! hands them, taken in place with what is left kept to come again with
//! the next piece (`Mux::take_frames`; the first byte's high bit
//! chooses). Nothing panics; a mux holds no more streams than it accepts,
//! nor more bytes on a stream than its window; what is left in place is
//! less than a frame; after an error it stays failed.
#![no_main]

use libfuzzer_sys::fuzz_target;
use radial_net::mux::{Mux, MuxConfig, Side, MAX_FRAME};

fuzz_target!(|data: &[u8]| {
    let Some((&cut, bytes)) = data.split_first() else {
        return;
    };
    let piece = usize::from(cut & 0x7f) * 8 + 1;
    let in_place = cut & 0x80 != 0;
    let config = MuxConfig {
        window: 64 * 1024,
        max_window: 256 * 1024,
        send_buffer: 64 * 1024,
        max_streams: 8,
    };
    for side in [Side::Host, Side::Server] {
        let mut m = Mux::new(side, config);
        let mut out = Vec::new();
        let mut failed = None;
        let mut left: Vec<u8> = Vec::new();
        for chunk in bytes.chunks(piece) {
            let taken = if in_place {
                left.extend_from_slice(chunk);
                m.take_frames(&left).map(|used| {
                    left.drain(..used);
                    assert!(left.len() < MAX_FRAME, "more than a frame's start left");
                })
            } else {
                m.on_bytes(chunk)
            };
            match taken {
                Ok(()) => assert!(failed.is_none(), "recovered after an error"),
                Err(e) => {
                    assert!(failed.is_none_or(|f| f == e));
                    failed = Some(e);
                }
            }
            while let Some(id) = m.accept() {
                assert!(m.readable(id) as u64 <= config.window);
                let _ = m.read(id, &mut [0u8; 512]);
            }
            m.poll_transmit(4096, &mut out);
            out.clear();
            assert!(m.open_streams() <= config.max_streams);
        }
    }
});
