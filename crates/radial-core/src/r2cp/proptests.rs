//! The engine driven by random pipe events against unchanged RCP senders:
//! paths coming up, going down, losing and regaining their links,
//! retiring; datagrams delivered out of order, lost, late; time passing;
//! the application reading. After every step the engine's invariants hold
//! (`invariants.rs`); whatever happened, once one path works and the
//! network delivers, every byte arrives, once, in order.

use std::collections::BTreeMap;

use proptest::prelude::*;

use super::{FlowControl, R2cpConfig, R2cpReceiver, Rules, Scheduling};
use crate::cc::coupled::Coupling;
use crate::endpoint::{Endpoint, HostEvent, PathId, RouteId};
use crate::rcp::{Opener, RcpConfig, RcpSender, RcpVariant, Segment, SharedStream, StoredStream};
use crate::time::{Duration, Instant};

const MSS: u64 = 1000;
const CONN: u32 = 7;

/// The stream's byte at `offset`.
fn byte(offset: u64) -> u8 {
    ((offset * 7 + 3) % 251) as u8
}

#[derive(Clone, Debug)]
enum Op {
    Up(u16),
    Down(u16),
    LinkDown(u16),
    LinkUp(u16),
    Close(u16),
    /// Deliver the k-th datagram on its way to a sender.
    DeliverUp(usize),
    /// Deliver the k-th datagram on its way to the receiver.
    DeliverDown(usize),
    /// Deliver up to n datagrams on their way to the receiver, from the
    /// k-th, as one batch: requests held until the last is handled.
    DeliverDownBatch(usize, usize),
    /// Lose the k-th datagram on its way (either way).
    Lose(usize),
    /// Time passes, in ms.
    Tick(u64),
    Read,
    /// The application writes this many more bytes (a growing stream only).
    Write(u64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        1 => (0u16..3).prop_map(Op::Up),
        1 => (0u16..3).prop_map(Op::Down),
        1 => (0u16..3).prop_map(Op::LinkDown),
        1 => (0u16..3).prop_map(Op::LinkUp),
        1 => (0u16..3).prop_map(Op::Close),
        6 => any::<usize>().prop_map(Op::DeliverUp),
        8 => any::<usize>().prop_map(Op::DeliverDown),
        3 => (any::<usize>(), 1usize..8).prop_map(|(k, n)| Op::DeliverDownBatch(k, n)),
        2 => any::<usize>().prop_map(Op::Lose),
        3 => (1u64..400).prop_map(Op::Tick),
        2 => Just(Op::Read),
        2 => (1u64..5_000).prop_map(Op::Write),
    ]
}

/// A pipe's sender: of a stored stream (a file), or of a stream shared by
/// every pipe that the application writes as it goes.
enum Sender {
    Stored(RcpSender<StoredStream>),
    Shared(RcpSender<SharedStream>),
}

impl Sender {
    fn on_datagram(&mut self, now: Instant, d: &[u8]) {
        match self {
            Sender::Stored(s) => s.on_datagram(now, d),
            Sender::Shared(s) => s.on_datagram(now, d),
        }
    }
    fn poll_segment(&mut self, now: Instant, buf: &mut Vec<u8>) -> Option<Segment> {
        match self {
            Sender::Stored(s) => s.poll_segment(now, buf),
            Sender::Shared(s) => s.poll_segment(now, buf),
        }
    }
    fn next_timeout(&self) -> Option<Instant> {
        match self {
            Sender::Stored(s) => s.next_timeout(),
            Sender::Shared(s) => s.next_timeout(),
        }
    }
    fn on_timeout(&mut self, now: Instant) {
        match self {
            Sender::Stored(s) => s.on_timeout(now),
            Sender::Shared(s) => s.on_timeout(now),
        }
    }
}

/// The receiver, a sender per path, and what is on its way.
struct Net {
    rx: R2cpReceiver,
    senders: BTreeMap<u16, Sender>,
    /// The stream every sender shares, if the application writes it as it
    /// goes (else each sender serves a stored one).
    shared: Option<SharedStream>,
    up: Vec<(u16, Vec<u8>)>,
    down: Vec<(u16, Vec<u8>)>,
    now: Instant,
    len: u64,
    read: u64,
}

impl Net {
    fn new(rules: Rules, scheduling: Scheduling, buffer: u64, len: u64) -> Net {
        Net::with_flow(rules, scheduling, FlowControl::default(), buffer, len)
    }

