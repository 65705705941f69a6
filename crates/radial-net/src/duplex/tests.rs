//! A host and a server [`Duplex`] joined by emulated paths: every stream's
//! bytes arrive once, in order, both ways.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

use radial_core::Duration;

use super::*;
use crate::mux::StreamId;

/// One emulated path: a rate and a one-way delay each way, a drop-tail
/// queue of `queue` of sending time, and whether it carries anything.
#[derive(Clone, Copy, Debug)]
struct Link {
    bits_per_sec: u64,
    delay: Duration,
    queue: Duration,
    up: bool,
    /// Drops one datagram in this many, if any (on a pseudo-random draw).
    loss: Option<u64>,
    /// When each direction's transmitter is next free (0: host → server).
    free_at: [Instant; 2],
}

impl Link {
    fn new(mbit: u64, delay_ms: u64) -> Self {
        Link {
            bits_per_sec: mbit * 1_000_000,
            delay: Duration::from_millis(delay_ms),
            queue: Duration::from_millis(100),
            up: true,
            loss: None,
            free_at: [Instant::ZERO; 2],
        }
    }
}

/// A datagram on its way: (arrival, order sent, to which end, path,
/// bytes).
type InFlight = (Instant, u64, usize, u16, Vec<u8>);

/// Two ends and the paths between them, in simulated time. With
/// `DUPLEX_TRACE` set in the environment, every datagram sent is printed
/// (time, direction, path, header).
struct Net {
    now: Instant,
    ends: [Duplex; 2],
    links: Vec<Link>,
    flight: BinaryHeap<Reverse<InFlight>>,
    order: u64,
    buf: Vec<u8>,
    /// The loss draw's state.
    draw: u64,
}

const HOST: usize = 0;
const SERVER: usize = 1;

impl Net {
    fn new(links: &[Link]) -> Net {
        Net::with_config(links, DuplexConfig::new(7))
    }

    fn with_config(links: &[Link], config: DuplexConfig) -> Net {
        let mut net = Net {
            now: Instant::ZERO,
            ends: [
                Duplex::new(Side::Host, config),
                Duplex::new(Side::Server, config),
            ],
            links: Vec::new(),
            flight: BinaryHeap::new(),
            order: 0,
            buf: Vec::new(),
            draw: 0x9e37_79b9_7f4a_7c15,
        };
        for &l in links {
            net.add_link(l);
        }
        net
    }

    /// A new path, known to both ends at once (the server learns it from
    /// the host's join).
    fn add_link(&mut self, l: Link) {
        let p = PathId(self.links.len() as u16);
        self.links.push(l);
        for e in &mut self.ends {
            e.add_path(self.now, p, None).unwrap();
        }
    }

    /// Sends what both ends have to send.
    fn transmit(&mut self) {
        for from in [HOST, SERVER] {
            while let Some(p) = self.ends[from].poll_transmit(self.now, &mut self.buf) {
                self.draw ^= self.draw << 13;
                self.draw ^= self.draw >> 7;
                self.draw ^= self.draw << 17;
                let l = &mut self.links[usize::from(p.0)];
                if !l.up || l.loss.is_some_and(|k| self.draw % k == 0) {
                    continue;
                }
                let start = l.free_at[from].max(self.now);
                if start.saturating_since(self.now) > l.queue {
                    continue; // the queue is full
                }
                let bits = (self.buf.len() as u64 + 28) * 8;
                let done = start + Duration::from_nanos(bits * 1_000_000_000 / l.bits_per_sec);
                l.free_at[from] = done;
                self.order += 1;
                if std::env::var("DUPLEX_TRACE").is_ok() {
                    let h = RcpHeader::parse(&self.buf).unwrap().0;
                    eprintln!(
                        "{:?} {from}->{} p{} {:?} conn {:x} seq {:?} deq {:?} id {} len {}",
                        self.now,
                        1 - from,
                        p.0,
                        h.flags,
                        h.conn_id,
                        h.seq,
                        h.deq,
                        h.id,
                        self.buf.len()
                    );
                }
                let d = (done + l.delay, self.order, 1 - from, p.0, self.buf.clone());
                self.flight.push(Reverse(d));
            }
        }
    }

