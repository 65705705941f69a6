//! Packet captures: the datagrams that cross a link, written as a classic
//! pcap file that Wireshark and tshark read.
//!
//! The simulator's packets carry only the endpoints' datagrams, so each
//! record is framed as the real runtime would put it on a network: an IPv4
//! header and a UDP header around the datagram (link type `RAW`, 101). The
//! framing follows from the network, not from the protocol:
//!
//! - an interface's address is `10.0.0.0` plus its index plus one
//!   ([`interface_ip`]), so every interface of a scenario has its own;
//! - an agent that serves data (it has an application source) uses UDP port
//!   [`SERVER_PORT`], 7400 as `radial serve`; any other agent uses an
//!   ephemeral port, 49152 plus its index modulo 16384;
//! - timestamps are simulated time with nanosecond resolution (magic
//!   `0xa1b23c4d`), taken when the packet's last bit has crossed the link.
//!
//! The IPv4 total length is the datagram plus 28 bytes, whatever the
//! scenario's `overhead_bytes` (the simulated length on the link). Synthetic
//! traffic (on/off UDP with no transport) has no bytes of its own: its
//! records hold the headers only, with the original length stated.

use std::io::{self, Write};
use std::net::Ipv4Addr;

use radial_core::Instant;

use crate::packet::Addr;

/// The UDP port of serving agents (the runtime's default port).
pub const SERVER_PORT: u16 = 7400;

/// IPv4 plus UDP header bytes around each datagram.
pub const FRAMING_BYTES: usize = 28;

/// pcap magic number for nanosecond timestamps.
const MAGIC_NANOS: u32 = 0xa1b2_3c4d;
/// LINKTYPE_RAW: each record starts with an IP header.
const LINKTYPE_RAW: u32 = 101;

/// The IPv4 address of interface `addr`.
pub fn interface_ip(addr: Addr) -> Ipv4Addr {
    Ipv4Addr::from(0x0a00_0000 | (addr.0.wrapping_add(1) & 0x00ff_ffff))
}

/// The UDP port of agent `index`: [`SERVER_PORT`] for a serving agent,
/// an ephemeral one otherwise.
pub fn agent_port(index: u32, serves: bool) -> u16 {
    if serves {
        SERVER_PORT
    } else {
        49152 + (index % 16384) as u16
    }
}

/// Where a datagram comes from and goes to, as IP and UDP see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Endpoints {
    /// Source address.
    pub src: Ipv4Addr,
    /// Destination address.
    pub dst: Ipv4Addr,
    /// Source port.
    pub src_port: u16,
    /// Destination port.
    pub dst_port: u16,
}

/// A pcap file being written. The first write error stops the capture and
/// is returned by [`PcapWriter::finish`]; the simulation itself goes on.
pub struct PcapWriter {
    out: Box<dyn Write + Send>,
    snaplen: u32,
    ip_id: u16,
    records: u64,
    error: Option<io::Error>,
    frame: Vec<u8>,
}

impl PcapWriter {
    /// A capture into `out` keeping at most `snaplen` bytes of each packet
    /// (headers included; at least the 28 of IPv4 and UDP).
    pub fn new(mut out: Box<dyn Write + Send>, snaplen: u32) -> io::Result<Self> {
        let snaplen = snaplen.max(FRAMING_BYTES as u32);
        let mut header = Vec::with_capacity(24);
        header.extend_from_slice(&MAGIC_NANOS.to_le_bytes());
        header.extend_from_slice(&2u16.to_le_bytes());
        header.extend_from_slice(&4u16.to_le_bytes());
        header.extend_from_slice(&0i32.to_le_bytes()); // GMT offset
        header.extend_from_slice(&0u32.to_le_bytes()); // timestamp accuracy
        header.extend_from_slice(&snaplen.to_le_bytes());
        header.extend_from_slice(&LINKTYPE_RAW.to_le_bytes());
        out.write_all(&header)?;
        Ok(PcapWriter {
            out,
            snaplen,
            ip_id: 0,
            records: 0,
            error: None,
            frame: Vec::with_capacity(2048),
        })
    }