    fn with_flow(
        rules: Rules,
        scheduling: Scheduling,
        flow: FlowControl,
        buffer: u64,
        len: u64,
    ) -> Net {
        let mut pipe = RcpConfig::ns2(RcpVariant::Rcp);
        pipe.window = buffer;
        pipe.conn_id = CONN;
        pipe.opener = Opener::Receiver;
        pipe.rtt.initial_rto = Duration::from_millis(300);
        let rx = R2cpReceiver::new(R2cpConfig {
            pipe,
            scheduling,
            rules,
            target: None,
            coupling: Coupling::Uncoupled,
            flow,
            eln_paths: 0,
            pacing_quantum: Duration::ZERO,
        });
        Net {
            rx,
            senders: BTreeMap::new(),
            shared: None,
            up: Vec::new(),
            down: Vec::new(),
            now: Instant::ZERO,
            len,
            read: 0,
        }
    }

    fn sender_config(path: u16) -> RcpConfig {
        let mut c = RcpConfig::ns2(RcpVariant::Rcp);
        c.conn_id = R2cpConfig::pipe_conn_id(CONN, PathId(path));
        c.opener = Opener::Receiver;
        c
    }

    fn event(&mut self, e: HostEvent) {
        self.rx.handle_event(self.now, e);
    }

    fn apply(&mut self, op: &Op) {
        match *op {
            Op::Up(p) => {
                let (len, shared) = (self.len, self.shared.clone());
                self.senders.entry(p).or_insert_with(|| match shared {
                    Some(stream) => {
                        Sender::Shared(RcpSender::shared(Net::sender_config(p), PathId(p), stream))
                    }
                    None => {
                        Sender::Stored(RcpSender::stored(Net::sender_config(p), PathId(p), len))
                    }
                });
                // Paths 0 and 2 cross one route, as 1 and 3 do: a pipe
                // may start from what an earlier one left.
                self.event(HostEvent::PathUp {
                    path: PathId(p),
                    controller: None,
                    route: Some(RouteId(u64::from(p % 2))),
                });
            }
            Op::Down(p) => {
                self.event(HostEvent::PathDown { path: PathId(p) });
                self.senders.remove(&p);
                self.up.retain(|(q, _)| *q != p);
                self.down.retain(|(q, _)| *q != p);
            }
            Op::LinkDown(p) => {
                self.event(HostEvent::LinkDown { path: PathId(p) });
                self.up.retain(|(q, _)| *q != p);
                self.down.retain(|(q, _)| *q != p);
            }
            Op::LinkUp(p) => self.event(HostEvent::LinkUp { path: PathId(p) }),
            Op::Close(p) => self.event(HostEvent::PathClose { path: PathId(p) }),
            Op::DeliverUp(k) if !self.up.is_empty() => {
                let (p, d) = self.up.remove(k % self.up.len());
                if let Some(s) = self.senders.get_mut(&p) {
                    s.on_datagram(self.now, &d);
                }
            }
            Op::DeliverDown(k) if !self.down.is_empty() => {
                let (p, d) = self.down.remove(k % self.down.len());
                self.rx.handle_datagram(self.now, PathId(p), &d);
            }
            Op::DeliverDownBatch(k, n) if !self.down.is_empty() => {
                self.rx.hold_requests();
                for _ in 0..n {
                    if self.down.is_empty() {
                        break;
                    }
                    let (p, d) = self.down.remove(k % self.down.len());
                    self.rx.handle_datagram(self.now, PathId(p), &d);
                }
                self.rx.release_requests(self.now);
            }
            Op::Lose(k) => {
                let n = self.up.len() + self.down.len();
                if n > 0 {
                    let k = k % n;
                    if k < self.up.len() {
                        self.up.remove(k);
                    } else {
                        self.down.remove(k - self.up.len());
                    }
                }
            }
            Op::Tick(ms) => self.tick(Duration::from_millis(ms)),
            Op::Read => self.read_all(),
            Op::Write(n) => self.write(n),
            _ => {}
        }
        self.flush();
    }

    /// The application writes `n` more bytes of a shared stream, closing
    /// it at its length; the senders serve what waited for them.
    fn write(&mut self, n: u64) {
        let Some(stream) = &self.shared else {
            return;
        };
        let end = (stream.end() + n).min(self.len);
        stream.extend_to(end);
        if end == self.len {
            stream.close();
        }
        for s in self.senders.values_mut() {
            if let Sender::Shared(s) = s {
                s.stream_grew();
            }
        }
    }

