//! The TCP baselines as sans-IO endpoints: a one-way bulk sender
//! ([`TcpSender`]) and its receiver ([`TcpReceiver`]), in the shape of ns-2's
//! `Agent/TCP` and `Agent/TCPSink` pairs that the papers measured against.
//!
//! Variants ([`TcpVariant`]):
//! - `tcp-newreno`: RFC 6582 fast recovery with window inflation, as ns-2's
//!   `Agent/TCP/Newreno`;
//! - `tcp-sack`: RFC 2018 SACK with ns-2 `Agent/TCP/Sack1`'s scoreboard and
//!   pipe estimation;
//! - `tcp-eln`: NewReno whose receiver sets the ELN flag on duplicate
//!   acknowledgments for a hole it knows its own wireless link lost; the
//!   sender retransmits it without cutting the window (RCP paper §3.4.2, after
//!   Balakrishnan & Katz);
//! - `tcp-sat`: SACK recovery with TCP Hybla's window growth, the long-delay
//!   controller at the sender.
//!
//! And the sender-centric mobility schemes, each NewReno underneath:
//! - `tcp-ho`, `tcp-ho-immediate`, `tcp-ho-aggressive`: TCP HandOff (Wu,
//!   Chan & Ananda): after a handoff the mobile receiver sends two duplicate
//!   ACKs carrying the new link's bandwidth; the sender transmits at once and
//!   sets ssthresh (and, aggressive, cwnd) from that bandwidth times its RTT
//!   (`sender`'s `handoff` module);
//! - `freeze-tcp`: Freeze-TCP (Goff et al.): the receiver, warned of a
//!   disconnection, advertises a zero window; the sender waits in persist
//!   mode with its window and timer intact and resumes when the window
//!   reopens;
//! - `tcp-probing`: TCP-Probing (Tsaoussidis & Badr): a loss suspends data
//!   for a probe cycle whose round trips decide between Immediate Recovery
//!   and the standard response.

mod receiver;
mod scoreboard;
mod sender;

pub use receiver::TcpReceiver;
pub use scoreboard::Scoreboard;
pub use sender::{TcpSender, VirtualSegment};

use crate::cc::{Algorithm, CcConfig};
use crate::rtt::RttConfig;
use crate::seq::SeqNum;

/// Which TCP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TcpVariant {
    /// Reno (RFC 5681) as ns-2.35's `Agent/TCP/Reno`: fast recovery ends at
    /// the first acknowledgment of new data, so a second loss in the same
    /// window waits for the retransmission timer.
    Reno,
    /// NewReno (RFC 6582).
    NewReno,
    /// SACK (RFC 2018) with ns-2 Sack1 loss recovery.
    Sack,
    /// NewReno with explicit loss notification from the receiver.
    Eln,
    /// SACK loss recovery with the long-delay controller (TCP Hybla) at the
    /// sender, the sender-side counterpart of `rcp-sat`.
    Sat,
    /// TCP-HO: immediate transmission after a handoff, ssthresh from the new
    /// link's bandwidth, re-estimated over the first RTT samples (HO-ADJUST).
    Ho,
    /// TCP-HO-Immediate: immediate transmission only; the bandwidth is
    /// ignored.
    HoImmediate,
    /// TCP-HO-Aggressive: as TCP-HO, and cwnd set to the new path's
    /// bandwidth-delay product at once.
    HoAggressive,
    /// Freeze-TCP: a zero window before a disconnection freezes the sender.
    Freeze,
    /// TCP-Probing: probe cycles and Immediate Recovery, the restored
    /// window held to the path when the cycle found our own standing queue
    /// (see `sender::probing`).
    Probing,
    /// TCP-Probing as the survey describes it: Immediate Recovery restores
    /// the window held before the cycle, whatever queue it kept, and after
    /// a timeout goes back N at that window ("full-window recovery").
    ProbingPaper,
    /// TCP-PRISM: TCP-SACK that takes a PRISM proxy's loss notices
    /// (immediate retransmission, proportional window cut). It runs only
    /// behind a PRISM proxy, so it is not among the standalone protocols of
    /// [`TcpVariant::ALL`].
    Prism,
}

/// How a TCP-HO sender sets its window when told of a handoff (TCP-HO §IV-B,
/// §V-B).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandoffMode {
    /// TCP-HO: ssthresh = BW × SRTT_old, then HO-ADJUST.
    Adjust,
    /// TCP-HO-Immediate: transmit at once, bandwidth ignored.
    Immediate,
    /// TCP-HO-Aggressive: cwnd = ssthresh = BW × SRTT_old, then HO-ADJUST.
    Aggressive,
}