    /// Records a datagram of `datagram_len` bytes whose first bytes are
    /// `data` (all of it, except for synthetic traffic), seen at `at`.
    pub fn record(&mut self, at: Instant, ends: Endpoints, data: &[u8], datagram_len: usize) {
        if self.error.is_some() {
            return;
        }
        let datagram_len = datagram_len.max(data.len());
        let ip_len = (FRAMING_BYTES + datagram_len).min(usize::from(u16::MAX));
        self.frame.clear();
        push_ipv4(&mut self.frame, ends, ip_len as u16, self.ip_id);
        self.ip_id = self.ip_id.wrapping_add(1);
        // UDP: checksum 0, "none computed", as IPv4 allows (RFC 768).
        self.frame.extend_from_slice(&ends.src_port.to_be_bytes());
        self.frame.extend_from_slice(&ends.dst_port.to_be_bytes());
        self.frame
            .extend_from_slice(&((ip_len - 20) as u16).to_be_bytes());
        self.frame.extend_from_slice(&0u16.to_be_bytes());
        let keep = data.len().min(self.snaplen as usize - FRAMING_BYTES);
        self.frame.extend_from_slice(&data[..keep]);
        let ns = at.as_nanos();
        let mut rec = [0u8; 16];
        rec[0..4].copy_from_slice(&((ns / 1_000_000_000) as u32).to_le_bytes());
        rec[4..8].copy_from_slice(&((ns % 1_000_000_000) as u32).to_le_bytes());
        rec[8..12].copy_from_slice(&(self.frame.len() as u32).to_le_bytes());
        rec[12..16].copy_from_slice(&(ip_len as u32).to_le_bytes());
        let written = self
            .out
            .write_all(&rec)
            .and_then(|()| self.out.write_all(&self.frame));
        match written {
            Ok(()) => self.records += 1,
            Err(e) => self.error = Some(e),
        }
    }

    /// Packets recorded so far.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// Flushes the file; the first error of the capture, if any.
    pub fn finish(mut self) -> io::Result<u64> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.flush()?;
        Ok(self.records)
    }
}

/// An IPv4 header without options (RFC 791), protocol UDP, TTL 64, with
/// its checksum.
fn push_ipv4(out: &mut Vec<u8>, ends: Endpoints, total_len: u16, id: u16) {
    let start = out.len();
    out.push(0x45);
    out.push(0);
    out.extend_from_slice(&total_len.to_be_bytes());
    out.extend_from_slice(&id.to_be_bytes());
    out.extend_from_slice(&0x4000u16.to_be_bytes()); // don't fragment
    out.push(64);
    out.push(17);
    out.extend_from_slice(&[0, 0]);
    out.extend_from_slice(&ends.src.octets());
    out.extend_from_slice(&ends.dst.octets());
    let sum = internet_checksum(&out[start..start + 20]);
    out[start + 10..start + 12].copy_from_slice(&sum.to_be_bytes());
}

/// The ones'-complement sum of RFC 1071 over `bytes` (an even count).
fn internet_checksum(bytes: &[u8]) -> u16 {
    let mut sum: u32 = bytes
        .chunks(2)
        .map(|c| u32::from(u16::from_be_bytes([c[0], c[1]])))
        .sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// One record of a capture, read back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// When it was seen (simulated nanoseconds).
    pub at_ns: u64,
    /// Addresses and ports.
    pub ends: Endpoints,
    /// The datagram's length (the original, whatever the snap length).
    pub datagram_len: usize,
    /// The datagram's bytes that were kept.
    pub datagram: Vec<u8>,
}