    /// Time passes: the receiver's and senders' timers fire.
    fn tick(&mut self, by: Duration) {
        self.now += by;
        if self.rx.poll_timeout().is_some_and(|t| t <= self.now) {
            self.rx.handle_timeout(self.now);
        }
        for s in self.senders.values_mut() {
            if s.next_timeout().is_some_and(|t| t <= self.now) {
                s.on_timeout(self.now);
            }
        }
    }

    /// Everything the endpoints have to send goes on its way.
    fn flush(&mut self) {
        let mut buf = Vec::new();
        while let Some(path) = self.rx.poll_transmit(self.now, &mut buf) {
            self.up.push((path.0, buf.clone()));
        }
        for (&p, s) in &mut self.senders {
            while let Some(seg) = s.poll_segment(self.now, &mut buf) {
                let mut d = buf.clone();
                d.extend((seg.offset..seg.offset + seg.len as u64).map(byte));
                self.down.push((p, d));
            }
        }
    }

    /// The application reads what is in order, and checks every byte.
    fn read_all(&mut self) {
        let mut buf = [0u8; 4096];
        loop {
            let n = self.rx.read(&mut buf);
            if n == 0 {
                return;
            }
            for (i, b) in buf[..n].iter().enumerate() {
                assert_eq!(
                    *b,
                    byte(self.read + i as u64),
                    "byte {}",
                    self.read + i as u64
                );
            }
            self.read += n as u64;
        }
    }

    /// A fresh path comes up, every link is up, and the network delivers
    /// everything, in order, until the stream is read or a simulated minute
    /// passes.
    fn settle(&mut self) {
        self.write(self.len);
        for p in 0..3 {
            self.event(HostEvent::LinkUp { path: PathId(p) });
        }
        self.apply(&Op::Up(3));
        let end = self.now + Duration::from_secs(60);
        while self.read < self.len && self.now < end {
            while !self.up.is_empty() || !self.down.is_empty() {
                self.apply(&Op::DeliverUp(0));
                self.apply(&Op::DeliverDown(0));
                self.read_all();
            }
            self.tick(Duration::from_millis(10));
            self.flush();
        }
    }
}

fn engine() -> impl Strategy<Value = (Rules, Scheduling)> {
    prop_oneof![
        Just((Rules::ALL, Scheduling::Ranked)),
        Just((Rules::ALL, Scheduling::Fcfs)),
        Just((Rules::PAPER, Scheduling::Ranked)),
        (0..Rules::LIST.len()).prop_map(|k| (
            Rules::without(Rules::LIST[k].name).unwrap(),
            Scheduling::Ranked
        )),
    ]
}

fn flow_control() -> impl Strategy<Value = FlowControl> {
    prop_oneof![Just(FlowControl::Span), Just(FlowControl::Reserve)]
}

proptest! {
    // `RADIAL_ENGINE_CASES` runs more (or fewer) cases than 500.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("RADIAL_ENGINE_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(500),
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_pipe_events_keep_the_invariants_and_every_byte_arrives_once_in_order(
        (rules, scheduling) in engine(),
        flow in flow_control(),
        buffer in 4u64..40,
        segments in 1u64..60,
        ops in proptest::collection::vec(op(), 0..300),
    ) {
        let len = segments * MSS - 17;
        run(Net::with_flow(rules, scheduling, flow, buffer, len), &ops)?;
    }
}

/// Applies `ops`, holding the engine to its invariants after each, then
/// lets the network settle: every byte must arrive.
fn run(mut net: Net, ops: &[Op]) -> Result<(), TestCaseError> {
    for o in ops {
        net.apply(o);
        if let Err(e) = net.rx.check_invariants() {
            prop_assert!(false, "after {o:?}: {e}");
        }
    }
    net.settle();
    prop_assert_eq!(net.read, net.len, "read {} of {}", net.read, net.len);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("RADIAL_ENGINE_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(200),
        ..ProptestConfig::default()
    })]

    /// The same with one stream shared by every pipe's sender, which the
    /// application writes as it goes (a server's stream rather than a
    /// file): requests that run ahead of what is written wait, and are
    /// served as it grows.
    #[test]
    fn a_stream_written_as_it_goes_arrives_once_in_order_through_every_pipe(
        (rules, scheduling) in engine(),
        flow in flow_control(),
        buffer in 4u64..40,
        segments in 1u64..60,
        first in 0u64..3_000,
        ops in proptest::collection::vec(op(), 0..300),
    ) {
        let len = segments * MSS - 17;
        let mut net = Net::with_flow(rules, scheduling, flow, buffer, len);
        let stream = SharedStream::new();
        stream.extend_to(first.min(len));
        net.shared = Some(stream);
        run(net, &ops)?;
    }
}

