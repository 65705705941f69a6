//! pTCP's engines driven together over two paths of an in-memory network
//! (each a fixed delay, in 1 ms steps): delayed binding, re-assignment of a
//! pipe's data when it times out (`shrunk()`), redundant striping of the
//! head of line, and the stream arriving whole; and the same engine as
//! MPTCP: fixed mappings, reinjection after a timeout, minRTT. Each rule
//! beyond the paper (`PtcpRules`) is shown firing, and not firing with its
//! switch off (`ptcp-paper`).

use std::collections::BTreeSet;

use radial_core::mptcp::{self, Coupling};
use radial_core::ptcp::{PtcpConfig, PtcpReceiver, PtcpRules, PtcpSender};
use radial_core::wire::ptcp::{PtcpFlags, PtcpHeader};
use radial_core::wire::tcp::TcpHeader;
use radial_core::{Duration, Endpoint, HostEvent, Instant, PathId};

/// A data segment the sender put on a path: (path, pSEQ, data length, ms).
type Sent = (u16, u64, u16, u64);

struct Net {
    tx: PtcpSender,
    rx: PtcpReceiver,
    now: Instant,
    /// (arrival ms, to the receiver?, path, datagram).
    flight: Vec<(u64, bool, u16, Vec<u8>)>,
    /// One-way delay per path, ms.
    delay: [u64; 2],
    /// From this time (ms) path 0 loses everything, if set.
    dead_from: Option<u64>,
    /// ... until this time (ms), if set.
    dead_until: u64,
    /// The first transmission of this data (path, pSEQ) is lost.
    drop_first: Option<(u16, u64)>,
    sent: Vec<Sent>,
    /// Each data segment's pipe, virtual sequence number and pSEQ.
    mapping: Vec<(u16, u32, u64)>,
    /// Each acknowledgment's pACK and window, as the receiver sent them.
    acks: Vec<(u64, u32)>,
    got: Vec<u8>,
}

impl Net {
    fn new(config: PtcpConfig, data: usize) -> Self {
        let mut net = Net::open(config);
        net.write(0, data);
        net.tx.close();
        net
    }

    /// A connection whose application has written nothing yet.
    fn open(config: PtcpConfig) -> Self {
        Net {
            tx: PtcpSender::new(config),
            rx: PtcpReceiver::new(config),
            now: Instant::ZERO,
            flight: Vec::new(),
            delay: [10, 10],
            dead_from: None,
            dead_until: u64::MAX,
            drop_first: None,
            sent: Vec::new(),
            mapping: Vec::new(),
            acks: Vec::new(),
            got: Vec::new(),
        }
    }

    /// The application writes stream bytes `from..to`.
    fn write(&mut self, from: usize, to: usize) {
        let bytes: Vec<u8> = (from..to).map(|i| (i % 251) as u8).collect();
        let mut written = 0;
        while written < bytes.len() {
            let n = self.tx.write(&bytes[written..]);
            assert!(n > 0, "the sender's buffer holds the test's data");
            written += n;
        }
    }

    /// Path 0 loses everything at `ms`.
    fn dead(&self, ms: u64) -> bool {
        self.dead_from.is_some_and(|t| ms >= t) && ms < self.dead_until
    }

    fn ms(&self) -> u64 {
        self.now.as_nanos() / 1_000_000
    }

    fn path_up(&mut self, path: u16) {
        self.rx.handle_event(
            self.now,
            HostEvent::PathUp {
                path: PathId(path),
                controller: None,
                route: None,
            },
        );
    }

