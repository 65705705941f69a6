//! pTCP (Hsieh & Sivakumar, "A transport layer approach for achieving
//! aggregate bandwidths on multi-homed mobile hosts" / "An end-to-end
//! approach for transparent mobility across heterogeneous wireless
//! networks"): a multi-state TCP whose engine at the *sender* stripes one
//! stream over one TCP-v pipe per interface.
//!
//! - [`PtcpSender`] (the fixed host): the pTCP engine owns the send buffer;
//!   each pipe is a [`crate::tcp::TcpSender`] over virtual bytes (TCP-v,
//!   §3.2) running its own congestion control, RTT estimation and loss
//!   recovery; the engine binds each virtual segment to data when the pipe
//!   sends it (delayed binding, §3.4), re-assigns the data of a pipe that
//!   lost it or timed out (`shrunk()`, dynamic reassignment), lets a pipe
//!   probing a blackout carry a redundant copy of the head of line
//!   (redundant striping), flow-controls against the receiver's buffer and
//!   applies the target-rate token policy of Figure 10 ([`crate::policy`]).
//! - [`PtcpReceiver`] (the mobile host): the engine owns the resequencing
//!   buffer; each pipe is a [`crate::tcp::TcpReceiver`] acknowledging the
//!   virtual segments; every acknowledgment carries pACK and, in the TCP-v
//!   window field, the free space of the shared buffer (§5.4). It opens a
//!   pipe when an interface comes up (`if-up()`), retires it gracefully or
//!   drops it when the interface goes, and hands over from one pipe to
//!   another (§5.3, Figure 5's ESTABLISHED(n)).
//!
//! The wire format is [`crate::wire::ptcp`].

mod receiver;
mod sender;

pub use receiver::PtcpReceiver;
pub use sender::PtcpSender;

use crate::mptcp::Mptcp;
use crate::policy::TargetRate;
use crate::seq::SeqNum;
use crate::tcp::{TcpConfig, TcpVariant};

/// The most pipes one connection has (paths 0..MAX_PIPES).
pub const MAX_PIPES: usize = 8;

/// pTCP parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PtcpConfig {
    /// The TCP-v pipes' parameters; `tcp.variant` is the default
    /// controller (TCP-SACK in the paper's evaluation, §6.1), `tcp.window`
    /// × `tcp.mss` the shared receive buffer, `tcp.rtt.initial_rto` the
    /// timeout of a pipe's opening handshake.
    pub tcp: TcpConfig,
    /// The controller of each path's pipe where it differs from the default
    /// (§5.4: "different congestion control mechanisms (on a per-pipe
    /// basis)"; Figure 14's TCP-ELN on the lossy pipe).
    pub pipe_variants: [Option<TcpVariant>; MAX_PIPES],
    /// Policy-based aggregation (§6.2.2, Figure 10), if any.
    pub target: Option<TargetRate>,
    /// A pipe probing a blackout carries a copy of the head of line, which
    /// another pipe carries too (§3.4 (3)).
    pub redundant_striping: bool,
    /// Run as MPTCP rather than pTCP (fixed mappings, reinjection, coupled
    /// increase, the minRTT or ECF scheduler; see [`crate::mptcp`]).
    pub mptcp: Option<Mptcp>,
    /// The rules beyond the paper ([`PtcpRules::ALL`] for `ptcp` and the
    /// MPTCP baselines, [`PtcpRules::PAPER`] for `ptcp-paper`).
    pub rules: PtcpRules,
}

