//! Scenario files: TOML in, validated [`RunSpec`]s out, one per sweep point
//! and seed. Errors name the file, the line and the key.
//!
//! Sweeps: `[sweep]` lists `seeds` and, under `[sweep.params]`, named value
//! lists. Elsewhere in the file `"${name}"` (the whole string) stands for the
//! value itself and `${name}` inside a longer string for its text, so
//! `loss = "${loss}"` is a number and `delay = "${delay_ms}ms"` a time.

mod mobility;
mod params;
mod pipes;
mod prism;
mod repeat;
mod schema;
pub use params::link_loss;
pub use schema::{LossTable, LossValue};
mod sweep;
mod text;
mod trace;
pub mod units;

use text::{expand, line_of, readable_key, readable_message};

use std::fmt;
use std::path::Path;

use crate::protocol::Protocol;
use crate::red::RedParams;
use radial_core::mptcp;
use radial_core::ptcp::PtcpConfig;
use radial_core::r2cp::{R2cpConfig, TargetRate};
use radial_core::rcp::{Opener, RcpConfig, RcpVariant};
use radial_core::tcp::{TcpConfig, TcpVariant};
use radial_core::{Duration, PathId};
use toml::Spanned;

use crate::channel::GilbertElliottParams;
use crate::rng::Rng;
use crate::spec::{
    Direction, EnergyModel, FlowProtocol, FlowSpec, LinkAction, LinkSpec, LossSpec, OnOffSpec,
    PrismFlow, RunSpec, ScheduleSpec, Traffic,
};
use pipes::PipeContext;
use schema::{File, StartValue, TcpTable, TrafficTable};
use sweep::substitute;

/// The initial retransmission timeout of an R²CP pipe unless the scenario
/// sets `initial_rto` (RFC 6298 §2.1).
pub const PIPE_INITIAL_RTO: Duration = Duration::from_secs(1);

/// A scenario problem, located in its file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// The file.
    pub file: String,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// The key path (`link[1].rate`).
    pub key: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(
                f,
                "{}:{}: key `{}`: {}",
                self.file, l, self.key, self.message
            ),
            None => write!(f, "{}: key `{}`: {}", self.file, self.key, self.message),
        }
    }
}

impl std::error::Error for ScenarioError {}

/// One point of a sweep: a value for each swept parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    /// `(name, value)` in the order the scenario declares them.
    pub values: Vec<(String, toml::Value)>,
}

impl Point {
    /// The value of `name` as plain text (for CSV columns and labels).
    pub fn text(&self, name: &str) -> Option<String> {
        self.values
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| value_text(v))
    }
}

fn value_text(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A loaded scenario file.
#[derive(Clone, Debug)]
pub struct Scenario {
    file: String,
    text: String,
    /// Scenario name (`[scenario] name`).
    pub name: String,
    /// Swept parameters and their values, in file order.
    pub params: Vec<(String, Vec<toml::Value>)>,
    /// Groups of parameters that vary together, value by value, instead of
    /// in every combination (`[sweep] zip = [...]`, or a list of such
    /// lists for several groups).
    pub zip: Vec<Vec<String>>,
    /// Seeds to run.
    pub seeds: Vec<u64>,
}

impl Scenario {
    /// The run description of `point` with `seed`.
    pub fn build(&self, point: &Point, seed: u64) -> Result<RunSpec, ScenarioError> {
        let text = substitute(&self.text, point).map_err(|(line, key)| ScenarioError {
            file: self.file.clone(),
            line: Some(line),
            key: key.clone(),
            message: format!("`${{{key}}}` is not a sweep parameter"),
        })?;
        let de = toml::Deserializer::new(&text);
        let file: File = serde_path_to_error::deserialize(de).map_err(|e| {
            let key = readable_key(&e.path().to_string());
            let inner = e.into_inner();
            ScenarioError {
                file: self.file.clone(),
                line: inner.span().map(|s| line_of(&text, s.start)),
                key,
                message: readable_message(inner.message()),
            }
        })?;
        Resolver {
            file: &self.file,
            text: &text,
        }
        .resolve(file, seed)
    }
}

struct Resolver<'a> {
    file: &'a str,
    text: &'a str,
}