/// Found by the property test: a path retired, then opened again while
/// its old pipe's requests were still on their way to the sender, which
/// answered one of them under a pull id the new pipe had given to another
/// segment. The stale answer must answer nothing.
#[test]
fn a_stale_answer_to_an_earlier_pipe_on_the_same_path_answers_nothing() {
    use Op::*;
    let ops = [
        Up(1),
        DeliverUp(0),
        DeliverDown(0),
        Lose(0),
        Lose(0),
        Lose(0),
        Lose(0),
        Up(2),
        Tick(300),
        Tick(50),
        Tick(50),
        DeliverUp(934_532_210_958_069_240),
        DeliverUp(321_771_361_470_073_855),
        Tick(200),
        DeliverUp(13_527_188_029_501_753_468),
        DeliverDown(16_161_343_403_731_884_474),
        DeliverUp(9_239_627_657_088),
        Tick(50),
        LinkUp(0),
        DeliverDown(0),
        Down(0),
        Close(2),
        DeliverUp(3_248_338_822_715_338),
        LinkDown(0),
        Close(1),
        DeliverDown(0),
        Tick(150),
        Up(2),
        DeliverDown(0),
        LinkUp(0),
        DeliverUp(0),
        Up(0),
    ];
    let len = 4 * MSS - 17;
    let mut net = Net::new(Rules::ALL, Scheduling::Ranked, 4, len);
    for o in &ops {
        net.apply(o);
        net.rx.check_invariants().unwrap();
    }
    net.settle();
    assert_eq!(net.read, len);
}

/// A sender that answers with part of a segment, or with bytes astride
/// two, answers no request: nothing of it is stored (the bytes here are
/// wrong ones, which the reader would see), and the invariants hold.
#[test]
fn part_of_a_segment_or_bytes_astride_two_answer_no_request() {
    use crate::wire::rcp::{RcpFlags, RcpHeader};
    let len = 4 * MSS;
    let mut net = Net::new(Rules::ALL, Scheduling::Ranked, 8, len);
    net.apply(&Op::Up(1));
    // The handshake (SYN up, SYN+ACK down), then the first requests out,
    // and their answers lost.
    for round in 0..3 {
        net.flush();
        while !net.up.is_empty() {
            net.apply(&Op::DeliverUp(0));
        }
        net.flush();
        if round == 0 {
            while !net.down.is_empty() {
                net.apply(&Op::DeliverDown(0));
            }
        }
        net.down.clear();
    }
    let c = Net::sender_config(1);
    for (start, n) in [(0, 1), (MSS / 2, MSS as usize), (MSS, 1)] {
        let h = RcpHeader::new(
            RcpFlags::default(),
            c.conn_id,
            c.wire_seq(start),
            c.wire_seq(len),
            1,
        );
        let mut d = Vec::new();
        h.emit(&mut d);
        d.extend(std::iter::repeat_n(0xee, n));
        let before = net.rx.stats().unsolicited;
        net.rx.handle_datagram(net.now, PathId(1), &d);
        assert_eq!(
            net.rx.stats().unsolicited,
            before + 1,
            "at {start}, {n} bytes"
        );
        net.rx.check_invariants().unwrap();
    }
    net.settle();
    assert_eq!(net.read, len);
}

/// Rule `route_memory`: a pipe opened on the route of a pipe that went (a
/// path back with a new address) starts from its round-trip estimator, and
/// once its handshake completes from its window; without the rule it
/// starts from the initial RTO and window.
#[test]
fn a_new_pipe_on_the_route_of_a_pipe_that_went_starts_from_what_it_knew() {
    let iw = RcpConfig::ns2(RcpVariant::Rcp).cc.initial_window * MSS;
    for (rules, remembers) in [
        (Rules::ALL, true),
        (Rules::without("route_memory").unwrap(), false),
    ] {
        let len = 2_000 * MSS;
        let mut net = Net::new(rules, Scheduling::Ranked, 1_000, len);
        net.apply(&Op::Up(0));
        // Round trips of 10 ms until the window has grown.
        while net.rx.pipe(PathId(0)).unwrap().cwnd() < 20 * iw {
            while !net.up.is_empty() || !net.down.is_empty() {
                net.apply(&Op::DeliverUp(0));
                net.apply(&Op::DeliverDown(0));
                net.read_all();
            }
            net.apply(&Op::Tick(10));
        }
        let left = net.rx.pipe(PathId(0)).unwrap().window();
        // The path goes; the interface comes back with a new address.
        net.apply(&Op::Down(0));
        net.apply(&Op::Up(2));
        let fresh = net.rx.pipe(PathId(2)).unwrap();
        assert_eq!(fresh.srtt().is_some(), remembers, "{rules:?}");
        // Its SYN, its sender's SYN+ACK (the old pipe's farewell goes to
        // no sender): established, before any answer.
        while !net.up.is_empty() {
            net.apply(&Op::DeliverUp(0));
        }
        assert_eq!(net.down.len(), 1, "the SYN+ACK");
        net.apply(&Op::DeliverDown(0));
        let p = net.rx.pipe(PathId(2)).unwrap();
        assert!(p.state().established());
        let expected = if remembers { left } else { iw };
        assert_eq!(p.cwnd(), expected, "{rules:?}");
        // A path that does not share the route starts afresh either way.
        net.apply(&Op::Up(1));
        assert_eq!(net.rx.pipe(PathId(1)).unwrap().srtt(), None);
        net.rx.check_invariants().unwrap();
    }
}

