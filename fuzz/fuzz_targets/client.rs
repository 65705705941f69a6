//! Fuzzes the client side of a download with arbitrary datagram
//! sequences: the script shared with `crates/radial-net/tests/
//! client_datagrams.rs` seals, replays, corrupts and forges what a server
//! would send on a path, and checks that the path takes only what its
//! server sealed for it, once, and that nothing panics.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../crates/radial-net/tests/support/client_script.rs"]
mod client_script;

fuzz_target!(|data: &[u8]| {
    let _ = client_script::run(data);
});
