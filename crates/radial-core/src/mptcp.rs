//! An MPTCP baseline (RFC 8684's data model, with Linux's sender-side
//! behaviour), run on the sender-side multipath engine of [`crate::ptcp`].
//!
//! pTCP and MPTCP share their skeleton: one TCP per path at the sender, a
//! connection-level sequence space above them (MPTCP's data sequence
//! number, pTCP's pSEQ), and at the receiver one TCP receiver per path, a
//! connection-level acknowledgment (DATA_ACK, pACK) and one shared receive
//! buffer whose free space every acknowledgment advertises (RFC 8684
//! §3.3.4). What makes it MPTCP rather than pTCP is set by [`Mptcp`]:
//!
//! - **Fixed mapping.** A subflow's retransmission carries the data it
//!   carried the first time (a DSS mapping cannot change, RFC 8684 §3.3.1);
//!   pTCP re-binds at every transmission. When a subflow's retransmission
//!   timer expires, its outstanding data is also *reinjected* on the other
//!   subflows (Linux `mptcp_reinject_data`), never on the same one; a fast
//!   retransmit stays on its own subflow.
//! - **Coupled congestion control**: LIA (RFC 6356) or OLIA (Khalili et
//!   al., ToN 2013), or none ([`Coupling`]).
//! - **Scheduler** ([`Scheduler`]): Linux's default gives new data to the
//!   subflow with the lowest smoothed RTT that has room in its window;
//!   ECF (Lim et al., CoNEXT 2017) may instead leave a slow subflow idle
//!   when waiting for the fast one finishes sooner.
//! - **Opportunistic retransmission and penalisation** (Raiciu et al.,
//!   NSDI 2012): when the shared receive window is full behind the head of
//!   line, a subflow with room re-sends it and the subflow holding it has
//!   its window halved, at most once per its round trip. The engine does
//!   this for pTCP too.
//! - No redundant striping: a subflow whose timer expired sends only its
//!   own retransmissions until it hears an acknowledgment.
//!
//! The receiving host opens one subflow per interface (the client-side
//! full-mesh path manager with one server address).

pub use crate::cc::coupled::Coupling;
use crate::ptcp::PtcpConfig;
use crate::time::Duration;

/// How new data is given to subflows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Scheduler {
    /// The subflow with the lowest smoothed RTT and room in its window
    /// (Linux's default scheduler).
    #[default]
    MinRtt,
    /// Earliest Completion First (Lim, Nahum, Towsley and Gibbens, "ECF: An
    /// MPTCP Path Scheduler to Manage Heterogeneous Paths", CoNEXT 2017,
    /// Algorithm 1).
    Ecf,
}

impl Scheduler {
    /// Name as in scenario files.
    pub fn name(self) -> &'static str {
        match self {
            Scheduler::MinRtt => "min-rtt",
            Scheduler::Ecf => "ecf",
        }
    }

    /// The scheduler called `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        [Scheduler::MinRtt, Scheduler::Ecf]
            .into_iter()
            .find(|s| s.name() == name)
    }
}

/// The MPTCP behaviour of the sender-side engine.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Mptcp {
    /// Coupled increase across the subflows.
    pub coupling: Coupling,
    /// Which subflow new data goes to.
    pub scheduler: Scheduler,
}

/// An MPTCP connection's parameters: TCP-SACK subflows (as Linux's) with
/// ns-2's defaults, `coupling` across them, the minRTT scheduler.
pub fn config(coupling: Coupling) -> PtcpConfig {
    PtcpConfig {
        mptcp: Some(Mptcp {
            coupling,
            scheduler: Scheduler::MinRtt,
        }),
        redundant_striping: false,
        ..PtcpConfig::ns2()
    }
}

/// The protocol name of an MPTCP configuration (`mptcp-lia`, …).
pub fn protocol_name(coupling: Coupling) -> &'static str {
    match coupling {
        Coupling::Uncoupled => "mptcp-uncoupled",
        Coupling::Lia => "mptcp-lia",
        Coupling::Olia => "mptcp-olia",
    }
}

/// The coupling a protocol name asks for, if it is an MPTCP one.
pub fn from_protocol_name(name: &str) -> Option<Coupling> {
    [Coupling::Uncoupled, Coupling::Lia, Coupling::Olia]
        .into_iter()
        .find(|&c| protocol_name(c) == name)
}

/// Every MPTCP protocol name.
pub const PROTOCOLS: [&str; 3] = ["mptcp-lia", "mptcp-olia", "mptcp-uncoupled"];

