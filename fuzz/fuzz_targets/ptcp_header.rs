//! Fuzzes the pTCP decoder: it must never panic, and whatever it accepts
//! must re-encode to the same header bytes, followed by the TCP-v segment.
#![no_main]

use libfuzzer_sys::fuzz_target;
use radial_core::wire::ptcp::{PtcpHeader, HEADER_LEN};

fuzz_target!(|data: &[u8]| {
    if let Ok((header, inner)) = PtcpHeader::parse(data) {
        let mut out = Vec::new();
        header.emit(&mut out);
        assert_eq!(out.len(), HEADER_LEN);
        assert_eq!(&data[..HEADER_LEN], &out[..]);
        assert_eq!(&data[HEADER_LEN..], inner);
    }
});