    /// Moves what both endpoints send into flight.
    fn drain(&mut self) {
        let ms = self.ms();
        let mut buf = Vec::new();
        while let Some(p) = self.tx.poll_transmit(self.now, &mut buf) {
            let (h, inner) = PtcpHeader::parse(&buf).expect("valid pTCP");
            if h.flags.contains(PtcpFlags::DATA) {
                self.sent.push((p.0, u64::from(h.pseq.0), h.aux, ms));
                if h.aux > 0 {
                    let (v, _) = TcpHeader::parse(inner).expect("valid TCP-v");
                    self.mapping.push((p.0, v.seq.0, u64::from(h.pseq.0)));
                }
            }
            let mut dead = p.0 == 0 && self.dead(ms);
            if self.drop_first == Some((p.0, u64::from(h.pseq.0))) && h.aux > 0 {
                self.drop_first = None;
                dead = true;
            }
            if !dead {
                self.flight
                    .push((ms + self.delay[p.0 as usize], true, p.0, buf.clone()));
            }
        }
        while let Some(p) = self.rx.poll_transmit(self.now, &mut buf) {
            let (h, inner) = PtcpHeader::parse(&buf).expect("valid pTCP");
            if h.flags.contains(PtcpFlags::ACK) && !inner.is_empty() {
                let (tcp, _) = TcpHeader::parse(inner).expect("valid TCP-v");
                self.acks.push((u64::from(h.pack.0), tcp.window));
            }
            let dead = p.0 == 0 && self.dead(ms);
            if !dead {
                self.flight
                    .push((ms + self.delay[p.0 as usize], false, p.0, buf.clone()));
            }
        }
        let mut read = [0u8; 65536];
        loop {
            let n = self.rx.read(&mut read);
            if n == 0 {
                break;
            }
            self.got.extend_from_slice(&read[..n]);
        }
    }

    /// Runs until `until` ms.
    fn run(&mut self, until: u64) {
        while self.ms() < until {
            self.drain();
            let ms = self.ms();
            let due: Vec<_> = {
                let (due, rest): (Vec<_>, Vec<_>) = self.flight.drain(..).partition(|f| f.0 <= ms);
                self.flight = rest;
                due
            };
            for (_, to_rx, path, d) in due {
                if path == 0 && self.dead(ms) {
                    continue;
                }
                if to_rx {
                    self.rx.handle_datagram(self.now, PathId(path), &d);
                } else {
                    self.tx.handle_datagram(self.now, PathId(path), &d);
                }
            }
            for ep in [&mut self.tx as &mut dyn Endpoint, &mut self.rx] {
                if ep.poll_timeout().is_some_and(|t| t <= self.now) {
                    ep.handle_timeout(self.now);
                }
            }
            self.drain();
            self.now += Duration::from_millis(1);
        }
    }

    fn intact(&self, data: usize) {
        assert_eq!(self.got.len(), data, "delivered");
        for (i, b) in self.got.iter().enumerate() {
            assert_eq!(*b, (i % 251) as u8, "byte {i}");
        }
    }
}

/// What path 0 sent in the 10 ms before it went dark at 300 ms went out
/// again on path 1 afterwards.
fn path_1_carried_what_path_0_lost_at_300_ms(net: &Net) {
    let lost: BTreeSet<u64> = net
        .sent
        .iter()
        .filter(|s| s.0 == 0 && s.3 >= 290 && s.3 < 300 && s.2 > 0)
        .map(|s| s.1)
        .collect();
    assert!(!lost.is_empty());
    for off in &lost {
        assert!(
            net.sent
                .iter()
                .any(|s| s.0 == 1 && s.1 == *off && s.3 > 300),
            "{off} never sent again on path 1"
        );
    }
}

fn config() -> PtcpConfig {
    let mut c = PtcpConfig::ns2();
    c.tcp.rtt.initial_rto = Duration::from_secs(1);
    // The whole test stream fits the sender's buffer at once.
    c.tcp.send_buffer = 1 << 20;
    c.tcp.unsent_limit = 1 << 20;
    c
}

#[test]
fn two_pipes_carry_one_stream_bound_as_they_send() {
    let data = 300_000;
    let mut net = Net::new(config(), data);
    net.delay = [10, 30];
    net.path_up(0);
    net.path_up(1);
    net.run(5_000);
    net.intact(data);
    assert_eq!(net.rx.established_pipes(), 2);
    // Both pipes carried data, and every segment went out on one of them.
    let per_path = |p| net.sent.iter().filter(|s| s.0 == p).count();
    assert!(
        per_path(0) > 50 && per_path(1) > 20,
        "{} {}",
        per_path(0),
        per_path(1)
    );
    let offsets: BTreeSet<u64> = net.sent.iter().map(|s| s.1).collect();
    assert_eq!(offsets.len(), data.div_ceil(1000));
    // Nothing is lost on these paths: what a pipe sends twice is only the
    // head of line copied while the shared buffer waits for it (the slow
    // pipe's), a small share.
    assert!(
        net.sent.len() < offsets.len() * 3 / 2,
        "{} sends",
        net.sent.len()
    );
}

