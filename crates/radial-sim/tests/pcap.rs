//! Packet captures of simulated links: every packet that crossed the link is
//! in the file, once, at its simulated time, framed as valid IPv4 and UDP
//! around a datagram that Radial's own decoders accept; a capture shows
//! every byte of a transfer crossing the access links; the same seed gives
//! the same file.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::net::Ipv4Addr;
use std::sync::{Arc, Mutex};

use radial_core::wire::{ptcp::PtcpHeader, rcp::RcpHeader, tcp::TcpHeader};
use radial_sim::pcap::{self, Record};
use radial_sim::{RunOutput, Scenario, Simulator};

/// A `Write` whose bytes the test reads afterwards.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

const SCENARIO: &str = include_str!("../../../scenarios/trace/wlan-cellular.toml");

/// Runs the trace example with a capture of each link it names; the output
/// and each capture's bytes.
fn captured(seed: u64) -> (RunOutput, BTreeMap<String, Vec<u8>>) {
    let sc = Scenario::parse("wlan-cellular.toml", SCENARIO).unwrap();
    let spec = sc.build(&sc.points()[0], seed).unwrap();
    assert_eq!(spec.pcap, ["wlan", "cell"]);
    let names = spec.pcap.clone();
    let mut sim = Simulator::new(spec);
    let bufs: Vec<Shared> = names.iter().map(|_| Shared::default()).collect();
    for (n, b) in names.iter().zip(&bufs) {
        sim.capture(n, Box::new(b.clone()), 65535).unwrap();
    }
    let out = sim.run();
    let files = names
        .into_iter()
        .zip(bufs)
        .map(|(n, b)| (n, b.0.lock().unwrap().clone()))
        .collect();
    (out, files)
}

#[test]
fn a_capture_holds_every_packet_that_crossed_the_link_once_in_time_order() {
    let (out, files) = captured(1);
    for (name, bytes) in &files {
        let records = pcap::read(bytes).unwrap();
        let delivered: u64 = out
            .summary
            .links
            .iter()
            .filter(|l| &l.name == name)
            .map(|l| l.stats.delivered)
            .sum();
        assert!(delivered > 100, "{name}: {delivered}");
        assert_eq!(records.len() as u64, delivered, "{name}");
        let report = out.captures.iter().find(|c| &c.link == name).unwrap();
        assert_eq!(report.packets, delivered);
        assert!(report.error.is_none());
        assert!(records.windows(2).all(|w| w[0].at_ns <= w[1].at_ns));
        assert!(records.last().unwrap().at_ns <= 4_000_000_000);
        for r in &records {
            assert_eq!(r.datagram.len(), r.datagram_len, "whole datagrams kept");
            // One end serves (port 7400), the other is ephemeral.
            let ports = [r.ends.src_port, r.ends.dst_port];
            assert!(ports.contains(&pcap::SERVER_PORT), "{r:?}");
            assert!(ports.iter().any(|&p| p >= 49152), "{r:?}");
            decode(r);
        }
    }
}

/// Decodes a record with the decoder of its type; panics if it does not
/// decode or is of a type the simulator does not send.
fn decode(r: &Record) {
    let d = &r.datagram;
    match d[0] & 0x0f {
        0 => drop(TcpHeader::parse(d).unwrap()),
        1 => drop(RcpHeader::parse(d).unwrap()),
        7 => drop(PtcpHeader::parse(d).unwrap()),
        t => panic!("type {t} in a simulator capture: {r:?}"),
    }
}

#[test]
fn the_access_links_carry_every_byte_of_the_r2cp_transfer() {
    let (out, files) = captured(1);
    let r2cp = out.summary.flows.iter().find(|f| f.name == "r2cp").unwrap();
    assert_eq!(r2cp.bytes_delivered, 300_000);
    // Data of RCP connections towards the host, by connection and range.
    let mut seen: Vec<(u32, u32)> = Vec::new();
    let mut per_link = BTreeMap::new();
    for (name, bytes) in &files {
        for r in pcap::read(bytes).unwrap() {
            if r.datagram[0] & 0x0f != 1 {
                continue;
            }
            let (h, payload) = RcpHeader::parse(&r.datagram).unwrap();
            if h.flags.contains(radial_core::wire::rcp::RcpFlags::REQ) || payload.is_empty() {
                continue;
            }
            assert_eq!(r.ends.src_port, pcap::SERVER_PORT);
            let start = h.seq.0;
            seen.push((start, start + payload.len() as u32));
            *per_link.entry(name.clone()).or_insert(0usize) += payload.len();
        }
    }
    seen.sort();
    // The pipes share one sequence space starting at 1: the union of what
    // crossed both links is [1, 300001) with no gap.
    let mut next = 1;
    for (s, e) in seen {
        assert!(s <= next, "gap before {s}");
        next = next.max(e);
    }
    assert_eq!(next, 300_001);
    assert!(per_link["wlan"] > 0 && per_link["cell"] > 0, "{per_link:?}");
}

#[test]
fn the_same_seed_writes_the_same_capture() {
    let (_, a) = captured(1);
    let (_, b) = captured(1);
    assert_eq!(a, b);
}

#[test]
fn interfaces_are_numbered_into_ten_slash_eight() {
    let (_, files) = captured(1);
    for bytes in files.values() {
        for r in pcap::read(bytes).unwrap() {
            for ip in [r.ends.src, r.ends.dst] {
                assert_eq!(ip.octets()[0], 10);
                assert_ne!(ip, Ipv4Addr::new(10, 0, 0, 0));
            }
        }
    }
}

#[test]
fn an_unknown_link_is_refused_with_the_names_there_are() {
    let sc = Scenario::parse("wlan-cellular.toml", SCENARIO).unwrap();
    let mut sim = Simulator::new(sc.build(&sc.points()[0], 1).unwrap());
    let e = sim
        .capture("wifi", Box::new(Shared::default()), 65535)
        .unwrap_err()
        .to_string();
    assert!(e.contains("`wifi`") && e.contains("wlan, cell"), "{e}");
}

#[test]
fn a_trace_naming_no_link_is_a_scenario_error_with_its_line() {
    let error_of = |text: &str| match Scenario::parse("t.toml", text) {
        Err(e) => e,
        Ok(sc) => sc.build(&sc.points()[0], 1).unwrap_err(),
    };
    let e = error_of(&SCENARIO.replace("\"wlan\", \"cell\"]", "\"wlan\", \"wifi\"]"));
    assert_eq!(e.key, "trace.pcap[1]");
    assert_eq!(e.line, Some(76));
    assert!(e.message.contains("`wifi`"), "{e}");
    let e = error_of(&SCENARIO.replace("\"wlan\", \"cell\"]", "\"cell\", \"cell\"]"));
    assert!(e.message.contains("twice"), "{e}");
    let e = error_of(&SCENARIO.replace("[trace]", "[trace]\nsnaplen = 10"));
    assert_eq!(e.key, "trace.snaplen");
}
