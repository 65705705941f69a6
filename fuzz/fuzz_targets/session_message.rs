//! Fuzzes the file service's session decoder: it must never panic, and what
//! it accepts must re-encode to a message that decodes the same (a GET's
//! padding aside).
#![no_main]

use libfuzzer_sys::fuzz_target;
use radial_net::session::Message;

fuzz_target!(|data: &[u8]| {
    if let Ok(m) = Message::parse(data) {
        let mut out = Vec::new();
        m.emit(&mut out);
        assert_eq!(Message::parse(&out), Ok(m));
    }
});