#[test]
fn a_pipe_that_times_out_has_its_data_carried_by_the_other() {
    let data = 400_000;
    let mut net = Net::new(
        PtcpConfig {
            redundant_striping: false,
            ..config()
        },
        data,
    );
    net.path_up(0);
    net.path_up(1);
    // Path 0 goes dark for good at 300 ms, unannounced.
    net.dead_from = Some(300);
    net.run(20_000);
    net.intact(data);
    // What path 0 had in flight when it died was re-assigned: those
    // offsets went out again on path 1.
    path_1_carried_what_path_0_lost_at_300_ms(&net);
    // Without redundant striping the silent pipe's probes carry no data.
    assert!(net
        .sent
        .iter()
        .filter(|s| s.0 == 0 && s.3 >= 2_000)
        .all(|s| s.2 == 0));
}

#[test]
fn a_pipe_probing_a_blackout_carries_a_copy_of_the_head_of_line() {
    let data = 400_000;
    let mut net = Net::new(config(), data);
    net.path_up(0);
    net.path_up(1);
    net.dead_from = Some(300);
    net.run(20_000);
    net.intact(data);
    // After its timeouts path 0's retransmissions carry data that path 1
    // carries too (redundant striping): a copy, never data only it has.
    let late: Vec<&Sent> = net
        .sent
        .iter()
        .filter(|s| s.0 == 0 && s.3 >= 2_000 && s.2 > 0)
        .collect();
    assert!(!late.is_empty(), "the probing pipe carried no copy");
    for s in late {
        assert!(
            net.sent.iter().any(|o| o.0 == 1 && o.1 == s.1),
            "{} carried by the dead pipe alone",
            s.1
        );
    }
}

/// True when every (pipe, virtual segment) carried one piece of data.
fn fixed_mappings(net: &Net) -> bool {
    let mut seen = std::collections::BTreeMap::new();
    net.mapping
        .iter()
        .all(|&(path, vseq, pseq)| *seen.entry((path, vseq)).or_insert(pseq) == pseq)
}

fn mptcp(coupling: Coupling) -> PtcpConfig {
    let c = config();
    PtcpConfig {
        tcp: c.tcp,
        ..mptcp::config(coupling)
    }
}

#[test]
fn an_mptcp_subflow_retransmits_the_data_it_lost() {
    // The 40th segment path 0 carries is lost once; with a fixed mapping
    // (RFC 8684 §3.3.1) path 0's retransmission carries the same data.
    let data = 300_000;
    let mut net = Net::new(mptcp(Coupling::Lia), data);
    net.delay = [10, 30];
    net.drop_first = Some((0, 39_000));
    net.path_up(0);
    net.path_up(1);
    net.run(5_000);
    net.intact(data);
    assert!(net.drop_first.is_none(), "the segment was sent on path 0");
    let on0: Vec<&Sent> = net
        .sent
        .iter()
        .filter(|s| s.0 == 0 && s.1 == 39_000)
        .collect();
    assert!(on0.len() >= 2, "path 0 sent 39000 {} time(s)", on0.len());
}

#[test]
fn an_mptcp_subflow_that_times_out_keeps_its_data_and_has_it_reinjected() {
    let data = 400_000;
    let mut net = Net::new(mptcp(Coupling::Lia), data);
    net.path_up(0);
    net.path_up(1);
    net.dead_from = Some(300);
    net.run(20_000);
    net.intact(data);
    let before: BTreeSet<u64> = net
        .sent
        .iter()
        .filter(|s| s.0 == 0 && s.3 < 300 && s.2 > 0)
        .map(|s| s.1)
        .collect();
    // Reinjected: what path 0 lost went out on path 1 too.
    path_1_carried_what_path_0_lost_at_300_ms(&net);
    // Fixed mappings: a virtual segment carries the same data every time.
    assert!(fixed_mappings(&net));
    // And path 0's retransmissions into the blackout carry only what it
    // carried before, never data bound afresh.
    let late: Vec<&Sent> = net
        .sent
        .iter()
        .filter(|s| s.0 == 0 && s.3 >= 300 && s.2 > 0)
        .collect();
    assert!(!late.is_empty(), "path 0 retransmitted nothing");
    for s in late {
        assert!(
            before.contains(&s.1),
            "path 0 carried new data {} at {} ms",
            s.1,
            s.3
        );
    }
}