impl TcpVariant {
    /// The protocol name used in scenario files and results.
    pub fn name(self) -> &'static str {
        match self {
            TcpVariant::Reno => "tcp-reno",
            TcpVariant::NewReno => "tcp-newreno",
            TcpVariant::Sack => "tcp-sack",
            TcpVariant::Eln => "tcp-eln",
            TcpVariant::Sat => "tcp-sat",
            TcpVariant::Ho => "tcp-ho",
            TcpVariant::HoImmediate => "tcp-ho-immediate",
            TcpVariant::HoAggressive => "tcp-ho-aggressive",
            TcpVariant::Freeze => "freeze-tcp",
            TcpVariant::Probing => "tcp-probing",
            TcpVariant::ProbingPaper => "tcp-probing-paper",
            TcpVariant::Prism => "tcp-prism",
        }
    }

    /// Every standalone variant. A variant's place here is its number in a
    /// pTCP pipe's SYN ([`crate::ptcp`]), so a new one goes last.
    pub const ALL: [TcpVariant; 11] = [
        TcpVariant::NewReno,
        TcpVariant::Sack,
        TcpVariant::Eln,
        TcpVariant::Sat,
        TcpVariant::Ho,
        TcpVariant::HoImmediate,
        TcpVariant::HoAggressive,
        TcpVariant::Freeze,
        TcpVariant::Probing,
        TcpVariant::ProbingPaper,
        TcpVariant::Reno,
    ];

    /// The TCP-HO window rule of this variant, if it is one of TCP-HO's.
    pub fn handoff_mode(self) -> Option<HandoffMode> {
        match self {
            TcpVariant::Ho => Some(HandoffMode::Adjust),
            TcpVariant::HoImmediate => Some(HandoffMode::Immediate),
            TcpVariant::HoAggressive => Some(HandoffMode::Aggressive),
            _ => None,
        }
    }
    /// True for TCP-Probing's variants (probe cycles on loss).
    pub fn probes(self) -> bool {
        matches!(self, TcpVariant::Probing | TcpVariant::ProbingPaper)
    }

    /// True for the variants that use SACK and ns-2 Sack1 loss recovery.
    pub fn uses_sack(self) -> bool {
        matches!(self, TcpVariant::Sack | TcpVariant::Sat | TcpVariant::Prism)
    }

    /// The window rules of this variant.
    pub fn algorithm(self) -> Algorithm {
        match self {
            TcpVariant::Sat => Algorithm::Hybla,
            _ => Algorithm::NewReno,
        }
    }

    /// The variant with this protocol name.
    pub fn from_name(name: &str) -> Option<Self> {
        TcpVariant::ALL.into_iter().find(|v| v.name() == name)
    }
}

/// TCP parameters. [`TcpConfig::ns2`] mirrors ns-2.35's defaults; the
/// scenario files may override each one (docs/scenarios.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpConfig {
    /// Which TCP.
    pub variant: TcpVariant,
    /// Payload bytes per segment (ns-2 `packetSize_` = 1000).
    pub mss: u64,
    /// Largest window the sender uses, in segments: ns-2's `window_`, the
    /// receiver window (scenario default 256).
    pub window: u64,
    /// Congestion-control parameters (initial window 2, ...).
    pub cc: CcConfig,
    /// Timer parameters (tick 10 ms, min RTO 200 ms, initial RTO 3 s).
    pub rtt: RttConfig,
    /// Segments sent at most per acknowledgment; 0 = unlimited (ns-2
    /// `maxburst_` = 0).
    pub max_burst: u32,
    /// Duplicate acknowledgments that trigger fast retransmit (3).
    pub dupthresh: u32,
    /// Reordering tolerance (Linux's, not ns-2's): the sender raises its
    /// duplicate-ACK threshold to the reordering it measures
    /// (`sender/reordering.rs`). Off by default, as in ns-2.
    pub reordering: bool,
    /// SACK blocks per acknowledgment (ns-2 `maxSackBlocks_` = 3).
    pub max_sack_blocks: usize,
    /// Send a SYN and wait for its acknowledgment before data (ns-2 `syn_`).
    pub handshake: bool,
    /// Bytes the sender's buffer holds.
    pub send_buffer: usize,
    /// Most bytes written but not yet sent that the sender accepts from the
    /// application (like Linux's `TCP_NOTSENT_LOWAT`): a backlogged source
    /// writes shortly before its bytes go out instead of filling the whole
    /// buffer far ahead.
    pub unsent_limit: usize,
    /// Connection identifier carried in every segment.
    pub conn_id: u32,
    /// Initial sequence number.
    pub isn: SeqNum,
}

impl TcpConfig {
    /// ns-2.35's defaults for `variant` with 1000-byte segments and a
    /// 256-segment receiver window.
    pub fn ns2(variant: TcpVariant) -> Self {
        let mss = 1000;
        let window = 256;
        TcpConfig {
            variant,
            mss,
            window,
            // ns-2 `reset()` sets ssthresh_ to window_.
            cc: CcConfig {
                initial_ssthresh: window * mss,
                algorithm: variant.algorithm(),
                ..CcConfig::ns2(mss)
            },
            rtt: RttConfig::default(),
            max_burst: 0,
            dupthresh: 3,
            reordering: false,
            max_sack_blocks: 3,
            handshake: true,
            send_buffer: 2 * (window * mss) as usize,
            unsent_limit: 64 * mss as usize,
            conn_id: 0,
            isn: SeqNum(0),
        }
    }

    /// Receive buffer (and advertised window) in bytes.
    pub fn rwnd_bytes(&self) -> u64 {
        self.window * self.mss
    }

    fn wire_seq(&self, offset: u64) -> SeqNum {
        // The SYN takes the ISN; data starts one after it.
        self.isn + 1u32 + offset
    }

    fn offset_of(&self, seq: SeqNum, near: u64) -> u64 {
        // Expand a 32-bit wire number to the 64-bit offset closest to `near`.
        let reference = self.wire_seq(near);
        let delta = seq.since(reference);
        (near as i64 + delta).max(0) as u64
    }
}
