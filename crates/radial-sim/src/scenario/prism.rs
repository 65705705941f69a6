//! A PRISM flow's proxy and community members.

use super::pipes::PipeContext;
use super::schema::PolicyTable;
use super::{Resolver, ScenarioError};
use crate::routing::Routing;
use crate::spec::{PipeSpec, PrismFlow};
use radial_core::prism::{ImuxConfig, RpcMode, Scheduler, MAX_LINKS};
use toml::Spanned;

impl Resolver<'_> {
    /// Resolves the flow's `proxy` and gives each member (pipe) the
    /// bandwidth of its route from the proxy, the base of its weight.
    pub(super) fn prism_members(
        &self,
        c: &PipeContext,
        config: &mut PrismFlow,
        pipes: &[PipeSpec],
    ) -> Result<(), ScenarioError> {
        let i = c.i;
        let Some(name) = &c.flow.proxy else {
            return self.err(
                Some(c.flow.protocol.span()),
                format!("flow[{i}].proxy"),
                "a PRISM flow needs a `proxy` node, where its inverse multiplexer runs".into(),
            );
        };
        let key = format!("flow[{i}].proxy");
        let proxy = self.node(
            c.nodes,
            &Spanned::new(name.span(), (c.sub)(name.get_ref())),
            key.clone(),
        )?;
        if proxy == c.from || proxy == c.to || !c.connected[proxy as usize] {
            return self.err(
                Some(name.span()),
                key,
                "the proxy is a linked node other than the flow's ends".into(),
            );
        }
        if pipes.len() > MAX_LINKS {
            return self.err(
                Some(c.flow.protocol.span()),
                format!("flow[{i}].pipes"),
                format!("a PRISM proxy stripes over at most {MAX_LINKS} members"),
            );
        }
        // Directed links, as the simulator routes over them.
        let directed: Vec<(u32, u32)> = c
            .links
            .iter()
            .flat_map(|l| [(l.a, l.b), (l.b, l.a)])
            .collect();
        let routes = Routing::compute(c.nodes.len(), &directed);
        let mut bandwidths = Vec::new();
        for (j, p) in pipes.iter().enumerate() {
            let key = format!("flow[{i}].pipes[{j}]");
            let table = c.flow.pipes.as_ref().and_then(|l| l.get(j));
            if let Some(from) = table.and_then(|t| t.from.as_ref()) {
                return self.err(
                    Some(from.span()),
                    format!("{key}.from"),
                    "a PRISM flow's data all come from its `from` through the proxy".into(),
                );
            }
            if p.via == proxy {
                return self.err(
                    table.map(|t| t.via.span()),
                    format!("{key}.via"),
                    "a member is a node other than the proxy".into(),
                );
            }
            // The member's bandwidth: the slowest link on the route from
            // the proxy (its WWAN link, the paper's "logical link" through
            // the ISPs' networks).
            let mut at = proxy;
            let mut slowest: Option<f64> = None;
            while at != p.via {
                let Some(d) = routes.next_hop(at, p.via) else {
                    return self.err(
                        table.map(|t| t.via.span()),
                        format!("{key}.via"),
                        format!(
                            "member `{}` cannot be reached from the proxy `{}`",
                            c.nodes[p.via as usize], c.nodes[proxy as usize]
                        ),
                    );
                };
                let l = &c.links[d as usize / 2];
                let rate = if d % 2 == 0 {
                    l.rate_forward
                } else {
                    l.rate_reverse
                };
                let bps = rate.bps() as f64;
                slowest = Some(slowest.map_or(bps, |s: f64| s.min(bps)));
                at = directed[d as usize].1;
            }
            bandwidths.push(slowest.unwrap_or(0.0));
        }
        let imux = ImuxConfig::new(&bandwidths);
        config.proxy = proxy;
        config.imux = ImuxConfig {
            scheduler: config.imux.scheduler,
            rpc: config.imux.rpc,
            ..imux
        };
        Ok(())
    }

    /// A PRISM flow's `policy`: the proxy's scheduler and how much of RPC
    /// runs.
    pub(super) fn prism_policy(
        &self,
        config: &mut PrismFlow,
        policy: &PolicyTable,
        span: std::ops::Range<usize>,
        key: &str,
    ) -> Result<(), ScenarioError> {
        if policy.target.is_some()
            || policy.prefer.is_some()
            || policy.period.is_some()
            || policy.redundant_striping.is_some()
        {
            return self.err(
                Some(span),
                key.to_string(),
                "a PRISM flow's `policy` takes `scheduler` and `rpc` only".into(),
            );
        }
        if let Some(name) = &policy.scheduler {
            let Some(s) = Scheduler::from_name(name.get_ref()) else {
                let known: Vec<&str> = Scheduler::ALL.iter().map(|s| s.name()).collect();
                return self.err(
                    Some(name.span()),
                    format!("{key}.scheduler"),
                    format!(
                        "unknown PRISM scheduler `{}` (known: {})",
                        name.get_ref(),
                        known.join(", ")
                    ),
                );
            };
            config.imux.scheduler = s;
        }
        if let Some(name) = &policy.rpc {
            let Some(m) = RpcMode::from_name(name.get_ref()) else {
                return self.err(
                    Some(name.span()),
                    format!("{key}.rpc"),
                    format!(
                        "unknown RPC mode `{}` (known: off, resequence, full)",
                        name.get_ref()
                    ),
                );
            };
            config.imux.rpc = m;
        }
        Ok(())
    }
}
