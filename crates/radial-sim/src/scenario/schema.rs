//! The TOML schema of scenario files, as serde types. `docs/scenarios.md`
//! documents every key. Unknown keys are errors.

use serde::Deserialize;
use toml::Spanned;

use super::units::{Power, Rate, Size, Time};

/// A whole scenario file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct File {
    pub scenario: Header,
    #[serde(default)]
    pub tcp: TcpTable,
    #[serde(default, rename = "node")]
    pub nodes: Vec<NodeTable>,
    #[serde(default, rename = "link")]
    pub links: Vec<LinkTable>,
    #[serde(default, rename = "flow")]
    pub flows: Vec<FlowTable>,
    #[serde(default, rename = "schedule")]
    pub schedule: Vec<ScheduleTable>,
    #[serde(default, rename = "handoff")]
    pub handoffs: Vec<LinkHandoffTable>,
    #[serde(default)]
    pub mobility: Option<MobilityTable>,
    #[serde(default)]
    pub trace: TraceTable,
    /// Read by [`super::Scenario::parse`] before substitution.
    #[serde(default)]
    #[allow(dead_code)]
    pub sweep: Option<toml::Value>,
    /// Read by [`super::Scenario::parse`] (see [`super::FigureText`]).
    #[serde(default)]
    #[allow(dead_code)]
    pub figure: Option<toml::Value>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Header {
    pub name: String,
    #[serde(default)]
    #[allow(dead_code)]
    pub description: Option<String>,
    pub duration: Time,
    /// Read by [`super::Scenario::parse`] (the default seed).
    #[serde(default)]
    #[allow(dead_code)]
    pub seed: Option<u64>,
    #[serde(default)]
    pub sample_interval: Option<Time>,
    #[serde(default)]
    pub overhead_bytes: Option<u32>,
}

/// TCP parameters; unset ones take ns-2's defaults.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TcpTable {
    pub packet_size: Option<u64>,
    pub window: Option<u64>,
    pub initial_window: Option<u64>,
    pub min_rto: Option<Time>,
    pub max_rto: Option<Time>,
    pub initial_rto: Option<Time>,
    pub tick: Option<Time>,
    pub max_burst: Option<u32>,
    pub dupthresh: Option<u32>,
    pub reordering: Option<bool>,
    pub sack_blocks: Option<usize>,
    pub handshake: Option<bool>,
    pub open: Option<String>,
    pub power_save: Option<bool>,
}

impl TcpTable {
    /// `over` wins where it sets a value.
    pub fn overlay(&self, over: &TcpTable) -> TcpTable {
        TcpTable {
            packet_size: over.packet_size.or(self.packet_size),
            window: over.window.or(self.window),
            initial_window: over.initial_window.or(self.initial_window),
            min_rto: over.min_rto.or(self.min_rto),
            max_rto: over.max_rto.or(self.max_rto),
            initial_rto: over.initial_rto.or(self.initial_rto),
            tick: over.tick.or(self.tick),
            max_burst: over.max_burst.or(self.max_burst),
            dupthresh: over.dupthresh.or(self.dupthresh),
            reordering: over.reordering.or(self.reordering),
            sack_blocks: over.sack_blocks.or(self.sack_blocks),
            handshake: over.handshake.or(self.handshake),
            open: over.open.clone().or(self.open.clone()),
            power_save: over.power_save.or(self.power_save),
        }
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeTable {
    pub name: Spanned<String>,
    #[serde(default)]
    pub count: Option<u32>,
    #[serde(default)]
    pub energy: Option<EnergyTable>,
}

/// Radio power draw by state (RCP paper §3.4.4's 802.11b card).
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnergyTable {
    pub tx: Power,
    pub rx: Power,
    pub idle: Power,
    pub sleep: Power,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkTable {
    #[serde(default)]
    pub name: Option<String>,
    pub between: Spanned<[Spanned<String>; 2]>,
    pub rate: Rate,
    #[serde(default)]
    pub rate_reverse: Option<Rate>,
    pub delay: Time,
    #[serde(default)]
    pub queue: Option<Spanned<i64>>,
    #[serde(default)]
    pub loss: Option<Spanned<LossValue>>,
    #[serde(default)]
    pub red: Option<Spanned<RedTable>>,
    #[serde(default)]
    pub count: Option<u32>,
}

/// `red = {}` (ns-2's defaults) or with any of its parameters.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RedTable {
    #[serde(default)]
    pub min_thresh: Option<f64>,
    #[serde(default)]
    pub max_thresh: Option<f64>,
    #[serde(default)]
    pub max_p: Option<f64>,
    #[serde(default)]
    pub weight: Option<f64>,
}

/// `loss = 0.01` or a table.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum LossValue {
    /// Independent loss with this probability, both directions.
    Rate(f64),
    /// A loss model.
    Model(LossTable),
}

/// `loss = { model = ..., ... }` (docs/scenarios.md, `[[link]]`).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LossTable {
    /// `bernoulli` or `gilbert-elliott`.
    pub model: String,
    /// Bernoulli: the probability.
    #[serde(default)]
    pub rate: Option<f64>,
    /// Gilbert-Elliott: loss probability in the good state.
    #[serde(default)]
    pub good_loss: Option<f64>,
    /// Gilbert-Elliott: loss probability in the bad state.
    #[serde(default)]
    pub bad_loss: Option<f64>,
    /// Gilbert-Elliott: mean stay in the good state.
    #[serde(default)]
    pub good_mean: Option<Time>,
    /// Gilbert-Elliott: mean stay in the bad state.
    #[serde(default)]
    pub bad_mean: Option<Time>,
    /// `both` (default), `forward` or `reverse`.
    #[serde(default)]
    pub direction: Option<String>,
    /// Both directions in one channel state (default) or one each.
    #[serde(default)]
    pub shared: Option<bool>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowTable {
    #[serde(default)]
    pub name: Option<String>,
    pub protocol: Spanned<String>,
    pub from: Spanned<String>,
    pub to: Spanned<String>,
    #[serde(default)]
    pub start: Option<StartValue>,
    #[serde(default)]
    pub size: Option<Size>,
    #[serde(default)]
    pub traffic: Option<TrafficTable>,
    #[serde(default)]
    pub tcp: Option<TcpTable>,
    #[serde(default)]
    pub count: Option<u32>,
    #[serde(default)]
    pub pipes: Option<Vec<PipeTable>>,
    #[serde(default)]
    pub policy: Option<Spanned<PolicyTable>>,
    #[serde(default)]
    pub handoffs: Option<Vec<HandoffTable>>,
    #[serde(default)]
    pub proxy: Option<Spanned<String>>,
}

/// A hard handoff of a single-path flow.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HandoffTable {
    pub at: Time,
    pub to: Spanned<String>,
    #[serde(default)]
    pub every: Option<Time>,
    #[serde(default)]
    pub until: Option<Time>,
}

