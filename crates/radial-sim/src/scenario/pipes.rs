//! The pipes of a multipath flow (a PRISM flow's are its community's
//! members) and their checks.

use super::schema::{FlowTable, PipeTable};
use super::{Resolver, ScenarioError};
use crate::spec::{FlowProtocol, LinkSpec, PipeSpec};
use radial_core::cc::Algorithm;
use radial_core::rcp::RcpVariant;
use radial_core::Duration;
use toml::Spanned;

/// What resolving a flow's pipes needs from the flow around them.
pub(super) struct PipeContext<'a> {
    /// The flow's table.
    pub flow: &'a FlowTable,
    /// Its index in the file.
    pub i: usize,
    /// Node names.
    pub nodes: &'a [String],
    /// Which nodes have a link.
    pub connected: &'a [bool],
    /// The links resolved so far (all of them).
    pub links: &'a [LinkSpec],
    /// Substitutes the flow's `{i}` in names.
    pub sub: &'a dyn Fn(&str) -> String,
    /// The flow's source node.
    pub from: u32,
    /// The flow's sink node.
    pub to: u32,
    /// The flow's start.
    pub start: Duration,
}

impl Resolver<'_> {
    /// The flow's pipes: those listed, or one from `from` to `to` for a
    /// multipath flow that lists none.
    pub(super) fn pipes(
        &self,
        c: &PipeContext,
        protocol: &mut FlowProtocol,
    ) -> Result<Vec<PipeSpec>, ScenarioError> {
        let (f, i) = (c.flow, c.i);
        let (from, to, start) = (c.from, c.to, c.start);
        let multi = protocol.kind().multipath();
        let pipes = match (multi, &f.pipes) {
            (true, Some(list)) => {
                let mut pipes = Vec::new();
                for (j, p) in list.iter().enumerate() {
                    let pipe = self.pipe(c, protocol, (j, list.len(), p), &pipes)?;
                    pipes.push(pipe);
                }
                if pipes.is_empty() {
                    return self.err(
                        Some(f.protocol.span()),
                        format!("flow[{i}].pipes"),
                        "an R²CP flow needs at least one pipe".into(),
                    );
                }
                pipes
            }
            // One pipe from `from` to `to` for the whole flow.
            (true, None) => vec![PipeSpec {
                server: from,
                via: to,
                open: start,
                close: None,
                drop: None,
                controller: None,
                handoff_to_next: false,
            }],
            (false, Some(_)) => {
                return self.err(
                    Some(f.protocol.span()),
                    format!("flow[{i}].pipes"),
                    "`pipes` apply to multipath flows only (`r2cp`, `r2cp-s`, `r2cp-coupled`, `ptcp`, `mptcp-*`, `apps`)"
                        .into(),
                )
            }
            (false, None) => Vec::new(),
        };
        if let FlowProtocol::Prism(config) = protocol {
            self.prism_members(c, config, &pipes)?;
        } else if let Some(proxy) = &c.flow.proxy {
            return self.err(
                Some(proxy.span()),
                format!("flow[{}].proxy", c.i),
                "`proxy` applies to PRISM flows only (`prism`, `prism-tcp`)".into(),
            );
        }
        Ok(pipes)
    }

    /// Pipe `j` of `count` (`p`) of the flow in `c`, given the pipes before
    /// it.
    fn pipe(
        &self,
        c: &PipeContext,
        protocol: &mut FlowProtocol,
        (j, count, p): (usize, usize, &PipeTable),
        earlier: &[PipeSpec],
    ) -> Result<PipeSpec, ScenarioError> {
        let (i, nodes, connected, sub) = (c.i, c.nodes, c.connected, c.sub);
        let (from, start) = (c.from, c.start);
        let key = format!("flow[{i}].pipes[{j}]");
        let via = self.node(
            nodes,
            &Spanned::new(p.via.span(), sub(p.via.get_ref())),
            format!("{key}.via"),
        )?;
        let server = match &p.from {
            Some(n) => self.node(
                nodes,
                &Spanned::new(n.span(), sub(n.get_ref())),
                format!("{key}.from"),
            )?,
            None => from,
        };
        for (id, k) in [(via, "via"), (server, "from")] {
            if !connected[id as usize] {
                return self.err(
                    Some(p.via.span()),
                    format!("{key}.{k}"),
                    format!("node `{}` has no link", nodes[id as usize]),
                );
            }
        }
        let open = self.pipe_times(p, start, &key, protocol)?;
        // An R²CP flow may open a fresh pipe on an interface and server an
        // earlier pipe left (a new attachment of the same interface), once
        // that one is gone; two at once would be one path twice.
        let end = p.drop.or(p.close).map(|t| t.0);
        let sequential = matches!(protocol, FlowProtocol::R2cp(_));
        if earlier.iter().any(|q: &PipeSpec| {
            q.via == via && q.server == server && (!sequential || overlap(q, open, end))
        }) {
            return self.err(
                Some(p.via.span()),
                format!("{key}.via"),
                if sequential {
                    "two pipes of a flow share an interface and a server at the same time: close or drop the first before the second opens"
                } else {
                    "two pipes of a flow share an interface and a server"
                }
                .into(),
            );
        }
        if let FlowProtocol::Ptcp(config) = &mut *protocol {
            self.ptcp_pipe(config, p, j, server, from, &key)?;
        }
        let controller = self.pipe_controller(p, j, &key, protocol)?;
        let handoff_to_next = match &p.retire {
            None => false,
            Some(r)
                if r.get_ref() == "when-next-ready"
                    && j + 1 < count
                    && matches!(protocol, FlowProtocol::R2cp(_) | FlowProtocol::Ptcp(_)) =>
            {
                true
            }
            Some(r) => return self.err(
                Some(r.span()),
                format!("{key}.retire"),
                "`retire` takes \"when-next-ready\", on an R²CP or pTCP pipe followed by another"
                    .into(),
            ),
        };
        Ok(PipeSpec {
            server,
            via,
            open,
            close: p.close.map(|t| t.0),
            drop: p.drop.map(|t| t.0),
            controller,
            handoff_to_next,
        })
    }

    /// When pipe `p` (key `key`) opens, after checking that it closes or
    /// drops later.
    fn pipe_times(
        &self,
        p: &PipeTable,
        start: Duration,
        key: &str,
        protocol: &FlowProtocol,
    ) -> Result<Duration, ScenarioError> {
        let open = p.open.map_or(start, |t| t.0);
        if matches!(protocol, FlowProtocol::Apps(_)) && (p.close.is_some() || p.drop.is_some()) {
            return self.err(
                Some(p.via.span()),
                format!("{key}.close"),
                "`apps` connections stay open: no `close` or `drop`".into(),
            );
        }
        for (t, k) in [(p.close, "close"), (p.drop, "drop")] {
            if t.is_some_and(|c| c.0 <= open) {
                return self.err(
                    Some(p.via.span()),
                    format!("{key}.{k}"),
                    format!("a pipe must {k} after it opens"),
                );
            }
        }
        if let (Some(c), Some(d)) = (p.close, p.drop) {
            if d.0 <= c.0 {
                return self.err(
                    Some(p.via.span()),
                    format!("{key}.close"),
                    "a pipe dropped before it is closed is never closed: give one of `close` and `drop`".into(),
                );
            }
        }
        Ok(open)
    }

    /// The controller pipe `j` (`p`) names, if any; an RCP-ELN pipe of an
    /// R²CP flow is marked as one that hears its interface's losses.
    fn pipe_controller(
        &self,
        p: &PipeTable,
        j: usize,
        key: &str,
        protocol: &mut FlowProtocol,
    ) -> Result<Option<Algorithm>, ScenarioError> {
        let controller = match &p.controller {
            None => None,
            Some(_) if matches!(protocol, FlowProtocol::Ptcp(_)) => None,
            Some(c) => match RcpVariant::from_name(c.get_ref()) {
                Some(v) if matches!(protocol, FlowProtocol::R2cp(_)) => {
                    // RCP-ELN on this interface: its pipe acts on
                    // the host's wireless-loss reports.
                    if let FlowProtocol::R2cp(config) = &mut *protocol {
                        if v.knows_wireless_losses() && j < 64 {
                            config.eln_paths |= 1 << j;
                        }
                    }
                    Some(v.algorithm())
                }
                _ => {
                    return self.err(
                        Some(c.span()),
                        format!("{key}.controller"),
                        format!(
                            "unknown pipe controller `{}` (rcp, rcp-eln, rcp-sat; R²CP flows only)",
                            c.get_ref()
                        ),
                    )
                }
            },
        };
        Ok(controller)
    }
}

/// Whether pipe `q` is open at some time in `[open, end)` (`None`: to the
/// end of the run).
fn overlap(q: &PipeSpec, open: Duration, end: Option<Duration>) -> bool {
    let q_end = q.drop.or(q.close);
    q_end.is_none_or(|e| e > open) && end.is_none_or(|e| e > q.open)
}