/// Where the first transmission of each of `n` segments written after
/// both pipes have round-trip samples went: (paths of 60 and 5 ms).
fn late_writes(config: PtcpConfig, n: usize) -> Vec<u16> {
    let mut net = Net::open(config);
    net.delay = [60, 5];
    net.path_up(0);
    net.path_up(1);
    net.write(0, 20_000);
    net.run(1_000);
    let before = net.sent.len();
    net.write(20_000, 20_000 + n * 1000);
    net.tx.close();
    net.run(2_000);
    net.intact(20_000 + n * 1000);
    let mut first = BTreeSet::new();
    net.sent[before..]
        .iter()
        .filter(|s| s.2 > 0 && first.insert(s.1))
        .map(|s| s.0)
        .collect()
}

#[test]
fn after_a_blackout_pipes_rebind_under_ptcp_but_not_under_mptcp() {
    // Path 0 is dark from 300 ms to 1.2 s. What it had out arrived over
    // path 1 meanwhile; when it returns, its retransmissions of those
    // virtual segments carry fresh data under pTCP's delayed binding, the
    // data they first carried under MPTCP's fixed mappings.
    // The shared buffer lets the pair move about 12 MB/s: data for 3 s.
    const DATA: usize = 40_000_000;
    let run = |mut config: PtcpConfig| {
        config.tcp.send_buffer = 2 * DATA;
        config.tcp.unsent_limit = 2 * DATA;
        let mut net = Net::new(
            PtcpConfig {
                redundant_striping: false,
                ..config
            },
            DATA,
        );
        net.path_up(0);
        net.path_up(1);
        net.dead_from = Some(300);
        net.dead_until = 1_200;
        net.run(20_000);
        net.intact(DATA);
        fixed_mappings(&net)
    };
    assert!(
        run(mptcp(Coupling::Lia)),
        "MPTCP re-bound a virtual segment"
    );
    assert!(!run(config()), "pTCP kept every binding");
}

#[test]
fn min_rtt_gives_new_data_to_the_quicker_subflow() {
    // A few segments, well inside the quick subflow's window: all go on it.
    // pTCP offers pipes data in turn, so some go on the 60 ms path.
    let mptcp = late_writes(mptcp(Coupling::Uncoupled), 6);
    assert_eq!(mptcp, vec![1; 6], "MPTCP sent them on {mptcp:?}");
    let ptcp = late_writes(config(), 6);
    assert!(ptcp.contains(&0), "pTCP sent them on {ptcp:?}");
}

/// 200 KB over paths of 5 and 100 ms with a 16-segment shared buffer,
/// nothing lost: the buffer fills behind the slow pipe's data. The stream
/// arrives whole.
fn blocked_buffer(mut config: PtcpConfig) -> Net {
    config.tcp.window = 16;
    let data = 200_000;
    let mut net = Net::new(config, data);
    net.delay = [5, 100];
    net.path_up(0);
    net.path_up(1);
    net.run(10_000);
    net.intact(data);
    net
}

#[test]
fn a_full_buffer_behind_the_slow_subflow_has_its_head_resent_on_the_quick_one() {
    // A 16-segment shared buffer over paths of 5 and 100 ms, nothing lost:
    // the buffer fills behind data the slow subflow carries, and the quick
    // one re-sends that head of line (MPTCP's opportunistic
    // retransmission, Raiciu et al. 2012) instead of waiting.
    let net = blocked_buffer(mptcp(Coupling::Lia));
    let on = |path: u16| -> BTreeSet<u64> {
        net.sent
            .iter()
            .filter(|s| s.0 == path && s.2 > 0)
            .map(|s| s.1)
            .collect()
    };
    // Data the slow subflow carried first went out again on the quick one.
    let first = |p: u16, off: u64| {
        net.sent
            .iter()
            .find(|s| s.0 == p && s.1 == off)
            .map(|s| s.3)
    };
    let rescued = on(1)
        .intersection(&on(0))
        .filter(|&&off| first(1, off) < first(0, off))
        .count();
    assert!(
        rescued > 0,
        "no head of line was re-sent on the quick subflow"
    );
}

/// The data segments sent more than once, by pSEQ.
fn sent_twice(net: &Net) -> usize {
    let mut seen = BTreeSet::new();
    net.sent
        .iter()
        .filter(|s| s.2 > 0 && !seen.insert(s.1))
        .count()
}

/// 100 KB over two pipes with a 16-segment window, the first segment on
/// path 0 lost: the receiver holds what follows out of order until it
/// comes again. Returns the run, the stream checked whole.
fn first_segment_lost(mut config: PtcpConfig) -> Net {
    config.tcp.window = 16;
    let data = 100_000;
    let mut net = Net::new(config, data);
    net.drop_first = Some((0, 0));
    net.path_up(0);
    net.path_up(1);
    net.run(5_000);
    net.intact(data);
    net
}

