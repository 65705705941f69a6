//! RCP, the Reception Control Protocol (RCP paper §3): a TCP clone whose
//! receiver decides how much data to ask for and which. The receiver
//! ([`RcpReceiver`]) runs congestion control, loss detection and recovery and
//! flow control and sends requests (REQ); the sender ([`RcpSender`]) only
//! answers them with data.
//!
//! - REQ-DATA handshake (§3.3.1): cumulative requests for new data (SEG.REQ),
//!   pull requests (PUL) for retransmissions; every REQ repeats the three most
//!   recent pull requests and the sender serves any it has not served
//!   (consistency check against its record of the pulls it answered).
//! - Connection management (§3.3.2): SYN, SYN+ACK, ACK, then the receiver's
//!   first REQ; either side may open.
//! - Congestion control (§3.3.3) with the same controllers as TCP, clocked by
//!   arriving data.
//! - Flow control (§3.3.4) inside the receiver: a request goes out only if its
//!   data fits the receive buffer; SEG.DEQ lets the sender purge.
//! - Reliability (§3.3.5): the duplicate threshold applies to every hole, a
//!   lost retransmission is detected the same way (no timeout), and a timeout
//!   re-requests what is missing without clearing the receive buffer.

mod receiver;
mod recovery;
mod requests;
mod sender;
mod source;

pub use receiver::RcpReceiver;
pub(crate) use recovery::Recovery;
pub use requests::RequestBoard;
pub(crate) use requests::{count_later_arrival, Hole};
pub use sender::{RcpSender, Segment};
pub use source::{SharedStream, Source, StoredStream};

use crate::cc::{Algorithm, CcConfig};
use crate::rtt::RttConfig;
use crate::seq::SeqNum;
use crate::tcp::{TcpConfig, TcpVariant};

/// Which RCP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RcpVariant {
    /// NewReno congestion control at the receiver.
    Rcp,
    /// As `Rcp`, and a hole the host's own wireless link lost is re-requested
    /// at once without reducing the window (§3.4.2: the receiver knows the
    /// cause of every hole).
    RcpEln,
    /// RCP with the long-delay controller (TCP Hybla) at the receiver, in the
    /// place of the paper's RCP-STP (§3.4.3).
    RcpSat,
}

impl RcpVariant {
    /// The protocol name used in scenario files and results.
    pub fn name(self) -> &'static str {
        match self {
            RcpVariant::Rcp => "rcp",
            RcpVariant::RcpEln => "rcp-eln",
            RcpVariant::RcpSat => "rcp-sat",
        }
    }
    /// True when the receiver acts on its host's wireless-loss reports.
    pub fn knows_wireless_losses(self) -> bool {
        self == RcpVariant::RcpEln
    }

    /// The window rules of this variant.
    pub fn algorithm(self) -> Algorithm {
        match self {
            RcpVariant::RcpSat => Algorithm::Hybla,
            _ => Algorithm::NewReno,
        }
    }

    /// The variant with this protocol name.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "rcp" => Some(RcpVariant::Rcp),
            "rcp-eln" => Some(RcpVariant::RcpEln),
            "rcp-sat" => Some(RcpVariant::RcpSat),
            _ => None,
        }
    }
}

/// Which side sends the SYN (§3.3.2: either may).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opener {
    /// The data receiver opens (a mobile host fetching from a server).
    Receiver,
    /// The data sender opens.
    Sender,
}

/// RCP parameters; defaults mirror the TCP baseline's ns-2 values so that RCP
/// and TCP differ only in where control runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RcpConfig {
    /// Which RCP.
    pub variant: RcpVariant,
    /// Payload bytes per segment.
    pub mss: u64,
    /// Receive buffer in segments (the flow-control limit on requested but
    /// unread data).
    pub window: u64,
    /// Congestion-control parameters.
    pub cc: CcConfig,
    /// Timer parameters.
    pub rtt: RttConfig,
    /// Later-requested segments that must arrive before a hole is deemed lost.
    pub dupthresh: u32,
    /// Who sends the SYN.
    pub opener: Opener,
    /// Bytes the sender's buffer holds.
    pub send_buffer: usize,
    /// Most bytes written but not yet sent that the sender accepts from the
    /// application at a time. It is also what the sender advertises as
    /// available (§5.2.2), so it must not be below what the receiver may
    /// request in a round trip; by default the whole send buffer.
    pub unsent_limit: usize,
    /// Let the host sleep in bad channel states (§3.4.4): the receiver
    /// freezes its timers while asleep and re-requests what was outstanding
    /// when it wakes.
    pub power_save: bool,
    /// Connection identifier carried in every packet.
    pub conn_id: u32,
    /// The sender's initial sequence number.
    pub isn: SeqNum,
}

impl RcpConfig {
    /// The TCP baseline's ns-2 defaults (1000-byte segments, 256-segment
    /// window, initial window 2, 10 ms tick, 200 ms minimum RTO).
    pub fn ns2(variant: RcpVariant) -> Self {
        let tcp = TcpConfig::ns2(TcpVariant::NewReno);
        RcpConfig {
            variant,
            mss: tcp.mss,
            window: tcp.window,
            cc: CcConfig {
                algorithm: variant.algorithm(),
                ..tcp.cc
            },
            rtt: tcp.rtt,
            dupthresh: tcp.dupthresh,
            opener: Opener::Receiver,
            send_buffer: tcp.send_buffer,
            unsent_limit: tcp.send_buffer,
            power_save: false,
            conn_id: 0,
            isn: SeqNum(0),
        }
    }

    /// Receive buffer in bytes.
    pub fn rwnd_bytes(&self) -> u64 {
        self.window * self.mss
    }

    pub(crate) fn wire_seq(&self, offset: u64) -> SeqNum {
        self.isn + 1u32 + offset
    }

    pub(crate) fn offset_of(&self, seq: SeqNum, near: u64) -> u64 {
        let delta = seq.since(self.wire_seq(near));
        (near as i64 + delta).max(0) as u64
    }
}