    /// Advances to the next arrival or timer, at most to `until`; false
    /// when nothing is left before it.
    fn step(&mut self, until: Instant) -> bool {
        self.transmit();
        let arrival = self.flight.peek().map(|Reverse(d)| d.0);
        let timers = self.ends.iter().filter_map(Duplex::poll_timeout);
        let Some(next) = arrival.into_iter().chain(timers).min() else {
            return false;
        };
        if next > until {
            self.now = until;
            return false;
        }
        self.now = self.now.max(next);
        while let Some(Reverse(d)) = self.flight.peek() {
            if d.0 > self.now {
                break;
            }
            let Reverse((_, _, to, p, dgram)) = self.flight.pop().unwrap();
            if self.links[usize::from(p)].up {
                self.ends[to].handle_datagram(self.now, PathId(p), &dgram);
            }
        }
        for e in &mut self.ends {
            if e.poll_timeout().is_some_and(|t| t <= self.now) {
                e.handle_timeout(self.now);
            }
            let bound = e.config.send_limit + e.config.inbound.pipe.mss as usize;
            assert!(e.held() <= bound, "holds {} past {bound}", e.held());
            let unread = e.mux.buffered();
            assert!(
                unread <= e.config.recv_limit,
                "{unread} unread past the limit"
            );
        }
        true
    }
}

/// A stream's bytes: a pattern that tells a misplaced byte.
fn bytes_of(stream: u32, len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| ((i as u32).wrapping_mul(2_654_435_761) >> 13).wrapping_add(stream * 7) as u8)
        .collect()
}

/// The host side of an echo: sends each stream's bytes, finishes, and
/// keeps what comes back.
struct Sender {
    out: Vec<u8>,
    written: usize,
    finished: bool,
    back: Vec<u8>,
    ended: bool,
}

/// Host streams writing their bytes and reading the echo; server streams
/// echoing what they read and finishing after the host's FIN.
struct Echo {
    host: BTreeMap<u32, Sender>,
    /// Per server stream: bytes read and not yet written back, and whether
    /// the host finished.
    server: BTreeMap<u32, (Vec<u8>, bool)>,
}

impl Echo {
    fn new(net: &mut Net, lens: &[usize]) -> Echo {
        let mut host = BTreeMap::new();
        for &len in lens {
            let id = net.ends[HOST].streams().open().unwrap();
            let s = Sender {
                out: bytes_of(id.0, len),
                written: 0,
                finished: false,
                back: Vec::new(),
                ended: false,
            };
            host.insert(id.0, s);
        }
        Echo {
            host,
            server: BTreeMap::new(),
        }
    }

    /// Moves every stream's bytes as far as the mux lets it.
    fn run(&mut self, net: &mut Net) {
        let mut buf = vec![0u8; 16 * 1024];
        let h = net.ends[HOST].streams();
        for (&id, s) in &mut self.host {
            let id = StreamId(id);
            if s.written < s.out.len() {
                s.written += h.write(id, &s.out[s.written..]).unwrap();
            }
            if s.written == s.out.len() && !s.finished {
                h.finish(id).unwrap();
                s.finished = true;
            }
            while !s.ended {
                match h.read(id, &mut buf).unwrap() {
                    None => break,
                    Some(0) => s.ended = true,
                    Some(n) => s.back.extend_from_slice(&buf[..n]),
                }
            }
        }
        let m = net.ends[SERVER].streams();
        while let Some(id) = m.accept() {
            self.server.insert(id.0, (Vec::new(), false));
        }
        for (&id, (pending, fin)) in &mut self.server {
            let id = StreamId(id);
            loop {
                if !pending.is_empty() {
                    let n = m.write(id, pending).unwrap();
                    pending.drain(..n);
                    if !pending.is_empty() {
                        break;
                    }
                }
                if *fin {
                    break;
                }
                match m.read(id, &mut buf).unwrap() {
                    None => break,
                    Some(0) => {
                        *fin = true;
                        m.finish(id).unwrap();
                    }
                    Some(n) => pending.extend_from_slice(&buf[..n]),
                }
            }
        }
    }

    fn done(&self) -> bool {
        self.host.values().all(|s| s.ended)
    }

    /// Every stream came back whole: every byte once, in order.
    fn check(&self) {
        for (id, s) in &self.host {
            assert_eq!(s.back.len(), s.out.len(), "stream {id}: length");
            assert!(s.back == s.out, "stream {id}: bytes differ");
        }
    }
}

/// A change to the network at a time.
type Event<'a> = (Instant, &'a mut dyn FnMut(&mut Net));

