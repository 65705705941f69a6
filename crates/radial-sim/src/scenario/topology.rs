//! A scenario's nodes and links, resolved: names expanded from their
//! templates, ends looked up, queues, losses and RED parameters checked.

use toml::Spanned;

use super::schema::File;
use super::text::expand;
use super::{Resolver, ScenarioError};
use crate::channel::GilbertElliottParams;
use crate::red::RedParams;
use crate::spec::{EnergyModel, LinkSpec, LossSpec};

/// Node names, and the energy model of each node that has one.
type Nodes = (Vec<String>, Vec<(u32, EnergyModel)>);

impl Resolver<'_> {
    /// The nodes' names (templates expanded) and the energy models of
    /// those that have one.
    pub(super) fn nodes(&self, file: &File) -> Result<Nodes, ScenarioError> {
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
        Ok((nodes, energy))
    }

    /// The links between `nodes`; Gilbert-Elliott channels their losses
    /// follow are added to `channels`. Names are unique.
    pub(super) fn links(
        &self,
        file: &File,
        nodes: &[String],
        channels: &mut Vec<GilbertElliottParams>,
    ) -> Result<Vec<LinkSpec>, ScenarioError> {
        let mut links = Vec::new();
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
                    ids[j] = self.node(nodes, &s, format!("link[{i}].between"))?;
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
                    Some(v) => self.loss(v, &format!("link[{i}].loss"), packet_time, channels)?,
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
        Ok(links)
    }
}
