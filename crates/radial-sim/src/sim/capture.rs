//! Packet captures of links ([`crate::pcap`]): what crosses a captured link,
//! in both directions, recorded when it arrives at the far end. A packet
//! the link drops (queue, loss, a sleeping receiver) is not recorded.

use std::io::Write;

use super::*;
use crate::pcap::{agent_port, interface_ip, Endpoints, PcapWriter};

/// The captures of a run.
#[derive(Default)]
pub(super) struct Captures {
    /// Per direction of each link: the capture recording it.
    by_direction: Vec<Option<u32>>,
    writers: Vec<(String, PcapWriter)>,
}

/// What became of one capture.
#[derive(Debug)]
pub struct CaptureReport {
    /// The captured link.
    pub link: String,
    /// Packets recorded.
    pub packets: u64,
    /// The first error writing the file, if there was one.
    pub error: Option<std::io::Error>,
}

/// A capture the simulator cannot make.
#[derive(Debug)]
pub enum CaptureError {
    /// No link of the scenario has this name; the names it has.
    UnknownLink(String, Vec<String>),
    /// The file's header could not be written.
    Io(std::io::Error),
}

impl std::fmt::Display for CaptureError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CaptureError::UnknownLink(name, names) => write!(
                f,
                "no link named `{name}` (the scenario's links: {})",
                names.join(", ")
            ),
            CaptureError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for CaptureError {}

impl Simulator {
    /// Records the packets crossing link `name` (both directions) into `out`
    /// as a pcap file, keeping at most `snaplen` bytes of each. Call before
    /// [`Simulator::run`]; its output reports each capture.
    pub fn capture(
        &mut self,
        name: &str,
        out: Box<dyn Write + Send>,
        snaplen: u32,
    ) -> Result<(), CaptureError> {
        let Some(link) = self.spec.links.iter().position(|l| l.name == name) else {
            let names = self.spec.links.iter().map(|l| l.name.clone()).collect();
            return Err(CaptureError::UnknownLink(name.to_string(), names));
        };
        let writer = PcapWriter::new(out, snaplen).map_err(CaptureError::Io)?;
        let c = &mut self.captures;
        c.by_direction.resize(self.net.links.len(), None);
        let index = c.writers.len() as u32;
        c.by_direction[link * 2] = Some(index);
        c.by_direction[link * 2 + 1] = Some(index);
        c.writers.push((name.to_string(), writer));
        Ok(())
    }

    /// Records `p`, which has just crossed directed link `l`, if a capture
    /// covers it.
    pub(super) fn tap(&mut self, l: u32, p: &Packet) {
        let Some(&Some(c)) = self.captures.by_direction.get(l as usize) else {
            return;
        };
        let serves = |a: u32| self.agents[a as usize].source.is_some();
        let ends = Endpoints {
            src: interface_ip(p.src),
            dst: interface_ip(p.dst),
            src_port: agent_port(p.src_agent, serves(p.src_agent)),
            dst_port: agent_port(p.dst_agent, serves(p.dst_agent)),
        };
        let datagram = p.wire_len.saturating_sub(self.net.overhead) as usize;
        let now = self.net.now;
        self.captures.writers[c as usize]
            .1
            .record(now, ends, &p.data, datagram);
    }

    /// Closes every capture file.
    pub(super) fn finish_captures(&mut self) -> Vec<CaptureReport> {
        std::mem::take(&mut self.captures.writers)
            .into_iter()
            .map(|(link, w)| {
                let packets = w.records();
                CaptureReport {
                    link,
                    packets,
                    error: w.finish().err(),
                }
            })
            .collect()
    }
}