/// Reads a capture this module wrote: every record, or what is wrong
/// (a bad magic number or link type, a truncated record, a header whose
/// checksum fails, a record that is not UDP over IPv4).
pub fn read(bytes: &[u8]) -> Result<Vec<Record>, String> {
    let word = |at: usize| -> Result<u32, String> {
        bytes
            .get(at..at + 4)
            .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")))
            .ok_or_else(|| format!("truncated at byte {at}"))
    };
    if word(0)? != MAGIC_NANOS {
        return Err("not a nanosecond pcap file".into());
    }
    if word(20)? != LINKTYPE_RAW {
        return Err(format!("link type {} is not RAW", word(20)?));
    }
    let mut out = Vec::new();
    let mut at = 24;
    while at < bytes.len() {
        let (secs, nanos, incl, orig) = (word(at)?, word(at + 4)?, word(at + 8)?, word(at + 12)?);
        let frame = bytes
            .get(at + 16..at + 16 + incl as usize)
            .ok_or_else(|| format!("record at byte {at} runs past the end"))?;
        if frame.len() < FRAMING_BYTES || frame[0] != 0x45 || frame[9] != 17 {
            return Err(format!("record at byte {at} is not UDP over IPv4"));
        }
        if internet_checksum(&frame[..20]) != 0 {
            return Err(format!("record at byte {at}: IPv4 header checksum fails"));
        }
        let ip = |i: usize| Ipv4Addr::new(frame[i], frame[i + 1], frame[i + 2], frame[i + 3]);
        let port = |i: usize| u16::from_be_bytes([frame[i], frame[i + 1]]);
        out.push(Record {
            at_ns: u64::from(secs) * 1_000_000_000 + u64::from(nanos),
            ends: Endpoints {
                src: ip(12),
                dst: ip(16),
                src_port: port(20),
                dst_port: port(22),
            },
            datagram_len: orig as usize - FRAMING_BYTES,
            datagram: frame[FRAMING_BYTES..].to_vec(),
        });
        at += 16 + incl as usize;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    /// A `Write` whose bytes the test can read afterwards.
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

    fn ends() -> Endpoints {
        Endpoints {
            src: interface_ip(Addr(0)),
            dst: interface_ip(Addr(5)),
            src_port: SERVER_PORT,
            dst_port: agent_port(3, false),
        }
    }

    #[test]
    fn interfaces_get_distinct_addresses_in_ten_slash_eight() {
        assert_eq!(interface_ip(Addr(0)), Ipv4Addr::new(10, 0, 0, 1));
        assert_eq!(interface_ip(Addr(255)), Ipv4Addr::new(10, 0, 1, 0));
        assert_eq!(interface_ip(Addr(70_000)), Ipv4Addr::new(10, 1, 17, 113));
    }

    #[test]
    fn a_record_is_a_valid_ipv4_udp_packet_at_its_simulated_time() {
        let buf = Shared::default();
        let mut w = PcapWriter::new(Box::new(buf.clone()), 65535).unwrap();
        let at = Instant::from_nanos(3_000_000_123);
        w.record(at, ends(), b"hello", 5);
        assert_eq!(w.finish().unwrap(), 1);
        let b = buf.0.lock().unwrap().clone();
        assert_eq!(&b[0..4], &MAGIC_NANOS.to_le_bytes());
        assert_eq!(u32::from_le_bytes(b[20..24].try_into().unwrap()), 101);
        let rec = &b[24..];
        assert_eq!(u32::from_le_bytes(rec[0..4].try_into().unwrap()), 3);
        assert_eq!(u32::from_le_bytes(rec[4..8].try_into().unwrap()), 123);
        assert_eq!(u32::from_le_bytes(rec[8..12].try_into().unwrap()), 33);
        assert_eq!(u32::from_le_bytes(rec[12..16].try_into().unwrap()), 33);
        let ip = &rec[16..];
        assert_eq!(ip.len(), 33);
        assert_eq!(internet_checksum(&ip[..20]), 0, "header checksum verifies");
        assert_eq!(u16::from_be_bytes([ip[2], ip[3]]), 33);
        assert_eq!(&ip[12..16], &[10, 0, 0, 1]);
        assert_eq!(&ip[16..20], &[10, 0, 0, 6]);
        assert_eq!(u16::from_be_bytes([ip[20], ip[21]]), 7400);
        assert_eq!(u16::from_be_bytes([ip[22], ip[23]]), 49155);
        assert_eq!(u16::from_be_bytes([ip[24], ip[25]]), 13);
        assert_eq!(&ip[28..], b"hello");
    }

    #[test]
    fn snaplen_cuts_the_payload_and_keeps_the_original_length() {
        let buf = Shared::default();
        let mut w = PcapWriter::new(Box::new(buf.clone()), 30).unwrap();
        w.record(Instant::ZERO, ends(), &[7u8; 100], 100);
        // Synthetic traffic: no bytes, a stated length.
        w.record(Instant::ZERO, ends(), &[], 1000);
        w.finish().unwrap();
        let b = buf.0.lock().unwrap().clone();
        let rec = &b[24..];
        assert_eq!(u32::from_le_bytes(rec[8..12].try_into().unwrap()), 30);
        assert_eq!(u32::from_le_bytes(rec[12..16].try_into().unwrap()), 128);
        let rec2 = &rec[16 + 30..];
        assert_eq!(u32::from_le_bytes(rec2[8..12].try_into().unwrap()), 28);
        assert_eq!(u32::from_le_bytes(rec2[12..16].try_into().unwrap()), 1028);
    }

    #[test]
    fn a_write_error_stops_the_capture_and_is_reported() {
        struct Full;
        impl Write for Full {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::Error::new(io::ErrorKind::StorageFull, "disk full"))
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        assert!(PcapWriter::new(Box::new(Full), 100).is_err());
        let buf = Shared::default();
        let mut w = PcapWriter::new(Box::new(buf), 100).unwrap();
        w.out = Box::new(Full);
        w.record(Instant::ZERO, ends(), b"x", 1);
        assert_eq!(w.records(), 0);
        assert_eq!(w.finish().unwrap_err().kind(), io::ErrorKind::StorageFull);
    }
}