/// An R²CP flow's policy.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicyTable {
    #[serde(default)]
    pub target: Option<Rate>,
    #[serde(default)]
    pub prefer: Option<Spanned<i64>>,
    #[serde(default)]
    pub period: Option<Time>,
    #[serde(default)]
    pub redundant_striping: Option<bool>,
    #[serde(default)]
    pub scheduler: Option<Spanned<String>>,
    #[serde(default)]
    pub rpc: Option<Spanned<String>>,
    #[serde(default)]
    pub without: Option<Spanned<Vec<String>>>,
    #[serde(default)]
    pub flow: Option<Spanned<String>>,
}

/// One pipe of an R²CP flow.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PipeTable {
    pub via: Spanned<String>,
    #[serde(default)]
    pub from: Option<Spanned<String>>,
    #[serde(default)]
    pub open: Option<Time>,
    #[serde(default)]
    pub close: Option<Time>,
    #[serde(default)]
    pub drop: Option<Time>,
    #[serde(default)]
    pub controller: Option<Spanned<String>>,
    #[serde(default)]
    pub retire: Option<Spanned<String>>,
}

/// `start = "1s"` or `start = { uniform = ["0s", "1s"] }`.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum StartValue {
    At(Time),
    Uniform { uniform: [Time; 2] },
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrafficTable {
    pub kind: String,
    pub rate: Rate,
    pub on: Time,
    pub off: Time,
    #[serde(default)]
    pub shape: Option<f64>,
    #[serde(default)]
    pub packet_size: Option<u32>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScheduleTable {
    pub at: Time,
    pub link: Spanned<String>,
    pub action: Spanned<String>,
    #[serde(default)]
    pub rate: Option<Rate>,
    #[serde(default)]
    pub delay: Option<Time>,
    #[serde(default)]
    pub direction: Option<String>,
    #[serde(default)]
    pub every: Option<Time>,
    #[serde(default)]
    pub until: Option<Time>,
    #[serde(default)]
    pub signal: Option<bool>,
}

/// A handoff of a host's access link: it goes down, and comes back after the
/// outage with the new cell's rate and delay.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkHandoffTable {
    pub at: Time,
    pub link: Spanned<String>,
    #[serde(default)]
    pub kind: Option<Spanned<String>>,
    #[serde(default)]
    pub outage: Option<Time>,
    #[serde(default)]
    pub rate: Option<Rate>,
    #[serde(default)]
    pub delay: Option<Time>,
    #[serde(default)]
    pub warning: Option<Time>,
}

/// Random movement among networks: the host's access link dwells in a
/// network for an exponential time, then hands off to the next one drawn
/// by the transition probabilities.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MobilityTable {
    pub link: Spanned<String>,
    pub start: Spanned<String>,
    #[serde(default)]
    pub warning: Option<Time>,
    #[serde(rename = "network")]
    pub networks: Vec<NetworkTable>,
    #[serde(rename = "transition")]
    pub transitions: Vec<TransitionTable>,
}

/// One kind of network a host moves among.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkTable {
    pub name: Spanned<String>,
    pub dwell: Time,
    pub rates: Vec<Rate>,
    pub delay: Time,
}

/// The chance of moving from one network to another, and the outage it
/// costs.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TransitionTable {
    pub from: Spanned<String>,
    pub to: Spanned<String>,
    pub probability: f64,
    pub outage: Time,
}

/// Packet captures (`[trace]`).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceTable {
    /// Links whose packets are written to `<link>.pcap` by `radial run`.
    #[serde(default)]
    pub pcap: Vec<Spanned<String>>,
    /// Bytes kept of each packet, IPv4 and UDP headers included.
    pub snaplen: Option<Spanned<u32>>,
}