/// The subflows with the lowest smoothed RTT first; those without a sample
/// last, by path (Linux skips them while a sampled subflow has room).
pub(crate) fn min_rtt_order(subflows: &mut [(usize, Option<Duration>)]) {
    subflows.sort_by_key(|&(path, rtt)| (rtt.is_none(), rtt, path));
}

/// A subflow as ECF sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EcfView {
    /// Congestion window in bytes.
    pub cwnd: u64,
    /// Smoothed RTT.
    pub srtt: Duration,
    /// Its mean deviation.
    pub rttvar: Duration,
}

/// ECF's hysteresis factor β (Lim et al. §4: 0.25).
const ECF_BETA: f64 = 0.25;

/// ECF's decision, when the fastest subflow `fast` has no room and the
/// slower `slow` has: true to leave `slow` idle and wait for `fast`.
/// `unsent` is the data waiting to be sent in bytes; `waiting` whether ECF
/// waited last time (its hysteresis). Lim et al. Algorithm 1: with
/// k = unsent segments, n = 1 + k / cwnd_f and δ = max(σ_f, σ_s), wait if
/// n × rtt_f < (1 + waiting × β)(rtt_s + δ) and
/// (k / cwnd_s) × rtt_s ≥ 2 rtt_f + δ.
pub fn ecf_waits(unsent: u64, fast: EcfView, slow: EcfView, waiting: bool, mss: u64) -> bool {
    let seg = |b: u64| b as f64 / mss.max(1) as f64;
    let k = seg(unsent);
    let (cwnd_f, cwnd_s) = (seg(fast.cwnd).max(1.0), seg(slow.cwnd).max(1.0));
    let (rtt_f, rtt_s) = (fast.srtt.as_secs_f64(), slow.srtt.as_secs_f64());
    let delta = fast.rttvar.max(slow.rttvar).as_secs_f64();
    let n = 1.0 + (k / cwnd_f).floor();
    let beta = if waiting { ECF_BETA } else { 0.0 };
    n * rtt_f < (1.0 + beta) * (rtt_s + delta) && k / cwnd_s * rtt_s >= 2.0 * rtt_f + delta
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(cwnd_segments: u64, rtt_ms: u64) -> EcfView {
        EcfView {
            cwnd: cwnd_segments * 1000,
            srtt: Duration::from_millis(rtt_ms),
            rttvar: Duration::from_millis(1),
        }
    }

    #[test]
    fn names_round_trip() {
        for c in [Coupling::Uncoupled, Coupling::Lia, Coupling::Olia] {
            assert_eq!(from_protocol_name(protocol_name(c)), Some(c));
            assert!(PROTOCOLS.contains(&protocol_name(c)));
        }
        assert_eq!(from_protocol_name("mptcp"), None);
        assert_eq!(Scheduler::from_name("ecf"), Some(Scheduler::Ecf));
        assert_eq!(Scheduler::from_name("blest"), None);
    }

    #[test]
    fn min_rtt_puts_the_fastest_first_and_unsampled_last() {
        let mut v = vec![
            (0, None),
            (1, Some(Duration::from_millis(80))),
            (2, Some(Duration::from_millis(20))),
        ];
        min_rtt_order(&mut v);
        assert_eq!(v.iter().map(|x| x.0).collect::<Vec<_>>(), [2, 1, 0]);
    }

    #[test]
    fn ecf_waits_for_a_much_faster_path_with_little_left() {
        // 10 segments left, the fast path (10 ms, window 10) drains them in
        // 2 RTTs = 20 ms; the slow one (200 ms) would take 200 ms.
        assert!(ecf_waits(10_000, view(10, 10), view(10, 200), false, 1000));
    }

    #[test]
    fn ecf_uses_the_slow_path_when_much_is_left() {
        // 10,000 segments: the fast path alone needs 1,001 RTTs.
        assert!(!ecf_waits(
            10_000_000,
            view(10, 10),
            view(10, 200),
            false,
            1000
        ));
    }

    #[test]
    fn ecf_uses_a_path_nearly_as_fast() {
        // 20 ms against 22 ms: waiting gains nothing.
        assert!(!ecf_waits(10_000, view(10, 20), view(10, 22), false, 1000));
    }

    #[test]
    fn ecf_hysteresis_keeps_waiting_a_little_longer() {
        // n × rtt_f = 11 × 20 = 220 ms against rtt_s + δ = 201 ms: not
        // waiting at first; once waiting, β stretches the bound to 251 ms.
        let (fast, slow) = (view(10, 20), view(10, 200));
        assert!(!ecf_waits(100_000, fast, slow, false, 1000));
        assert!(ecf_waits(100_000, fast, slow, true, 1000));
    }
}
