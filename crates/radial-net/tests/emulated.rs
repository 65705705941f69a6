//! The real client and server through emulated paths on loopback
//! (`radial_net::emulator`): aggregation across two paths of different
//! delay, handoffs when a path goes away mid-transfer, a blackout nobody
//! announces, a target rate, and garbage at the server. These tests assert
//! what holds however loaded the machine is (the file arrives intact, no
//! transfer is faster than its emulated paths allow, the pipes share the
//! work as the paths dictate); `tools/bench/emulated.sh` reports the
//! timings.

use std::sync::{Mutex, MutexGuard};

mod common;
use common::paths;

/// The emulator's threads pace packets: one scenario at a time, so they do
/// not share the machine's cores.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

#[test]
fn two_paths_of_10_and_60_ms_both_carry_the_file_and_no_faster_than_40_mbit() {
    let _one_at_a_time = serial();
    let (s, best) = paths::aggregation();
    // 1248-byte datagrams carrying 1200 bytes of file each: 38.5 Mbit/s of
    // file at most, plus what the paths' queues held at the start.
    assert!(
        best <= 40.0,
        "best 5 s {best:.2} Mbit/s: faster than the paths"
    );
    assert!(s.pipes.iter().all(|p| p.bytes > 0), "{:?}", s.pipes);
    assert_eq!(s.pipes.iter().map(|p| p.bytes).sum::<u64>(), 120_000_000);
}

#[test]
fn a_path_lost_mid_transfer_hands_off_and_the_file_arrives_intact() {
    let _one_at_a_time = serial();
    let (s, dropped_at) = paths::handoff();
    // Nothing arrives through path 0 after it went: what it brought is at
    // most what was delivered in order then plus one receive buffer.
    let window = radial_net::config::r2cp_config(0).rwnd_bytes();
    assert!(
        s.pipes[0].bytes <= dropped_at + window,
        "{dropped_at}: {:?}",
        s.pipes
    );
    // Its rate is over its own life, which ended with the path: three
    // quarters of the file (15 MB) then still had to come over one
    // 20 Mbit/s path, at least 6 s.
    assert!(
        s.pipes[0].seconds > 0.0 && s.pipes[0].seconds < s.seconds - 1.0,
        "{} s of {}: {:?}",
        s.pipes[0].seconds,
        s.seconds,
        s.pipes
    );
}

#[test]
fn a_blackout_nobody_announces_is_ridden_out_on_the_other_path() {
    let _one_at_a_time = serial();
    let s = paths::blackout();
    assert!(s.pipes[1].bytes > 0, "{:?}", s.pipes);
}

#[test]
fn a_target_rate_is_never_exceeded() {
    let _one_at_a_time = serial();
    let s = paths::target_rate();
    // 6 Mbit/s of payload over two paths that could carry 19: a loaded
    // machine may be slower, never faster (10 % for the token period's
    // granularity).
    assert!(s.mbps() < 6.6, "{:.2} Mbit/s: {:?}", s.mbps(), s.pipes);
}

#[test]
fn garbage_at_the_server_breaks_no_transfer() {
    let _one_at_a_time = serial();
    let (quiet, noisy) = paths::under_garbage();
    assert!(quiet > 0.0 && noisy > 0.0);
}