impl Resolver<'_> {
    fn err<T>(
        &self,
        span: Option<std::ops::Range<usize>>,
        key: String,
        message: String,
    ) -> Result<T, ScenarioError> {
        Err(ScenarioError {
            file: self.file.to_string(),
            line: span.map(|s| line_of(self.text, s.start)),
            key,
            message,
        })
    }

    /// Where `name = ...` first appears in the file (for keys whose values
    /// carry no position of their own).
    fn key_span(&self, name: &str) -> Option<std::ops::Range<usize>> {
        let mut at = 0;
        for line in self.text.split_inclusive('\n') {
            let t = line.trim_start().trim_start_matches('{').trim_start();
            if let Some(rest) = t.strip_prefix(name) {
                if rest.trim_start().starts_with('=') {
                    return Some(at..at + line.len());
                }
            }
            if let Some(i) = line
                .find(&format!(" {name} ="))
                .or_else(|| line.find(&format!("{{{name} =")))
            {
                return Some(at + i..at + line.len());
            }
            at += line.len();
        }
        None
    }

    fn node(
        &self,
        names: &[String],
        s: &Spanned<String>,
        key: String,
    ) -> Result<u32, ScenarioError> {
        match names.iter().position(|n| n == s.get_ref()) {
            Some(i) => Ok(i as u32),
            None => self.err(
                Some(s.span()),
                key,
                format!("unknown node `{}`", s.get_ref()),
            ),
        }
    }

    fn resolve(&self, file: File, seed: u64) -> Result<RunSpec, ScenarioError> {
        let mut nodes: Vec<String> = Vec::new();
        let mut energy = Vec::new();
        for (i, n) in file.nodes.iter().enumerate() {
            for name in expand(n.name.get_ref(), n.count) {
                if nodes.contains(&name) {
                    return self.err(
                        Some(n.name.span()),
                        format!("node[{i}].name"),
                        format!("duplicate node `{name}`"),
                    );
                }
                if let Some(e) = n.energy {
                    energy.push((
                        nodes.len() as u32,
                        EnergyModel {
                            tx: e.tx.0,
                            rx: e.rx.0,
                            idle: e.idle.0,
                            sleep: e.sleep.0,
                        },
                    ));
                }
                nodes.push(name);
            }
        }
        let mut links = Vec::new();
        let mut channels = Vec::new();
        for (i, l) in file.links.iter().enumerate() {
            // No `count`: one item; `count = n`: n items from the template
            // (none for 0, so a sweep can switch a group off).
            let templated = l.count.is_some();
            let count = l.count.unwrap_or(1);
            for k in 0..count {
                let sub = |s: &str| {
                    if templated {
                        s.replace("{i}", &(k + 1).to_string())
                    } else {
                        s.to_string()
                    }
                };
                let ends = l.between.get_ref();
                let mut ids = [0u32; 2];
                for (j, e) in ends.iter().enumerate() {
                    let s = Spanned::new(e.span(), sub(e.get_ref()));
                    ids[j] = self.node(&nodes, &s, format!("link[{i}].between"))?;
                }
                if ids[0] == ids[1] {
                    return self.err(
                        Some(l.between.span()),
                        format!("link[{i}].between"),
                        "a link needs two different nodes".into(),
                    );
                }
                let name = l.name.as_deref().map(sub).unwrap_or_else(|| {
                    format!("{}-{}", nodes[ids[0] as usize], nodes[ids[1] as usize])
                });
                let queue = match &l.queue {
                    None => 1000,
                    Some(q) if *q.get_ref() >= 2 => *q.get_ref() as usize,
                    Some(q) => {
                        return self.err(Some(q.span()), format!("link[{i}].queue"), format!("queue limit `{}` must be at least 2 packets (a limit of N holds N - 1 waiting packets plus the one on the wire, as ns-2's DropTail; 1 would drop everything)", q.get_ref()))
                    }
                };
                // The longest packet the link carries, at its slower rate: a
                // channel state shorter than that cannot be told from none.
                let packet_bytes = file.tcp.packet_size.unwrap_or(1000)
                    + 20
                    + u64::from(file.scenario.overhead_bytes.unwrap_or(20));
                let slower = l.rate_reverse.map_or(l.rate.0, |r| r.0.min(l.rate.0));
                let packet_time = slower.transmission_time(packet_bytes);
                let (fwd, rev) = match &l.loss {
                    None => (LossSpec::None, LossSpec::None),
                    Some(v) => {
                        self.loss(v, &format!("link[{i}].loss"), packet_time, &mut channels)?
                    }
                };
                let red = match &l.red {
                    None => None,
                    Some(t) => {
                        let d = RedParams::default();
                        let r = t.get_ref();
                        let params = RedParams {
                            min_thresh: r.min_thresh.unwrap_or(d.min_thresh),
                            max_thresh: r.max_thresh.unwrap_or(d.max_thresh),
                            max_p: r.max_p.unwrap_or(d.max_p),
                            weight: r.weight.unwrap_or(d.weight),
                        };
                        if let Err(e) = params.check() {
                            return self.err(Some(t.span()), format!("link[{i}].red"), e);
                        }
                        Some(params)
                    }
                };
                links.push(LinkSpec {
                    name,
                    red,
                    a: ids[0],
                    b: ids[1],
                    rate_forward: l.rate.0,
                    rate_reverse: l.rate_reverse.map_or(l.rate.0, |r| r.0),
                    delay: l.delay.0,
                    queue,
                    loss_forward: fwd,
                    loss_reverse: rev,
                });
            }
        }
        if links
            .iter()
            .map(|l| &l.name)
            .collect::<std::collections::BTreeSet<_>>()
            .len()
            != links.len()
        {
            return self.err(None, "link.name".into(), "link names must be unique".into());
        }
        let mut connected = vec![false; nodes.len()];
        for l in &links {
            connected[l.a as usize] = true;
            connected[l.b as usize] = true;
        }
        let mut flows = Vec::new();
        for (i, f) in file.flows.iter().enumerate() {
            // No `count`: one item; `count = n`: n items from the template
            // (none for 0, so a sweep can switch a group off).
            let templated = f.count.is_some();
            let count = f.count.unwrap_or(1);
            for k in 0..count {
                let idx = flows.len();
                let sub = |s: &str| {
                    if templated {
                        s.replace("{i}", &(k + 1).to_string())
                    } else {
                        s.to_string()
                    }
                };
                let from = self.node(
                    &nodes,
                    &Spanned::new(f.from.span(), sub(f.from.get_ref())),
                    format!("flow[{i}].from"),
                )?;
                let to = self.node(
                    &nodes,
                    &Spanned::new(f.to.span(), sub(f.to.get_ref())),
                    format!("flow[{i}].to"),
                )?;
                for (end, id, key) in [(&f.from, from, "from"), (&f.to, to, "to")] {
                    if !connected[id as usize] {
                        return self.err(
                            Some(end.span()),
                            format!("flow[{i}].{key}"),
                            format!("node `{}` has no link", nodes[id as usize]),
                        );
                    }
                }
                if from == to {
                    return self.err(
                        Some(f.to.span()),
                        format!("flow[{i}].to"),
                        "a flow needs two different nodes".into(),
                    );
                }
                let start = match &f.start {
                    None => Duration::ZERO,
                    Some(StartValue::At(t)) => t.0,
                    Some(StartValue::Uniform { uniform: [a, b] }) => {
                        if b.0 < a.0 {
                            return self.err(
                                None,
                                format!("flow[{i}].start"),
                                "uniform range must be [low, high]".into(),
                            );
                        }
                        let mut r = Rng::stream(seed, &format!("flow:{idx}:start"));
                        a.0 + Duration::from_secs_f64(r.uniform() * (b.0 - a.0).as_secs_f64())
                    }
                };
                if start >= file.scenario.duration.0 {
                    return self.err(
                        Some(f.protocol.span()),
                        format!("flow[{i}].start"),
                        format!(
                            "the flow starts at {} s, after the scenario's end",
                            start.as_secs_f64()
                        ),
                    );
                }
                let proto: Protocol = match f.protocol.get_ref().parse() {
                    Ok(p) => p,
                    Err(message) => {
                        return self.err(
                            Some(f.protocol.span()),
                            format!("flow[{i}].protocol"),
                            message,
                        )
                    }
                };
                let onoff = match &f.traffic {
                    Some(t) => Some(self.onoff(t, f.protocol.span(), i)?),
                    None => None,
                };
                let (protocol, traffic) = if proto == Protocol::Udp {
                    let Some(onoff) = onoff else {
                        return self.err(
                            Some(f.protocol.span()),
                            format!("flow[{i}].traffic"),
                            "a `udp` flow needs a `traffic` table".into(),
                        );
                    };
                    (FlowProtocol::Udp, Traffic::OnOff(onoff))
                } else {
                    let table = match &f.tcp {
                        Some(o) => file.tcp.overlay(o),
                        None => file.tcp.clone(),
                    };
                    let traffic = match (f.size, onoff) {
                        (Some(_), Some(_)) => {
                            return self.err(
                                Some(f.protocol.span()),
                                format!("flow[{i}].size"),
                                "a flow has either a `size` or a `traffic` table, not both".into(),
                            )
                        }
                        (Some(s), None) => Traffic::File(s.0),
                        (None, Some(o)) => Traffic::OnOff(o),
                        (None, None) => Traffic::Bulk,
                    };
                    let key = format!("flow[{i}].tcp");
                    let protocol = match proto {
                        Protocol::Tcp(variant) => {
                            // RCP-only keys may sit in the shared [tcp]
                            // table, but not in a TCP flow's own overrides.
                            if f.tcp
                                .as_ref()
                                .is_some_and(|o| o.open.is_some() || o.power_save.is_some())
                            {
                                return self.err(
                                    Some(f.protocol.span()),
                                    format!("{key}.open"),
                                    "`open` and `power_save` apply to RCP flows only".into(),
                                );
                            }
                            FlowProtocol::Tcp(self.tcp_config(variant, &table, &key)?)
                        }
                        Protocol::Rcp(variant) => {
                            FlowProtocol::Rcp(self.rcp_config(variant, &table, &key)?)
                        }
                        Protocol::R2cp(scheduling, coupling) => {
                            let mut pipe = self.rcp_config(RcpVariant::Rcp, &table, &key)?;
                            if table.initial_rto.is_none() {
                                // RFC 6298's initial RTO for pipes: a pipe
                                // often opens just as its interface comes
                                // up, and a lost SYN must not cost ns-2's 3 s.
                                pipe.rtt.initial_rto = PIPE_INITIAL_RTO;
                            }
                            FlowProtocol::R2cp(R2cpConfig {
                                pipe,
                                scheduling,
                                redundant_striping: true,
                                target: None,
                                coupling,
                                eln_paths: 0,
                            })
                        }
                        Protocol::Ptcp | Protocol::Mptcp(_) => {
                            let mut tcp = self.tcp_config(TcpVariant::Sack, &table, &key)?;
                            if table.initial_rto.is_none() {
                                // As for R²CP's pipes: a pipe opens as its
                                // interface comes up (RFC 6298's initial RTO).
                                tcp.rtt.initial_rto = PIPE_INITIAL_RTO;
                            }
                            let base = match proto {
                                Protocol::Mptcp(coupling) => {
                                    // The application fills the whole send
                                    // buffer (Linux's default): what ECF
                                    // counts as data waiting to be sent.
                                    tcp.unsent_limit = tcp.send_buffer;
                                    mptcp::config(coupling)
                                }
                                _ => PtcpConfig::ns2(),
                            };
                            FlowProtocol::Ptcp(PtcpConfig { tcp, ..base })
                        }
                        Protocol::Apps => {
                            FlowProtocol::Apps(self.rcp_config(RcpVariant::Rcp, &table, &key)?)
                        }
                        Protocol::Prism(variant) => FlowProtocol::Prism(PrismFlow {
                            tcp: self.tcp_config(variant, &table, &key)?,
                            imux: radial_core::prism::ImuxConfig::new(&[]),
                            proxy: u32::MAX,
                        }),
                        // Taken above: a `udp` flow has no transport table.
                        Protocol::Udp => FlowProtocol::Udp,
                    };
                    (protocol, traffic)
                };
                let name = f
                    .name
                    .as_deref()
                    .map(sub)
                    .unwrap_or_else(|| format!("{idx}"));
                let mut protocol = protocol;
                let multi = proto.multipath();
                let pipes = self.pipes(
                    &PipeContext {
                        flow: f,
                        i,
                        nodes: &nodes,
                        connected: &connected,
                        links: &links,
                        sub: &sub,
                        from,
                        to,
                        start,
                    },
                    &mut protocol,
                )?;
                if let Some(policy) = &f.policy {
                    self.policy(&mut protocol, policy, i, pipes.len())?;
                }
                let mut handoffs: Vec<(Duration, u32)> = Vec::new();
                for (j, h) in f.handoffs.iter().flatten().enumerate() {
                    let key = format!("flow[{i}].handoffs[{j}]");
                    if multi || matches!(protocol, FlowProtocol::Udp) {
                        return self.err(
                            Some(h.to.span()),
                            key,
                            "`handoffs` apply to single-path TCP and RCP flows (R²CP flows have `pipes`)".into(),
                        );
                    }
                    let node = self.node(
                        &nodes,
                        &Spanned::new(h.to.span(), sub(h.to.get_ref())),
                        format!("{key}.to"),
                    )?;
                    if !connected[node as usize] {
                        return self.err(
                            Some(h.to.span()),
                            format!("{key}.to"),
                            format!("node `{}` has no link", nodes[node as usize]),
                        );
                    }
                    if h.at.0 <= start {
                        return self.err(
                            Some(h.to.span()),
                            format!("{key}.at"),
                            "handoffs come after the flow's start".into(),
                        );
                    }
                    let until = h.until.map_or(file.scenario.duration.0, |t| t.0);
                    let times = repeat::times(h.at.0, h.every.map(|t| t.0), until)
                        .or_else(|m| self.err(Some(h.to.span()), format!("{key}.every"), m))?;
                    if h.every.is_none() && handoffs.last().is_some_and(|&(t, _)| h.at.0 <= t) {
                        return self.err(
                            Some(h.to.span()),
                            format!("{key}.at"),
                            "handoffs come in ascending time".into(),
                        );
                    }
                    handoffs.extend(times.into_iter().map(|t| (t, node)));
                }
                handoffs.sort_by_key(|&(t, _)| t);
                if let Some(w) = handoffs.windows(2).find(|w| w[0].0 == w[1].0) {
                    return self.err(
                        None,
                        format!("flow[{i}].handoffs"),
                        format!("two handoffs at {} s", w[0].0.as_secs_f64()),
                    );
                }
                flows.push(FlowSpec {
                    name,
                    protocol,
                    from,
                    to,
                    start,
                    traffic,
                    pipes,
                    handoffs,
                });
            }
        }
        let mut schedule = Vec::new();
        for (i, s) in file.schedule.iter().enumerate() {
            let Some(link) = links.iter().position(|l| &l.name == s.link.get_ref()) else {
                return self.err(
                    Some(s.link.span()),
                    format!("schedule[{i}].link"),
                    format!("unknown link `{}`", s.link.get_ref()),
                );
            };
            let action = match s.action.get_ref().as_str() {
                "down" => LinkAction::Down,
                "up" => LinkAction::Up,
                "rate" => match s.rate {
                    Some(r) => LinkAction::Rate(r.0),
                    None => {
                        return self.err(
                            Some(s.action.span()),
                            format!("schedule[{i}].rate"),
                            "action `rate` needs `rate`".into(),
                        )
                    }
                },
                "delay" => match s.delay {
                    Some(d) => LinkAction::Delay(d.0),
                    None => {
                        return self.err(
                            Some(s.action.span()),
                            format!("schedule[{i}].delay"),
                            "action `delay` needs `delay`".into(),
                        )
                    }
                },
                other => {
                    return self.err(
                        Some(s.action.span()),
                        format!("schedule[{i}].action"),
                        format!("unknown action `{other}` (down, up, rate, delay)"),
                    )
                }
            };
            let direction = self.direction(
                s.direction.as_deref(),
                &format!("schedule[{i}].direction"),
                Some(s.action.span()),
            )?;
            let signal = s.signal.unwrap_or(false);
            if signal && !matches!(action, LinkAction::Down | LinkAction::Up) {
                return self.err(
                    Some(s.action.span()),
                    format!("schedule[{i}].signal"),
                    "only `down` and `up` can be signalled to the hosts".into(),
                );
            }
            let until = s.until.map_or(file.scenario.duration.0, |t| t.0);
            let times = repeat::times(s.at.0, s.every.map(|t| t.0), until)
                .or_else(|m| self.err(Some(s.action.span()), format!("schedule[{i}].every"), m))?;
            for at in times {
                schedule.push(ScheduleSpec {
                    at,
                    link: link as u32,
                    direction,
                    action,
                    signal,
                });
            }
        }
        let link_handoffs = self.link_handoffs(&file, &links, seed, &mut schedule)?;
        // Entries at the same time apply in the file's order.
        schedule.sort_by_key(|e| e.at);
        let (pcap, snaplen) = self.trace(&file.trace, &links)?;
        Ok(RunSpec {
            name: file.scenario.name,
            duration: file.scenario.duration.0,
            seed,
            nodes,
            energy,
            links,
            channels,
            flows,
            schedule,
            link_handoffs,
            overhead_bytes: file.scenario.overhead_bytes.unwrap_or(20),
            sample_interval: file
                .scenario
                .sample_interval
                .map_or(Duration::from_millis(100), |t| t.0),
            pcap,
            snaplen,
        })
    }
}

#[cfg(test)]
mod tests;