#[test]
fn the_window_counts_what_the_receiver_holds_out_of_order_inside_it() {
    // pTCP §5.4: every acknowledgment carries the shared buffer's window,
    // from pACK on. The first segment on path 0 is lost, so the receiver
    // holds what follows out of order until it comes again. That data sits
    // inside the window, as in TCP: the window's right edge (pACK plus the
    // window) never moves back. Counted against the window as well, it
    // pulled the edge back over data already sent.
    let net = first_segment_lost(config());
    let held_out_of_order = net.acks.iter().any(|&(pack, _)| pack == 0);
    assert!(held_out_of_order && net.acks.len() > 50);
    let edges: Vec<u64> = net
        .acks
        .iter()
        .map(|&(pack, window)| pack + u64::from(window))
        .collect();
    for pair in edges.windows(2) {
        assert!(pair[1] >= pair[0], "the window's edge moved back: {pair:?}");
    }
}

#[test]
fn ptcp_copies_no_head_of_line_its_holder_brings_first_where_mptcp_does() {
    // Paths of 10 and 12 ms and a 16-segment buffer that both fill: the
    // buffer is often full behind a head of line the other pipe holds.
    // MPTCP copies it whenever that happens; pTCP only when the copy would
    // arrive first, which on paths this alike it never would.
    let run = |config: PtcpConfig| {
        let data = 300_000;
        let mut net = Net::new(config, data);
        net.delay = [10, 12];
        net.path_up(0);
        net.path_up(1);
        net.run(10_000);
        net.intact(data);
        sent_twice(&net)
    };
    let mut ptcp = config();
    ptcp.tcp.window = 16;
    let mut mptcp = mptcp(Coupling::Uncoupled);
    mptcp.tcp.window = 16;
    assert!(
        run(mptcp) > 0,
        "MPTCP copied nothing: the case does not block"
    );
    assert_eq!(run(ptcp), 0);
}

/// `config()` with `rule` switched off.
fn without(rule: fn(&mut PtcpRules) -> &mut bool) -> PtcpConfig {
    let mut c = config();
    *rule(&mut c.rules) = false;
    c
}

#[test]
fn fewest_first_interleaves_pipes_where_each_pipe_fills_its_window_in_turn() {
    // Six segments written once both pipes have round-trip samples. Offered
    // a segment at a time to the pipe with the fewest bytes outstanding,
    // the pipes take them in turn; without the rule each pipe takes all its
    // window allows before the next is offered any (the paper's `send()`
    // until FREEZE), so path 0's segments all come before path 1's.
    let interleaved = |paths: &[u16]| paths.windows(2).any(|w| w[0] > w[1]);
    let on = late_writes(config(), 6);
    assert!(interleaved(&on), "rule on: {on:?}");
    let off = late_writes(without(|r| &mut r.fewest_first), 6);
    assert!(
        !interleaved(&off) && off.contains(&0) && off.contains(&1),
        "rule off: {off:?}"
    );
}

#[test]
fn opportunistic_retransmission_copies_a_blocking_head_only_when_switched_on() {
    // A 16-segment buffer over paths of 5 and 100 ms, nothing lost: the
    // buffer fills behind the slow pipe's data. With the rule the quick
    // pipe carries a copy of that head of line (it arrives first); without
    // it no segment is ever sent twice.
    assert!(
        sent_twice(&blocked_buffer(config())) > 0,
        "rule on: no head of line was copied"
    );
    let off = blocked_buffer(without(|r| &mut r.opportunistic_retransmission));
    assert_eq!(sent_twice(&off), 0);
}

#[test]
fn the_paper_window_is_free_space_and_its_edge_moves_back_over_sent_data() {
    // As `the_window_counts_what_the_receiver_holds_out_of_order_inside_it`,
    // with the paper's window (§5.4: the free space of the buffer): the
    // data held out of order behind the lost segment takes from it, and
    // the window's right edge moves back. The stream still arrives whole.
    let net = first_segment_lost(without(|r| &mut r.window_over_unread));
    let edges: Vec<u64> = net
        .acks
        .iter()
        .map(|&(pack, window)| pack + u64::from(window))
        .collect();
    assert!(
        edges.windows(2).any(|pair| pair[1] < pair[0]),
        "the edge never moved back"
    );
}
