//! The validated, fully resolved description of one simulation run. The
//! scenario loader builds it from TOML (one per sweep point and seed); the
//! simulator consumes it.

use crate::channel::GilbertElliottParams;
use crate::protocol::Protocol;
use radial_core::cc::Algorithm;
use radial_core::prism::ImuxConfig;
use radial_core::ptcp::PtcpConfig;
use radial_core::r2cp::R2cpConfig;
use radial_core::rcp::RcpConfig;
use radial_core::tcp::TcpConfig;
use radial_core::{BitRate, Duration};

/// One run's description.
#[derive(Clone, Debug)]
pub struct RunSpec {
    /// Scenario name.
    pub name: String,
    /// Simulated duration.
    pub duration: Duration,
    /// Seed of every random stream.
    pub seed: u64,
    /// Node names, indexed by node id.
    pub nodes: Vec<String>,
    /// Radio power model of the nodes that have one (node id, model).
    pub energy: Vec<(u32, EnergyModel)>,
    /// Duplex links.
    pub links: Vec<LinkSpec>,
    /// Gilbert-Elliott channels referenced by links.
    pub channels: Vec<GilbertElliottParams>,
    /// Flows.
    pub flows: Vec<FlowSpec>,
    /// Scheduled link changes.
    pub schedule: Vec<ScheduleSpec>,
    /// Handoffs of access links (already in `schedule` as the link changes
    /// they make; listed for the report).
    pub link_handoffs: Vec<LinkHandoff>,
    /// Bytes of lower-layer headers added to every datagram on a link (IP: 20).
    pub overhead_bytes: u32,
    /// Interval of the time series.
    pub sample_interval: Duration,
    /// Links the scenario asks to capture (`[trace] pcap`), by name.
    pub pcap: Vec<String>,
    /// Bytes kept of each captured packet.
    pub snaplen: u32,
}

/// Power drawn by a node's radio in each state, in watts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EnergyModel {
    /// Transmitting.
    pub tx: f64,
    /// Receiving.
    pub rx: f64,
    /// Awake, neither sending nor receiving (idle listening).
    pub idle: f64,
    /// Asleep.
    pub sleep: f64,
}

/// A duplex link between two nodes; each direction has its own queue and
/// channel draws.
#[derive(Clone, Debug)]
pub struct LinkSpec {
    /// Name used by schedules and reports.
    pub name: String,
    /// First node (the `forward` direction goes from `a` to `b`).
    pub a: u32,
    /// Second node.
    pub b: u32,
    /// Rate a→b.
    pub rate_forward: BitRate,
    /// Rate b→a.
    pub rate_reverse: BitRate,
    /// Propagation delay (both directions).
    pub delay: Duration,
    /// Queue limit in packets (each direction).
    pub queue: usize,
    /// Random Early Detection on both directions' queues, if any.
    pub red: Option<crate::red::RedParams>,
    /// Loss a→b.
    pub loss_forward: LossSpec,
    /// Loss b→a.
    pub loss_reverse: LossSpec,
}

/// Channel loss of one direction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LossSpec {
    /// No loss.
    None,
    /// Independent per-packet loss.
    Bernoulli(f64),
    /// Gilbert-Elliott channel (index into [`RunSpec::channels`]).
    GilbertElliott(u32),
}

/// A flow from a data source to a sink.
#[derive(Clone, Debug)]
pub struct FlowSpec {
    /// Name used in reports (`flow` column).
    pub name: String,
    /// What carries it.
    pub protocol: FlowProtocol,
    /// Node of the data source.
    pub from: u32,
    /// Node of the sink.
    pub to: u32,
    /// Start time.
    pub start: Duration,
    /// What the source sends.
    pub traffic: Traffic,
    /// The pipes of a multipath flow: R²CP's, pTCP's and MPTCP's paths,
    /// `apps`' connections, a PRISM flow's community members (empty for
    /// other protocols).
    pub pipes: Vec<PipeSpec>,
    /// Hard handoffs of a single-path flow: at each time the receiving end
    /// moves to the node of another of the host's interfaces (ascending in
    /// time; empty for multi-path flows).
    pub handoffs: Vec<(Duration, u32)>,
}

/// One pipe of an R²CP flow: a path from a sender to one of the receiving
/// host's interfaces, open for a span of time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PipeSpec {
    /// Node of the sender (the server or one of its replicas).
    pub server: u32,
    /// Node standing for the receiving host's interface.
    pub via: u32,
    /// When the path comes up.
    pub open: Duration,
    /// When the policy retires it (it stops requesting and closes once its
    /// outstanding data arrived), if it does.
    pub close: Option<Duration>,
    /// When its interface is lost outright, if it is.
    pub drop: Option<Duration>,
    /// The pipe's congestion controller, if not the flow's.
    pub controller: Option<Algorithm>,
    /// Retire this pipe once the next one in the list can take over (it
    /// left slow start or its window reached this one's): make-before-break
    /// without a fixed overlap.
    pub handoff_to_next: bool,
}

/// The transport of a flow.
#[derive(Clone, Debug)]
pub enum FlowProtocol {
    /// A TCP baseline.
    Tcp(TcpConfig),
    /// RCP (receiver-centric).
    Rcp(RcpConfig),
    /// R²CP: RCP pipes coordinated at the receiver.
    R2cp(R2cpConfig),
    /// pTCP: TCP-v pipes coordinated at the sender.
    Ptcp(PtcpConfig),
    /// Application striping: one independent RCP connection per pipe, the
    /// stream striped over them chunk by chunk and resequenced by the
    /// receiving application in a buffer of the receive window's size (the
    /// paper's APPS, §4.4.3).
    Apps(RcpConfig),
    /// PRISM: one TCP connection striped by a proxy over the links of a
    /// community's members (the flow's pipes).
    Prism(PrismFlow),
    /// Unreliable datagrams (for on/off cross traffic).
    Udp,
}

