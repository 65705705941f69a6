//! How much each pipe may have outstanding while several share the
//! receive buffer (rule `queue_cap`; the paper's pipes take as much of it
//! as their congestion windows allow).
//!
//! A request holds receive buffer for the whole round trip of its pipe,
//! and the rank places a pipe's segments as far ahead of the in-order point
//! as the other pipes fetch in that round trip (§4.3.1): a pipe whose round
//! trip is long needs the buffer to span the connection's whole rate times
//! that round trip. A pipe's own queue lengthens its round trip, and a
//! TCP-like window fills a drop-tail queue. So while two pipes or more
//! work, each may have outstanding at most the larger of:
//!
//! - twice its path's bandwidth-delay product, as BBR bounds its flight
//!   (`cwnd_gain` = 2: Cardwell et al., "BBR: Congestion-Based Congestion
//!   Control", ACM Queue 14(5), 2016): the path stays busy, even after a
//!   loss halves the window, with a queue of at most one product;
//! - its share of half the receive buffer, in proportion to its share of
//!   the connection's delivery rate (the proportional cap MPTCP's
//!   penalisation approximates: Raiciu et al., NSDI 2012, §4.2): where the
//!   buffer is ample a pipe keeps a deep queue, which carries it through
//!   bursts of random loss as it carries RCP alone, and every pipe's round
//!   trip is at most half the buffer over the connection's rate.
//!
//! The product is the highest delivery rate of the pipe's last ten round
//! trips (BBR's estimate) times the shortest round trip seen.

/// Bandwidth-delay products a pipe may always have outstanding.
const BDP_GAIN: u64 = 2;

/// The fraction of the receive buffer the pipes' proportional shares
/// divide (1 / this).
const BUFFER_SHARE: u64 = 2;

/// The fewest segments the cap leaves a pipe (BBR's minimum window).
const MIN_CAP: u64 = 4;

/// What the cap of one pipe depends on.
#[derive(Clone, Copy, Debug)]
pub struct CapInput {
    /// The pipe works.
    pub live: bool,
    /// Its highest recent delivery rate, bytes per second.
    pub rate: u64,
    /// Its path's bandwidth-delay product, once measured.
    pub bdp: Option<u64>,
}

/// Each pipe's cap, in bytes: none while fewer than two pipes work or
/// before a pipe's rate is sampled. `rwnd` is the receive buffer, `mss`
/// the segment size.
pub fn caps(pipes: &[CapInput], rwnd: u64, mss: u64) -> Vec<Option<u64>> {
    let live = pipes.iter().filter(|p| p.live).count();
    let total: u128 = pipes
        .iter()
        .filter(|p| p.live)
        .map(|p| u128::from(p.rate))
        .sum();
    let share_of = u128::from(rwnd / BUFFER_SHARE);
    let floor = MIN_CAP * mss;
    pipes
        .iter()
        .map(|p| match p.bdp {
            Some(bdp) if live > 1 && total > 0 => {
                let share = share_of * u128::from(p.rate) / total;
                Some((bdp * BDP_GAIN).max(share as u64).max(floor))
            }
            _ => None,
        })
        .collect()
}
