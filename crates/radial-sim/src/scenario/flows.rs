//! A scenario's flows, resolved: ends, start times, the transport each
//! protocol name stands for with its parameters, pipes, policies and
//! single-path handoffs.

use toml::Spanned;

use radial_core::mptcp;
use radial_core::ptcp::PtcpConfig;
use radial_core::r2cp::{FlowControl, R2cpConfig, Rules};
use radial_core::rcp::RcpVariant;
use radial_core::tcp::TcpVariant;
use radial_core::Duration;

use super::pipes::PipeContext;
use super::repeat;
use super::schema::{File, FlowTable, StartValue};
use super::PIPE_INITIAL_RTO;
use super::{Resolver, ScenarioError};
use crate::protocol::Protocol;
use crate::rng::Rng;
use crate::spec::{FlowProtocol, FlowSpec, LinkSpec, OnOffSpec, PrismFlow, Traffic};

impl Resolver<'_> {
    /// Every flow (templates expanded), between nodes that have links.
    pub(super) fn flows(
        &self,
        file: &File,
        seed: u64,
        nodes: &[String],
        links: &[LinkSpec],
    ) -> Result<Vec<FlowSpec>, ScenarioError> {
        let mut connected = vec![false; nodes.len()];
        for l in links {
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
                    nodes,
                    &Spanned::new(f.from.span(), sub(f.from.get_ref())),
                    format!("flow[{i}].from"),
                )?;
                let to = self.node(
                    nodes,
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
                let start = self.flow_start(file, f, i, idx, seed)?;
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
                let (protocol, traffic) = self.flow_protocol(file, f, i, proto, onoff)?;
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
                        nodes,
                        connected: &connected,
                        links,
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
                let handoffs = self.flow_handoffs(
                    file,
                    f,
                    i,
                    (nodes, &connected),
                    (&protocol, multi, start),
                    &sub,
                )?;
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
        Ok(flows)
    }

    /// When flow `i` (the `idx`th built) starts: a time, or a uniform draw
    /// from the seed; before the scenario's end.
    fn flow_start(
        &self,
        file: &File,
        f: &FlowTable,
        i: usize,
        idx: usize,
        seed: u64,
    ) -> Result<Duration, ScenarioError> {
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
        Ok(start)
    }

    /// The transport flow `i` runs (`proto`, its parameters from the shared
    /// `[tcp]` table and the flow's own) and what it carries.
    fn flow_protocol(
        &self,
        file: &File,
        f: &FlowTable,
        i: usize,
        proto: Protocol,
        onoff: Option<OnOffSpec>,
    ) -> Result<(FlowProtocol, Traffic), ScenarioError> {
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
                Protocol::R2cp(scheduling, coupling, paper) => {
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
                        rules: if paper { Rules::PAPER } else { Rules::ALL },
                        target: None,
                        coupling,
                        // The papers' engines keep their own flow control:
                        // each request reserves its segment's room (RCP
                        // §3.3.4, R²CP §4.3.4).
                        flow: if paper {
                            FlowControl::Reserve
                        } else {
                            FlowControl::default()
                        },
                        eln_paths: 0,
                        pacing_quantum: Duration::ZERO,
                    })
                }
                Protocol::Ptcp(_) | Protocol::Mptcp(_) => {
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
                        Protocol::Ptcp(true) => PtcpConfig::paper(),
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
        Ok((protocol, traffic))
    }

    /// A single-path flow's handoffs to other nodes, in time order.
    fn flow_handoffs(
        &self,
        file: &File,
        f: &FlowTable,
        i: usize,
        (nodes, connected): (&[String], &[bool]),
        (protocol, multi, start): (&FlowProtocol, bool, Duration),
        sub: &dyn Fn(&str) -> String,
    ) -> Result<Vec<(Duration, u32)>, ScenarioError> {
        let mut handoffs: Vec<(Duration, u32)> = Vec::new();
        for (j, h) in f.handoffs.iter().flatten().enumerate() {
            let key = format!("flow[{i}].handoffs[{j}]");
            if multi || matches!(protocol, FlowProtocol::Udp) {
                return self.err(
                    Some(h.to.span()),
                    key,
                    "`handoffs` apply to single-path TCP and RCP flows (R²CP flows have `pipes`)"
                        .into(),
                );
            }
            let node = self.node(
                nodes,
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
        Ok(handoffs)
    }
}
