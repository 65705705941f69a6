//! Fuzzes the RCP decoder: it must never panic, and whatever it accepts must
//! re-encode to the same header bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use radial_core::wire::rcp::RcpHeader;

fuzz_target!(|data: &[u8]| {
    if let Ok((header, payload)) = RcpHeader::parse(data) {
        let mut out = Vec::new();
        header.emit(&mut out);
        assert_eq!(&data[..out.len()], &out[..]);
        assert_eq!(data.len(), out.len() + payload.len());
    }
});