/// Runs the echo until every stream came back or `limit` passed,
/// `schedule` (in time order) acting on the network; returns when it
/// finished.
fn run_echo(net: &mut Net, lens: &[usize], limit: Duration, schedule: &mut [Event]) -> Instant {
    let mut echo = Echo::new(net, lens);
    let until = Instant::ZERO + limit;
    let mut next = 0;
    while net.now < until {
        echo.run(net);
        if echo.done() {
            break;
        }
        let wake = schedule.get(next).map_or(until, |s| s.0.min(until));
        if !net.step(wake) {
            net.now = net.now.max(wake);
            if let Some((at, f)) = schedule.get_mut(next) {
                if net.now >= *at {
                    f(net);
                    next += 1;
                }
            }
        }
        assert_eq!(net.ends[HOST].error(), None);
        assert_eq!(net.ends[SERVER].error(), None);
    }
    echo.check();
    net.now
}

#[test]
fn eight_streams_echo_whole_over_two_paths() {
    let mut net = Net::new(&[Link::new(20, 10), Link::new(10, 40)]);
    let lens: Vec<usize> = (0..8).map(|i| 300_000 + 77_777 * i).collect();
    let total: usize = lens.iter().sum();
    let done = run_echo(&mut net, &lens, Duration::from_secs(60), &mut []);
    assert!(done < Instant::from_millis(60_000), "finished at {done:?}");
    // Both directions used both paths.
    for end in &net.ends {
        let stats = end.inbound().path_stats();
        assert!(stats.iter().all(|s| s.delivered > 0), "{stats:?}");
        assert!(end.stats().received >= total as u64);
    }
}

#[test]
fn many_streams_of_every_size_echo_whole_over_three_paths() {
    let mut net = Net::new(&[Link::new(20, 10), Link::new(8, 30), Link::new(2, 150)]);
    // Empty, tiny, a segment and a byte either side of one, and large.
    let mut lens = vec![0, 1, 7, 1199, 1200, 1201, 70_000];
    lens.extend((0..25).map(|i| 1_000 + 31_337 * i));
    let done = run_echo(&mut net, &lens, Duration::from_secs(60), &mut []);
    assert!(done < Instant::from_millis(60_000), "finished at {done:?}");
}

#[test]
fn streams_survive_a_path_lost_and_another_added_mid_stream() {
    let mut net = Net::new(&[Link::new(20, 10), Link::new(10, 40)]);
    let lens = vec![1_500_000; 4];
    // Path 0 goes at 0.5 s: the host learns it (its interface went down);
    // the server only stops hearing from it. A new path joins at 1 s.
    let mut lose = |net: &mut Net| {
        net.links[0].up = false;
        let now = net.now;
        net.ends[HOST].remove_path(now, PathId(0));
    };
    let mut add = |net: &mut Net| net.add_link(Link::new(20, 15));
    let mut schedule: [Event; 2] = [
        (Instant::from_millis(500), &mut lose),
        (Instant::from_millis(1_000), &mut add),
    ];
    let done = run_echo(&mut net, &lens, Duration::from_secs(60), &mut schedule);
    assert!(done < Instant::from_millis(60_000), "finished at {done:?}");
    // The new path carried data both ways.
    let new = |e: &Duplex, p: u16| {
        e.inbound()
            .path_stats()
            .iter()
            .find(|s| s.path == PathId(p))
            .map_or(0, |s| s.delivered)
    };
    assert!(new(&net.ends[HOST], 2) > 1_000_000);
    assert!(new(&net.ends[SERVER], 2 | UPLINK) > 1_000_000);
}

#[test]
fn a_small_request_is_answered_in_a_few_round_trips_on_an_idle_connection() {
    // 20 ms round trip; the connection is open and quiet when the host
    // writes 100 bytes. Each direction's sender announces what was
    // written, its receiver asks, the bytes come: three round trips for
    // the echo, where waiting for a persist probe would take the 200 ms
    // minimum timer at least.
    let mut net = Net::new(&[Link::new(20, 10)]);
    let open = run_echo(&mut net, &[10], Duration::from_secs(5), &mut []);
    let start = net.now.max(open + Duration::from_millis(500));
    net.now = start;
    let done = run_echo(&mut net, &[100], Duration::from_secs(10), &mut []);
    let took = done.saturating_since(start);
    assert!(took < Duration::from_millis(100), "took {took:?}");
    // Each of the two quiet writes each way went out padded to its
    // segment's end, and by no more.
    let mss = net.ends[HOST].config.inbound.pipe.mss;
    for end in &net.ends {
        let padded = end.stats().padded;
        assert!(padded > 0 && padded < 2 * mss, "{padded} bytes of padding");
    }
}

