//! Times the runtime through emulated paths on loopback and prints each
//! scenario's figure beside the bound it should meet on an idle machine
//! (`tools/bench/emulated.sh`). The same scenarios run as tests
//! (`tests/emulated.rs`), which assert only what holds under any load.

#[path = "../tests/common/mod.rs"]
mod common;

use common::paths;

fn main() {
    println!("| scenario | measured | on an idle machine |");
    println!("|---|---|---|");
    let (s, best) = paths::aggregation();
    println!(
        "| two 20 Mbit/s paths, 10 and 60 ms one way, 120 MB | best 5 s {best:.1} Mbit/s (whole transfer {:.1}; pipes {:.0} / {:.0} MB) | best 5 s ≥ 36 Mbit/s, each pipe > 40 MB |",
        s.mbps(),
        s.pipes[0].bytes as f64 / 1e6,
        s.pipes[1].bytes as f64 / 1e6
    );
    let (s, at) = paths::handoff();
    println!(
        "| path 0 lost at {:.1} MB of 20 MB | {:.2} s; path 1 brought {:.1} MB | — |",
        at as f64 / 1e6,
        s.seconds,
        s.pipes[1].bytes as f64 / 1e6
    );
    let s = paths::blackout();
    println!(
        "| path 0 silent for 3 s, unannounced, 20 MB | {:.2} s | < 15 s |",
        s.seconds
    );
    let s = paths::target_rate();
    println!(
        "| 6 Mbit/s target over two 10 Mbit/s paths, preferring path 0 | {:.2} Mbit/s; path 0 {:.1} MB, path 1 {:.1} MB | 5–6.6 Mbit/s, path 0 > 4 × path 1 |",
        s.mbps(),
        s.pipes[0].bytes as f64 / 1e6,
        s.pipes[1].bytes as f64 / 1e6
    );
    let (quiet, noisy) = paths::under_garbage();
    println!(
        "| 5 MB through 10 Mbit/s, quiet and under garbage | {quiet:.2} s and {noisy:.2} s | noisy < 1.25 × quiet + 0.2 s |"
    );
}
