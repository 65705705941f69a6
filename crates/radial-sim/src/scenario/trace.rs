//! `[trace]`: which links a run captures.

use super::schema::TraceTable;
use super::{Resolver, ScenarioError};
use crate::spec::LinkSpec;

/// Bytes kept of each packet unless `snaplen` says otherwise: all of it.
pub const DEFAULT_SNAPLEN: u32 = 65535;

impl Resolver<'_> {
    /// The captured links' names, checked against the scenario's links,
    /// and the snap length.
    pub(super) fn trace(
        &self,
        t: &TraceTable,
        links: &[LinkSpec],
    ) -> Result<(Vec<String>, u32), ScenarioError> {
        let mut names: Vec<String> = Vec::new();
        for (i, name) in t.pcap.iter().enumerate() {
            let n = name.get_ref();
            if !links.iter().any(|l| &l.name == n) {
                let known: Vec<&str> = links.iter().map(|l| l.name.as_str()).collect();
                return self.err(
                    Some(name.span()),
                    format!("trace.pcap[{i}]"),
                    format!("no link named `{n}` (links: {})", known.join(", ")),
                );
            }
            if names.contains(n) {
                return self.err(
                    Some(name.span()),
                    format!("trace.pcap[{i}]"),
                    format!("link `{n}` is listed twice"),
                );
            }
            names.push(n.clone());
        }
        let snaplen = match &t.snaplen {
            None => DEFAULT_SNAPLEN,
            Some(s) if (28..=262_144).contains(s.get_ref()) => *s.get_ref(),
            Some(s) => {
                return self.err(
                    Some(s.span()),
                    "trace.snaplen".into(),
                    format!(
                        "snaplen `{}` must be from 28 (the IPv4 and UDP headers) to 262144 bytes",
                        s.get_ref()
                    ),
                )
            }
        };
        Ok((names, snaplen))
    }
}