/// A PRISM flow's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PrismFlow {
    /// The sender's and receiver's TCP (TCP-PRISM or TCP-SACK).
    pub tcp: TcpConfig,
    /// The proxy's inverse multiplexer.
    pub imux: ImuxConfig,
    /// The node the proxy runs on.
    pub proxy: u32,
}

impl FlowProtocol {
    /// The protocol, by name.
    pub fn kind(&self) -> Protocol {
        match self {
            FlowProtocol::Tcp(c) => Protocol::Tcp(c.variant),
            FlowProtocol::Rcp(c) => Protocol::Rcp(c.variant),
            FlowProtocol::R2cp(c) => Protocol::R2cp(
                c.scheduling,
                c.coupling,
                c.rules == radial_core::r2cp::Rules::PAPER,
            ),
            FlowProtocol::Ptcp(c) => match c.mptcp {
                None => Protocol::Ptcp(c.rules == radial_core::ptcp::PtcpRules::PAPER),
                Some(m) => Protocol::Mptcp(m.coupling),
            },
            FlowProtocol::Apps(_) => Protocol::Apps,
            FlowProtocol::Prism(c) => Protocol::Prism(c.tcp.variant),
            FlowProtocol::Udp => Protocol::Udp,
        }
    }

    /// Protocol name as in results.
    pub fn name(&self) -> &'static str {
        self.kind().name()
    }
}

/// What a source offers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Traffic {
    /// Always has data.
    Bulk,
    /// A file of this many bytes, then close.
    File(u64),
    /// A Pareto on/off application: datagrams for UDP flows, bytes offered
    /// to the transport for TCP and RCP flows (web-like background traffic).
    OnOff(OnOffSpec),
}

/// A Pareto on/off source.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OnOffSpec {
    /// Sending rate while on.
    pub rate: BitRate,
    /// Mean on period.
    pub on: Duration,
    /// Mean off period.
    pub off: Duration,
    /// Pareto shape.
    pub shape: f64,
    /// Datagram payload bytes.
    pub packet_size: u32,
}

/// A change to a link at a time.
#[derive(Clone, Debug)]
pub struct ScheduleSpec {
    /// When.
    pub at: Duration,
    /// Link index (into [`RunSpec::links`]).
    pub link: u32,
    /// Which directions.
    pub direction: Direction,
    /// What changes.
    pub action: LinkAction,
    /// The hosts at either end of the link are told when it goes down or
    /// comes up (the interface lost or regained its link), so their
    /// multi-path receivers suspend and restart the pipes through it.
    pub signal: bool,
}

/// Directions of a duplex link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// a→b.
    Forward,
    /// b→a.
    Reverse,
    /// Both.
    Both,
}

/// A scheduled link change.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LinkAction {
    /// The link goes down; what is on it is lost.
    Down,
    /// The link comes back up.
    Up,
    /// New transmission rate.
    Rate(BitRate),
    /// New propagation delay.
    Delay(Duration),
    /// Nothing changes yet: the hosts at its ends are warned that the link
    /// is about to go down (with `signal`).
    Warning,
}

/// A handoff of a host's access link: down at `at`, back after `outage`
/// with the new cell's rate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkHandoff {
    /// When the old link goes.
    pub at: Duration,
    /// Link index.
    pub link: u32,
    /// How long the host has no link.
    pub outage: Duration,
    /// Which of TCP-HO's four kinds (Table I).
    pub kind: HandoffKind,
    /// The new link's rate.
    pub rate: BitRate,
}

/// TCP-HO's classes of handoff by how the path's bandwidth-delay product
/// changes (§I, Figure 1, Table I).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandoffKind {
    /// Horizontal, both links of low bandwidth-delay product (L-HH).
    LowHorizontal,
    /// Horizontal, both high (H-HH).
    HighHorizontal,
    /// Vertical to a much larger product (U-VH).
    UpwardVertical,
    /// Vertical to a much smaller product (D-VH).
    DownwardVertical,
}

impl HandoffKind {
    /// How [`HandoffKind::classify`] decides, for messages and the docs.
    pub const RULE: &'static str =
        "vertical when the rates differ by 4x or more; horizontal handoffs are high from 2 Mbit/s";

    /// The kind of a handoff from a link of rate `before` to one of `after`.
    /// The paper gives no numbers: we call a handoff vertical when the link
    /// rates differ by a factor of 4 or more (the wireless link sets the
    /// product), and a horizontal one high when the new rate is at least
    /// 2 Mbit/s.
    pub fn classify(before: BitRate, after: BitRate) -> Self {
        let (b, a) = (before.bps().max(1), after.bps().max(1));
        if a >= 4 * b {
            HandoffKind::UpwardVertical
        } else if b >= 4 * a {
            HandoffKind::DownwardVertical
        } else if a >= 2_000_000 {
            HandoffKind::HighHorizontal
        } else {
            HandoffKind::LowHorizontal
        }
    }

    /// Table I's name.
    pub fn name(self) -> &'static str {
        match self {
            HandoffKind::LowHorizontal => "L-HH",
            HandoffKind::HighHorizontal => "H-HH",
            HandoffKind::UpwardVertical => "U-VH",
            HandoffKind::DownwardVertical => "D-VH",
        }
    }

    /// The kind with Table I's name.
    pub fn from_name(name: &str) -> Option<Self> {
        [
            HandoffKind::LowHorizontal,
            HandoffKind::HighHorizontal,
            HandoffKind::UpwardVertical,
            HandoffKind::DownwardVertical,
        ]
        .into_iter()
        .find(|k| k.name() == name)
    }
}