#[test]
fn a_path_number_in_the_uplink_range_is_refused() {
    let mut d = Duplex::new(Side::Host, DuplexConfig::new(1));
    assert_eq!(
        d.add_path(Instant::ZERO, PathId(UPLINK), None),
        Err(DuplexError::PathOutOfRange { path: UPLINK })
    );
    assert!(d.paths().is_empty());
}

#[test]
fn datagrams_of_another_connection_or_path_are_counted_and_dropped() {
    let mut net = Net::new(&[Link::new(20, 10)]);
    run_echo(&mut net, &[5_000], Duration::from_secs(5), &mut []);
    let mut other = Duplex::new(Side::Server, DuplexConfig::new(8));
    other.add_path(net.now, PathId(0), None).unwrap();
    let mut buf = Vec::new();
    let p = other.poll_transmit(net.now, &mut buf).expect("a SYN");
    let host = &mut net.ends[HOST];
    let before = host.stats().malformed;
    host.handle_datagram(net.now, p, &buf);
    host.handle_datagram(net.now, PathId(3), &buf);
    host.handle_datagram(net.now, p, &[0xff; 5]);
    assert_eq!(host.stats().malformed, before + 3);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(12))]

    /// Any paths, lossy or not, any streams, a path lost at any time:
    /// every stream comes back whole, and neither side holds more than its limit.
    #[test]
    fn any_streams_over_any_paths_echo_whole(
        links in proptest::collection::vec((1u64..40, 1u64..120, proptest::option::of(20u64..200)), 1..4),
        lens in proptest::collection::vec(0usize..200_000, 1..12),
        lose_at in proptest::option::of(100u64..2_000),
    ) {
        let links: Vec<Link> = links
            .iter()
            .map(|&(m, d, loss)| Link { loss, ..Link::new(m, d) })
            .collect();
        let mut net = Net::new(&links);
        let spare = links.len() > 1;
        let mut lose = |net: &mut Net| {
            if spare {
                net.links[0].up = false;
                let now = net.now;
                net.ends[HOST].remove_path(now, PathId(0));
            }
        };
        let mut schedule: Vec<Event> = lose_at
            .map(|t| (Instant::from_millis(t), &mut lose as &mut dyn FnMut(&mut Net)))
            .into_iter()
            .collect();
        let done = run_echo(&mut net, &lens, Duration::from_secs(120), &mut schedule);
        proptest::prop_assert!(done < Instant::from_millis(120_000), "finished at {:?}", done);
    }
}

#[test]
fn a_stream_nobody_reads_holds_what_the_connection_allows_and_completes_once_read() {
    let mut config = DuplexConfig::new(7);
    config.recv_limit = 300_000;
    let mut net = Net::with_config(&[Link::new(20, 10)], config);
    let data = bytes_of(0, 3_000_000);
    let id = net.ends[HOST].streams().open().unwrap();
    let mut written = 0;
    let mut got = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut accepted = None;
    // Five simulated seconds with nobody reading, then the server reads.
    while net.now < Instant::from_millis(60_000) {
        let h = net.ends[HOST].streams();
        if written < data.len() {
            written += h.write(id, &data[written..]).unwrap();
        } else {
            let _ = h.finish(id);
        }
        let s = net.ends[SERVER].streams();
        if accepted.is_none() {
            accepted = s.accept();
        }
        if let (Some(sid), true) = (accepted, net.now >= Instant::from_millis(5_000)) {
            match s.read(sid, &mut buf).unwrap() {
                Some(0) => break,
                Some(n) => got.extend_from_slice(&buf[..n]),
                None => {}
            }
        }
        let until = net.now + Duration::from_millis(50);
        if !net.step(until) {
            net.now = until;
        }
        if net.now < Instant::from_millis(5_000) {
            // Held back by the stream's window (1 MiB) and send buffer
            // (256 KiB): not the whole stream written.
            assert!(written < data.len() / 2, "{written} written");
        }
    }
    assert!(
        got == data,
        "{} of {} bytes, in order",
        got.len(),
        data.len()
    );
}