/// pTCP's rules beyond the paper, each a named switch: on in `ptcp`, off
/// in `ptcp-paper`, whose engine does what §3.4 and §5 describe and no
/// more (delayed binding, dynamic reassignment on `shrunk()`, redundant
/// striping while a pipe probes a blackout, flow control on the free space
/// of the shared buffer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PtcpRules {
    /// Data is offered one segment at a time to the pipe with the fewest
    /// bytes outstanding, as R²CP's pipes ask at the receiver: where the
    /// receive buffer is short each pipe holds an equal part of it, and the
    /// old pipe of a soft handoff, whose window covers the whole buffer,
    /// neither keeps a new one out nor holds the buffer in a standing
    /// queue. Off: each pipe takes all its window allows when `resume()`
    /// or an acknowledgment opens it (§5.1's `send()` until FREEZE).
    pub fewest_first: bool,
    /// When the receive buffer is full behind a head of line another pipe
    /// holds, a pipe with nothing else to send carries a copy of it, if
    /// the copy would arrive first or the head is overdue, and the
    /// holder's window is halved once per its round trip (MPTCP's
    /// opportunistic retransmission and penalisation: Raiciu et al., NSDI
    /// 2012, §4.2). Off: only dynamic reassignment (§3.4 (2)) moves data.
    pub opportunistic_retransmission: bool,
    /// The receiver advertises the buffer less the data the application
    /// has not read, out-of-order data lying inside that window as in TCP
    /// (RFC 9293 §3.8.6), so the window's right edge never moves back over
    /// data already sent. Off: the free space of the buffer (§5.4: "the
    /// available space in the pTCP receive buffer"), which out-of-order
    /// data takes from as well; the sender reads it from pACK, so data
    /// delivered out of order counts twice against the window.
    pub window_over_unread: bool,
}

impl PtcpRules {
    /// Every rule on: `ptcp`.
    pub const ALL: PtcpRules = PtcpRules {
        fewest_first: true,
        opportunistic_retransmission: true,
        window_over_unread: true,
    };
    /// Every rule off: the paper's pTCP (`ptcp-paper`).
    pub const PAPER: PtcpRules = PtcpRules {
        fewest_first: false,
        opportunistic_retransmission: false,
        window_over_unread: false,
    };
}

impl PtcpConfig {
    /// The paper's setup: TCP-SACK pipes with ns-2's defaults.
    pub fn ns2() -> Self {
        PtcpConfig {
            tcp: TcpConfig::ns2(TcpVariant::Sack),
            pipe_variants: [None; MAX_PIPES],
            target: None,
            redundant_striping: true,
            mptcp: None,
            rules: PtcpRules::ALL,
        }
    }

    /// The paper's pTCP: [`PtcpConfig::ns2`] with every rule off.
    pub fn paper() -> Self {
        PtcpConfig {
            rules: PtcpRules::PAPER,
            ..PtcpConfig::ns2()
        }
    }

    /// The pipe of `path`'s controller.
    pub fn variant(&self, path: usize) -> TcpVariant {
        self.pipe_variants
            .get(path)
            .copied()
            .flatten()
            .unwrap_or(self.tcp.variant)
    }

    /// The protocol's name: `ptcp`, `ptcp-paper`, or the MPTCP one.
    pub fn name(&self) -> &'static str {
        match self.mptcp {
            None if self.rules == PtcpRules::PAPER => "ptcp-paper",
            None => "ptcp",
            Some(m) => crate::mptcp::protocol_name(m.coupling),
        }
    }

    /// The shared receive buffer in bytes.
    pub fn buffer_bytes(&self) -> u64 {
        self.tcp.rwnd_bytes()
    }

    /// The TCP-v pipe's parameters on `path`.
    fn pipe_config(&self, path: usize, variant: TcpVariant) -> TcpConfig {
        let mut c = self.tcp;
        c.variant = variant;
        c.cc.algorithm = variant.algorithm();
        c.conn_id = self.tcp.conn_id.wrapping_add(path as u32);
        c.handshake = false;
        c
    }
}

/// Expands a 32-bit aggregate sequence number to the 64-bit offset nearest
/// `near` (pTCP's ISN is 0).
fn expand(seq: SeqNum, near: u64) -> u64 {
    let delta = seq.since(SeqNum(near as u32));
    (near as i64 + delta).max(0) as u64
}

/// The index of `variant` in [`TcpVariant::ALL`] (carried in a SYN).
fn variant_index(variant: TcpVariant) -> u16 {
    TcpVariant::ALL
        .iter()
        .position(|&v| v == variant)
        .unwrap_or(0) as u16
}
