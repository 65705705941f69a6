//! The client side of a download against arbitrary datagrams
//! (`support/client_script.rs` says what is checked); the same script
//! drives the fuzz target `fuzz/fuzz_targets/client.rs`.

#[path = "support/client_script.rs"]
mod client_script;

use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn the_client_takes_only_what_its_server_sealed_once_for_its_path(
        script in proptest::collection::vec(any::<u8>(), 0..2048)
    ) {
        let _ = client_script::run(&script);
    }
}

#[test]
fn a_structured_script_is_accepted_in_part() {
    // A JOINED and a pipe datagram on path 0 count; a replay of the
    // second, a corruption of it, a JOINED sealed for path 1 and garbage
    // do not.
    let script = [
        0, 0, 1, 9, // JOINED on path 0
        1, 0, 4, 1, 2, 3, 4, // a pipe datagram on path 0
        3, 0, 0, // replay
        4, 0, 1, 0x55, // corrupt
        0, 1, 1, 9, // JOINED on path 1
        5, 0, 3, 1, 2, 3, // garbage
        7, 0, 0, // time
    ];
    let outcome = client_script::run(&script);
    assert_eq!(
        outcome,
        client_script::Outcome {
            accepted: 2,
            ignored: 4
        }
    );
}