/// Flow control by reservation (RCP §3.3.4, R²CP §4.3.4): a pipe whose
/// answers come ten times later than another's may be asked for a segment
/// past the in-order point plus the buffer, where the quicker pipe's
/// segments fill the stream before it lands, so long as what is held and
/// requested fits the buffer; by span it may not.
#[test]
fn by_reservation_a_slow_pipe_asks_past_the_span_and_the_buffer_still_holds_all() {
    for flow in [FlowControl::Span, FlowControl::Reserve] {
        let buffer = 40;
        let len = 4_000 * MSS;
        let mut net = Net::with_flow(Rules::ALL, Scheduling::Ranked, flow, buffer, len);
        net.apply(&Op::Up(0));
        net.apply(&Op::Up(1));
        // Path 0 answers every 10 ms, path 1 every 100 ms; the application
        // reads at once.
        let mut beyond = false;
        for round in 0..400 {
            let slow = round % 10 == 9;
            for _ in 0..net.up.len() {
                if let Some(k) = net.up.iter().position(|(p, _)| *p == 0 || slow) {
                    net.apply(&Op::DeliverUp(k));
                }
            }
            for _ in 0..net.down.len() {
                if let Some(k) = net.down.iter().position(|(p, _)| *p == 0 || slow) {
                    net.apply(&Op::DeliverDown(k));
                }
            }
            net.read_all();
            net.apply(&Op::Tick(10));
            net.rx.check_invariants().unwrap();
            let span_end = net.read + buffer * MSS;
            let slow_pipe = net.rx.pipe(PathId(1)).unwrap();
            beyond |= slow_pipe.requested_end().is_some_and(|e| e > span_end);
            let held = net.rx.reserved();
            if flow == FlowControl::Reserve {
                assert!(held <= buffer * MSS, "{held} bytes held or requested");
            }
        }
        assert_eq!(beyond, flow == FlowControl::Reserve, "{flow:?}");
        net.settle();
        assert_eq!(net.read, len, "{flow:?}");
    }
}

/// Datagrams handled while requests are held ask nothing until the batch
/// ends; then the pipe asks for what they all freed, and the stream still
/// arrives whole.
#[test]
fn held_requests_go_out_when_the_batch_ends() {
    let mut net = Net::new(Rules::ALL, Scheduling::Ranked, 64 * MSS, 400 * MSS);
    net.apply(&Op::Up(0));
    // The handshake, and the first requests answered.
    for _ in 0..4 {
        while !net.up.is_empty() {
            net.apply(&Op::DeliverUp(0));
        }
        if net.down.len() >= 3 {
            break;
        }
        while !net.down.is_empty() {
            net.apply(&Op::DeliverDown(0));
        }
    }
    assert!(net.down.len() >= 3, "data on its way");
    net.rx.hold_requests();
    for _ in 0..3 {
        let (p, d) = net.down.remove(0);
        net.rx.handle_datagram(net.now, PathId(p), &d);
    }
    let mut buf = Vec::new();
    assert!(
        net.rx.poll_transmit(net.now, &mut buf).is_none(),
        "nothing asked while held"
    );
    net.rx.release_requests(net.now);
    let mut asked = 0;
    while net.rx.poll_transmit(net.now, &mut buf).is_some() {
        net.up.push((0, buf.clone()));
        asked += 1;
    }
    assert!(asked >= 3, "the three segments' room asked again: {asked}");
    net.settle();
    assert_eq!(net.read, net.len);
}