#[test]
fn a_host_that_closes_after_its_request_still_reads_a_long_answer_and_both_ends_close() {
    let mut net = Net::new(&[Link::new(20, 10), Link::new(10, 30)]);
    let answer = bytes_of(1, 3_000_000);
    let id = net.ends[HOST].streams().open().unwrap();
    net.ends[HOST].streams().write(id, b"GET").unwrap();
    net.ends[HOST].streams().finish(id).unwrap();
    // Closed at once: the stream is not done, so the connection waits.
    net.ends[HOST].close();
    let (mut written, mut got, mut sid) = (0, Vec::new(), None);
    let mut buf = vec![0u8; 64 * 1024];
    while net.now < Instant::from_millis(60_000) {
        let s = net.ends[SERVER].streams();
        sid = sid.or_else(|| s.accept());
        if let Some(sid) = sid {
            if written < answer.len() {
                written += s.write(sid, &answer[written..]).unwrap();
            } else {
                let _ = s.finish(sid);
            }
            while let Ok(Some(n @ 1..)) = s.read(sid, &mut buf) {
                assert_eq!(&buf[..n], &b"GET"[..n]);
            }
        }
        let h = net.ends[HOST].streams();
        while let Ok(Some(n @ 1..)) = h.read(id, &mut buf) {
            got.extend_from_slice(&buf[..n]);
        }
        if net.ends.iter().all(Duplex::is_closed) {
            break;
        }
        let until = net.now + Duration::from_millis(20);
        if !net.step(until) {
            net.now = until;
        }
    }
    assert!(got == answer, "{} of {} bytes", got.len(), answer.len());
    assert!(net.ends[HOST].is_closed(), "the host's side closed");
    assert!(
        net.ends[SERVER].is_closed(),
        "the server closed after the host"
    );
    assert!(net.ends[SERVER].peer_closed());
}

/// Segment size of the padding tests.
const PAD_MSS: u64 = 1_000;

/// A server's mux whose one stream's writer wrote more than its buffer
/// takes (backlogged), and its outgoing direction, which waits
/// `pad_delay` before padding.
fn backlogged_writer(pad_delay: Duration) -> (Mux, outbound::Outbound, StreamId) {
    let config = MuxConfig {
        send_buffer: 10_500,
        ..MuxConfig::default()
    };
    let mut mux = Mux::new(Side::Server, config);
    let out = outbound::Outbound::new(1 << 20, PAD_MSS, pad_delay);
    let id = mux.open().unwrap();
    assert_eq!(mux.write(id, &bytes_of(id.0, 20_000)).unwrap(), 10_500);
    (mux, out, id)
}

#[test]
fn a_backlogged_writer_gets_a_moment_to_fill_its_segment_before_padding() {
    let (mut mux, mut out, id) = backlogged_writer(PAD_DELAY);
    let t0 = Instant::ZERO + Duration::from_secs(1);
    // The streams run dry mid-segment, and the segment waits.
    out.fill(t0, &mut mux);
    assert_eq!(out.padded(), 0, "no padding yet");
    assert_eq!(out.next_timeout(), Some(t0 + PAD_DELAY));
    assert_ne!(out.held() as u64 % PAD_MSS, 0, "a segment left partial");
    // The writer comes back within the moment: the segment fills.
    let t1 = t0 + Duration::from_micros(200);
    mux.write(id, &bytes_of(id.0, 5_000)).unwrap();
    out.fill(t1, &mut mux);
    assert_eq!(out.padded(), 0);
    // It does not come back: the segment is padded once the moment ends.
    let t2 = t1 + Duration::from_micros(300);
    out.fill(t2, &mut mux);
    assert_eq!(out.padded(), 0, "still within the moment");
    out.fill(t0 + PAD_DELAY, &mut mux);
    assert!(out.padded() > 0 && out.padded() < PAD_MSS);
    assert_eq!(
        out.held() as u64 % PAD_MSS,
        0,
        "padded to the segment's end"
    );
    assert_eq!(out.next_timeout(), None);
}

#[test]
fn a_quiet_writer_is_padded_at_once() {
    let mut mux = Mux::new(Side::Server, MuxConfig::default());
    let mut out = outbound::Outbound::new(1 << 20, PAD_MSS, PAD_DELAY);
    let id = mux.open().unwrap();
    // Written whole: the writer is not backlogged, and nothing is known
    // to follow.
    assert_eq!(mux.write(id, b"a request").unwrap(), 9);
    out.fill(Instant::ZERO, &mut mux);
    assert!(out.padded() > 0);
    assert_eq!(out.held() as u64 % PAD_MSS, 0);
    assert_eq!(out.next_timeout(), None);
}

#[test]
fn with_no_pad_delay_a_backlogged_writer_is_padded_at_once() {
    let (mut mux, mut out, _) = backlogged_writer(Duration::ZERO);
    out.fill(Instant::ZERO, &mut mux);
    assert!(out.padded() > 0);
    assert_eq!(out.held() as u64 % PAD_MSS, 0);
}
