//! Fuzzes the stream frames: arbitrary bytes, cut into pieces, as a
//! connection's incoming sequence, to a host's and a server's mux, each
//! reading what its streams hold and sending what it owes as it goes.
//! Nothing panics; a mux holds no more streams than it accepts, nor more
//! bytes on a stream than its window; after an error it stays failed.
#![no_main]

use libfuzzer_sys::fuzz_target;
use radial_net::mux::{Mux, MuxConfig, Side};

fuzz_target!(|data: &[u8]| {
    let Some((&cut, bytes)) = data.split_first() else {
        return;
    };
    let piece = usize::from(cut) * 8 + 1;
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
        for chunk in bytes.chunks(piece) {
            match m.on_bytes(chunk) {
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
