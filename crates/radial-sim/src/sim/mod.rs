//! The simulator: builds the network of a [`RunSpec`], drives every endpoint
//! through the sans-IO driver contract, and reports.

use radial_core::ptcp::{PtcpConfig, PtcpReceiver, PtcpSender};
use radial_core::r2cp::{R2cpConfig, R2cpReceiver};
use radial_core::rcp::{RcpConfig, RcpReceiver, RcpSender};
use radial_core::tcp::{TcpReceiver, TcpSender};
use radial_core::{AppEvent, Duration, Endpoint, HostEvent, Instant, PathId, RouteId};

use crate::app::{Resequencer, Sink, Source};
use crate::channel::{GilbertElliott, LossModel};
use crate::event::{EventKind, EventQueue, PathChange};
use crate::link::Link;
use crate::metrics::{
    Aggregate, FlowReport, HandoffReport, LinkReport, NodeReport, PipePoint, SeriesPoint, Summary,
};
use crate::packet::{Addr, Packet};
use crate::red::Red;
use crate::rng::Rng;
use crate::routing::Routing;
mod build;
mod capture;
mod links;
mod prism;
mod report;
mod traffic;

pub use capture::{CaptureError, CaptureReport};

use crate::spec::{
    Direction, FlowProtocol, FlowSpec, LinkAction, LossSpec, OnOffSpec, RunSpec, ScheduleSpec,
    Traffic,
};

/// The network: links, channels, routes and the event queue.
struct Net {
    now: Instant,
    events: EventQueue,
    links: Vec<Link>,
    channels: Vec<GilbertElliott>,
    routing: Routing,
    /// Node of each interface address.
    iface_node: Vec<u32>,
    overhead: u32,
    /// Recycled datagram buffers.
    free: Vec<Vec<u8>>,
    no_route: u64,
}

impl Net {
    fn recycle(&mut self, mut data: Vec<u8>) {
        if data.capacity() > 0 && self.free.len() < 4096 {
            data.clear();
            self.free.push(data);
        }
    }

    /// Sends `p` from `node` towards its destination.
    fn forward(&mut self, node: u32, p: Packet) {
        let dst_node = self.iface_node[p.dst.0 as usize];
        match self.routing.next_hop(node, dst_node) {
            Some(l) => self.enqueue(l, p),
            None => {
                self.no_route += 1;
                self.recycle(p.data);
            }
        }
    }

    fn enqueue(&mut self, l: u32, p: Packet) {
        let now = self.now;
        let link = &mut self.links[l as usize];
        match link.enqueue(now, p) {
            Ok(Some(arrival)) => {
                let generation = link.generation;
                self.events.push(
                    arrival,
                    EventKind::Arrival {
                        link: l,
                        generation,
                    },
                );
            }
            Ok(None) => {}
            Err((p, _cause)) => self.recycle(p.data),
        }
    }
}

type BoxedEndpoint = Box<dyn Endpoint>;

/// One socket: an endpoint bound to an interface, or a datagram sink.
struct Agent {
    node: u32,
    addr: Addr,
    peer_addr: Addr,
    peer_agent: u32,
    flow: u32,
    endpoint: Option<Box<dyn Endpoint>>,
    source: Option<Source>,
    sink: Option<Sink>,
    /// Earliest timer event pending in the queue for this agent.
    timer_at: Option<Instant>,
    /// A multi-path agent's paths, by `PathId` (empty: the single path
    /// above).
    paths: Vec<PathBinding>,
    /// The connection index of a receiving agent of an `apps` flow: its
    /// bytes go to the flow's resequencer.
    stripe: Option<u16>,
    /// Bytes this agent's endpoint put on the wire.
    wire_bytes: u64,
}

impl Agent {
    /// An agent of `flow` at `node`, talking to `peer_agent`, with no
    /// application, no other paths and nothing sent yet.
    fn new(
        node: u32,
        addr: Addr,
        peer_addr: Addr,
        peer_agent: u32,
        flow: u32,
        endpoint: Option<Box<dyn Endpoint>>,
    ) -> Self {
        Agent {
            node,
            addr,
            peer_addr,
            peer_agent,
            flow,
            endpoint,
            source: None,
            sink: None,
            timer_at: None,
            paths: Vec::new(),
            stripe: None,
            wire_bytes: 0,
        }
    }

    /// The path packet `p` arrived on: the one between its addresses that
    /// leads to the agent that sent it (successive pipes of an R²CP flow
    /// may join the same two addresses, each to a sender of its own), or
    /// else the first between its addresses; path 0 for a single-path
    /// agent.
    fn path_of(&self, p: &Packet) -> u16 {
        let between = |b: &&PathBinding| b.addr == p.dst && b.peer_addr == p.src;
        let paths = &self.paths;
        let exact = paths
            .iter()
            .position(|b| between(&b) && b.peer_agent == p.src_agent);
        exact
            .or_else(|| paths.iter().position(|b| between(&b)))
            .unwrap_or(0) as u16
    }
}

/// Where one path of a multi-path agent leads.
#[derive(Clone, Copy, Debug)]
struct PathBinding {
    node: u32,
    addr: Addr,
    peer_addr: Addr,
    peer_agent: u32,
}

/// A Pareto on/off datagram source.
struct OnOff {
    spec: OnOffSpec,
    agent: u32,
    rng: Rng,
    on_until: Option<Instant>,
}

struct FlowState {
    sender: u32,
    receiver: u32,
    source: Option<u32>,
    udp_bytes: u64,
    udp_sent: u64,
    completed_at: Option<Instant>,
    /// Further agents of the flow (the pipes' senders of an R²CP flow, the
    /// other connections of an `apps` flow).
    more_agents: Vec<u32>,
    /// The receiving application of an `apps` flow.
    reseq: Option<Resequencer>,
    /// The last in-order delivery to the application, and the longest
    /// gap between two (handoff disruption, R²CP §4.4.1).
    last_delivery: Option<Instant>,
    max_gap: (Duration, Instant),
    /// Times of pipe changes after the first opening (handoffs).
    handoffs: Vec<Instant>,
    /// The longest delivery gap overlapping [t, t + HANDOFF_WATCH] for a
    /// handoff at t.
    handoff_gap: Option<Duration>,
    /// Delivery gaps in the HANDOFF_WATCH before the first handoff.
    pre_handoff_gaps: Vec<Duration>,
    /// Returns of the receiving host's access links after a handoff, and
    /// the first in-order delivery after each.
    link_returns: Vec<(Instant, Option<Instant>)>,
    /// The sender's congestion window summed over the samples taken while
    /// the flow ran, and how many.
    cwnd_samples: (u64, u64),
    /// A PRISM flow's proxy, and its re-sequencing span summed over the
    /// same samples.
    proxy: Option<u32>,
    span_samples: (u64, u64),
}

impl FlowState {
    /// The application read new data at `now`: the longest gap between
    /// deliveries, the gaps around the first handoff and after each, and
    /// the first delivery after each link's return.
    fn note_delivery(&mut self, now: Instant) {
        let f = self;
        if let Some(last) = f.last_delivery {
            let gap = now - last;
            if gap > f.max_gap.0 {
                f.max_gap = (gap, last);
            }
            if f.handoffs
                .iter()
                .any(|&h| last <= h + HANDOFF_WATCH && now >= h)
            {
                f.handoff_gap = Some(f.handoff_gap.map_or(gap, |g| g.max(gap)));
            }
            if let Some(&first) = f.handoffs.first() {
                if now <= first && last + HANDOFF_WATCH >= first {
                    f.pre_handoff_gaps.push(gap);
                }
            }
        }
        f.last_delivery = Some(now);
        for r in f.link_returns.iter_mut().filter(|r| r.0 <= now) {
            r.1.get_or_insert(now);
        }
    }

    /// A flow of these agents, nothing delivered yet.
    fn new(sender: u32, receiver: u32, handoffs: Vec<Instant>) -> Self {
        FlowState {
            sender,
            receiver,
            source: None,
            udp_bytes: 0,
            udp_sent: 0,
            completed_at: None,
            more_agents: Vec::new(),
            last_delivery: None,
            max_gap: (Duration::ZERO, Instant::ZERO),
            handoffs,
            handoff_gap: None,
            pre_handoff_gaps: Vec::new(),
            link_returns: Vec::new(),
            reseq: None,
            cwnd_samples: (0, 0),
            proxy: None,
            span_samples: (0, 0),
        }
    }
}

/// How long after a handoff its disruption is looked for, and how long
/// before it the normal delivery gaps are sampled.
const HANDOFF_WATCH: Duration = Duration::from_secs(5);

/// Beacon interval of the access point; a sleeping host wakes at each beacon
/// (RCP paper §3.4.4).
const BEACON_INTERVAL: Duration = Duration::from_millis(100);
/// How long the host listens to each beacon.
const BEACON_LISTEN: Duration = Duration::from_millis(2);

/// Sleep state of a host whose radio can sleep (§3.4.4).
#[derive(Debug, Default)]
struct Sleep {
    /// The Gilbert-Elliott channel of the host's incoming wireless link.
    channel: Option<u32>,
    /// Asleep since.
    since: Option<Instant>,
    total: Duration,
    beacons: u64,
    /// Airtime of frames that reached the host while it slept.
    rx_asleep: Duration,
}

/// A simulation run.
pub struct Simulator {
    spec: RunSpec,
    net: Net,
    agents: Vec<Agent>,
    flows: Vec<FlowState>,
    sources: Vec<OnOff>,
    series: Vec<SeriesPoint>,
    pipe_series: Vec<PipePoint>,
    /// Per node.
    sleep: Vec<Sleep>,
    /// Application write buffer.
    scratch: Vec<u8>,
    /// Application read buffer.
    read_buf: Vec<u8>,
    /// Per link: down, and the hosts at its ends were told so.
    signalled_down: Vec<bool>,
    captures: capture::Captures,
    end: Instant,
}

/// Everything a run produces.
#[derive(Debug)]
pub struct RunOutput {
    /// `summary.json` contents.
    pub summary: Summary,
    /// Time series of in-order delivery per flow.
    pub series: Vec<SeriesPoint>,
    /// Time series per pipe of multi-path flows.
    pub pipe_series: Vec<PipePoint>,
    /// The packet captures of [`Simulator::capture`].
    pub captures: Vec<CaptureReport>,
}

impl Simulator {
    /// Builds the network and agents of `spec`.
    pub fn new(spec: RunSpec) -> Self {
        let seed = spec.seed;
        let (links, iface_node, node_addr) = links::build(&spec);
        let pairs: Vec<(u32, u32)> = links.iter().map(|l| (l.from, l.to)).collect();
        let routing = Routing::compute(spec.nodes.len(), &pairs);
        let channels = spec
            .channels
            .iter()
            .enumerate()
            .map(|(i, p)| GilbertElliott::new(*p, Rng::stream(seed, &format!("channel:{i}"))))
            .collect();
        let mut sim = Simulator {
            end: Instant::ZERO + spec.duration,
            net: Net {
                now: Instant::ZERO,
                events: EventQueue::new(),
                links,
                channels,
                routing,
                iface_node,
                overhead: spec.overhead_bytes,
                free: Vec::new(),
                no_route: 0,
            },
            agents: Vec::new(),
            flows: Vec::new(),
            sources: Vec::new(),
            series: Vec::new(),
            pipe_series: Vec::new(),
            sleep: Vec::new(),
            scratch: Vec::new(),
            read_buf: vec![0; 64 * 1024],
            signalled_down: vec![false; spec.links.len()],
            captures: Default::default(),
            spec,
        };
        sim.build_flows(&node_addr);
        sim.note_link_handoffs();
        sim.sleep = (0..sim.spec.nodes.len())
            .map(|_| Sleep::default())
            .collect();
        for l in &sim.net.links {
            if let LossModel::GilbertElliott(c) = l.loss {
                sim.sleep[l.to as usize].channel = Some(c);
            }
        }
        sim
    }

    /// A hard handoff of a single-path flow: its receiving end now sends from
    /// and is reached at the new interface's address, as with an idealised
    /// Mobile IP binding update or TCP connection migration (the sender learns
    /// the address at once; the transport itself is told nothing). Packets on
    /// their way to the old address still arrive if its link is up.
    fn move_receiver(&mut self, flow: u32, node: u32, addr: Addr) {
        let f = &self.flows[flow as usize];
        let (sender, receiver) = (f.sender as usize, f.receiver as usize);
        self.agents[receiver].node = node;
        self.agents[receiver].addr = addr;
        self.agents[sender].peer_addr = addr;
        self.service(receiver);
    }

    /// Runs to the end of the scenario and reports.
    pub fn run(mut self) -> RunOutput {
        for (i, f) in self.spec.flows.iter().enumerate() {
            self.net.events.push(
                Instant::ZERO + f.start,
                EventKind::FlowStart { flow: i as u32 },
            );
        }
        for (i, s) in self.spec.schedule.iter().enumerate() {
            self.net.events.push(
                Instant::ZERO + s.at,
                EventKind::Schedule { index: i as u32 },
            );
        }
        for c in 0..self.net.channels.len() {
            let d = self.net.channels[c].sojourn();
            self.net
                .events
                .push(Instant::ZERO + d, EventKind::Channel { channel: c as u32 });
        }
        if !self.spec.sample_interval.is_zero() {
            self.net
                .events
                .push(Instant::ZERO + self.spec.sample_interval, EventKind::Sample);
        }
        while let Some((t, ev)) = self.net.events.pop_until(self.end) {
            self.net.now = t;
            self.dispatch(ev);
        }
        self.net.now = self.end;
        let captures = self.finish_captures();
        RunOutput {
            captures,
            ..self.report()
        }
    }

    fn dispatch(&mut self, ev: EventKind) {
        match ev {
            EventKind::Arrival { link, generation } => self.arrival(link, generation),
            EventKind::Timer { agent } => self.timer(agent),
            EventKind::FlowStart { flow } => self.start_flow(flow),
            EventKind::Schedule { index } => self.apply_schedule(index),
            EventKind::Source { source } => self.on_off(source),
            EventKind::Path {
                agent,
                path,
                change,
            } => self.path_event(agent, path, change),
            EventKind::Channel { channel } => {
                let now = self.net.now;
                let ch = &mut self.net.channels[channel as usize];
                ch.toggle(now);
                let bad = ch.bad;
                let d = ch.sojourn();
                self.net
                    .events
                    .push(now + d, EventKind::Channel { channel });
                self.channel_changed(channel, bad);
            }
            EventKind::Beacon { node } => self.beacon(node),
            EventKind::Move { flow, node, addr } => self.move_receiver(flow, node, Addr(addr)),
            EventKind::Sample => {
                let t = self.net.now.as_secs_f64();
                for i in 0..self.flows.len() {
                    let delivered = self.delivered(i);
                    self.series.push(SeriesPoint {
                        t,
                        flow: i as u32,
                        delivered,
                    });
                    let started = self.spec.flows[i].start <= self.net.now - Instant::ZERO;
                    let f = &self.flows[i];
                    if started && f.completed_at.is_none() {
                        let cwnd = self.agents[f.sender as usize]
                            .endpoint
                            .as_ref()
                            .map_or(0, |ep| ep.stats().cwnd);
                        let span = f.proxy.and_then(|p| {
                            Some(
                                self.agents[p as usize]
                                    .endpoint
                                    .as_ref()?
                                    .stats()
                                    .resequencing_span,
                            )
                        });
                        let f = &mut self.flows[i];
                        if cwnd > 0 {
                            f.cwnd_samples = (f.cwnd_samples.0 + cwnd, f.cwnd_samples.1 + 1);
                        }
                        if let Some(span) = span {
                            f.span_samples = (f.span_samples.0 + span, f.span_samples.1 + 1);
                        }
                    }
                    let rx = self.flows[i].receiver as usize;
                    if let Some(ep) = &self.agents[rx].endpoint {
                        for ps in ep.path_stats() {
                            self.pipe_series.push(PipePoint {
                                t,
                                flow: i as u32,
                                path: ps.path.0,
                                delivered: ps.delivered,
                            });
                        }
                    }
                }
                let next = self.net.now + self.spec.sample_interval;
                self.net.events.push(next, EventKind::Sample);
            }
        }
    }

    fn arrival(&mut self, l: u32, generation: u32) {
        let link = &mut self.net.links[l as usize];
        if link.generation != generation {
            return;
        }
        let rate = match link.loss {
            LossModel::GilbertElliott(c) => self.net.channels[c as usize].loss_rate(),
            _ => 0.0,
        };
        let to = link.to;
        let Some((outcome, next)) = link.arrive(rate) else {
            return;
        };
        if let Some(at) = next {
            self.net.events.push(
                at,
                EventKind::Arrival {
                    link: l,
                    generation,
                },
            );
        }
        if self.sleep[to as usize].since.is_some() {
            // The host's radio is asleep: the frame is lost, unheard.
            let link = &mut self.net.links[l as usize];
            link.stats.drops_asleep += 1;
            let p = match outcome {
                Ok(p) | Err(p) => p,
            };
            let airtime = link.rate.transmission_time(u64::from(p.wire_len));
            self.sleep[to as usize].rx_asleep += airtime;
            self.net.recycle(p.data);
            return;
        }
        match outcome {
            Ok(p) => {
                self.tap(l, &p);
                if self.net.iface_node[p.dst.0 as usize] == to {
                    self.deliver(p);
                } else {
                    self.net.forward(to, p);
                }
            }
            Err(p) => {
                // The host's own wireless link lost a packet addressed to it:
                // the link layer tells the transport (the ELN oracle).
                let agent = p.dst_agent as usize;
                if self.net.iface_node[p.dst.0 as usize] == to {
                    // The path it came on, for a multi-path agent.
                    let path = self.agents[agent].path_of(&p);
                    if let Some(ep) = self.agents[agent].endpoint.as_mut() {
                        let now = self.net.now;
                        ep.handle_event(
                            now,
                            HostEvent::WirelessLoss {
                                path: PathId(path),
                                datagram: p.data,
                            },
                        );
                        self.service(agent);
                        return;
                    }
                }
                self.net.recycle(p.data);
            }
        }
    }

    /// True when `node` models energy and every endpoint on it copes with a
    /// sleeping interface (a TCP endpoint does not: TCP keeps it awake).
    fn may_sleep(&self, node: u32) -> bool {
        let mut agents = self.agents.iter().filter(|a| a.node == node).peekable();
        self.spec.energy.iter().any(|&(n, _)| n == node)
            && agents.peek().is_some()
            && agents.all(|a| a.endpoint.as_ref().is_some_and(|e| e.tolerates_sleep()))
    }

    /// Tells every endpoint with a path through interface `node` of
    /// `event`, made for that path (a multi-path agent hears it on the path
    /// whose interface it is, not on its first).
    fn notify_node(&mut self, node: u32, event: fn(PathId) -> HostEvent) {
        let now = self.net.now;
        for i in 0..self.agents.len() {
            let paths = self.paths_through(i, node, node);
            if paths.is_empty() {
                continue;
            }
            if let Some(ep) = self.agents[i].endpoint.as_mut() {
                for (path, _) in paths {
                    ep.handle_event(now, event(path));
                }
            }
            self.service(i);
        }
    }

    /// §3.4.4: a host that may sleep does so as soon as its channel turns
    /// bad, and looks at the channel again at each beacon.
    fn channel_changed(&mut self, channel: u32, bad: bool) {
        let now = self.net.now;
        for node in 0..self.sleep.len() as u32 {
            if self.sleep[node as usize].channel != Some(channel) || !self.may_sleep(node) {
                continue;
            }
            let asleep = self.sleep[node as usize].since.is_some();
            if bad && !asleep {
                self.sleep[node as usize].since = Some(now);
                self.notify_node(node, |path| HostEvent::InterfaceAsleep { path });
            } else if !bad && asleep {
                let k = now.as_nanos() / BEACON_INTERVAL.as_nanos() + 1;
                let at = Instant::from_nanos(k * BEACON_INTERVAL.as_nanos());
                self.net.events.push(at, EventKind::Beacon { node });
            }
        }
    }

    fn beacon(&mut self, node: u32) {
        let now = self.net.now;
        let s = &self.sleep[node as usize];
        let (Some(since), Some(c)) = (s.since, s.channel) else {
            return;
        };
        if self.net.channels[c as usize].bad {
            return; // still bad: sleep on until the channel changes again
        }
        let s = &mut self.sleep[node as usize];
        s.since = None;
        s.total += now - since;
        s.beacons += beacons_in(since, now);
        self.notify_node(node, |path| HostEvent::InterfaceAwake { path });
    }

    fn deliver(&mut self, p: Packet) {
        let agent = p.dst_agent as usize;
        let now = self.net.now;
        let path = self.agents[agent].path_of(&p);
        match self.agents[agent].endpoint.as_mut() {
            Some(ep) => {
                ep.handle_datagram(now, PathId(path), &p.data);
                self.net.recycle(p.data);
                self.service(agent);
            }
            None => {
                let f = &mut self.flows[self.agents[agent].flow as usize];
                f.udp_bytes += u64::from(p.wire_len.saturating_sub(self.net.overhead));
                self.net.recycle(p.data);
            }
        }
    }

    /// After any input to an agent's endpoint: feed the application, send
    /// what the endpoint wants to send, read what it delivered, re-arm its
    /// timer (the call order of the driver contract).
    fn service(&mut self, i: usize) {
        let now = self.net.now;
        let a = &mut self.agents[i];
        let Some(ep) = a.endpoint.as_mut() else {
            return;
        };
        if let Some(src) = a.source.as_mut() {
            src.feed(ep.as_mut(), &mut self.scratch);
        }
        let mut unblocked = false;
        if let (Some(j), Some(r)) = (a.stripe, self.flows[a.flow as usize].reseq.as_mut()) {
            loop {
                let room = r.room(j as usize).min(self.read_buf.len());
                if room == 0 {
                    break;
                }
                let n = ep.read(&mut self.read_buf[..room]);
                if n == 0 {
                    break;
                }
                if r.push(j as usize, &self.read_buf[..n]) > 0 {
                    unblocked = true;
                }
            }
            if let (Some(r), Traffic::File(total)) = (
                &self.flows[a.flow as usize].reseq,
                self.spec.flows[a.flow as usize].traffic,
            ) {
                if r.sink.delivered >= total {
                    self.flows[a.flow as usize].completed_at.get_or_insert(now);
                }
            }
        }
        let mut progressed = unblocked;
        if let Some(sink) = a.sink.as_mut() {
            let before = sink.delivered;
            loop {
                let n = ep.read(&mut self.read_buf);
                if n == 0 {
                    break;
                }
                sink.consume(&self.read_buf[..n]);
            }
            progressed |= sink.delivered > before;
        }
        if progressed {
            self.flows[a.flow as usize].note_delivery(now);
        }
        transmit(&mut self.net, a, i, now);
        let ep = a.endpoint.as_mut().expect("served above");
        while let Some(ev) = ep.poll_app_event() {
            if ev == AppEvent::Closed && a.sink.is_some() {
                self.flows[a.flow as usize].completed_at.get_or_insert(now);
            }
        }
        if let Some(t) = ep.poll_timeout() {
            if a.timer_at.is_none_or(|s| t < s) {
                a.timer_at = Some(t);
                self.net
                    .events
                    .push(t.max(now), EventKind::Timer { agent: i as u32 });
            }
        }
        if unblocked {
            // The resequencing buffer drained: the flow's other connections
            // may be read again (a service pass is a timer event now).
            let flow = a.flow as usize;
            let f = &self.flows[flow];
            for &other in std::iter::once(&f.receiver).chain(&f.more_agents) {
                if other as usize != i && self.agents[other as usize].stripe.is_some() {
                    self.net.events.push(now, EventKind::Timer { agent: other });
                }
            }
        }
    }

    fn timer(&mut self, agent: u32) {
        let now = self.net.now;
        let a = &mut self.agents[agent as usize];
        if a.timer_at.is_some_and(|t| t <= now) {
            a.timer_at = None;
        }
        if let Some(ep) = a.endpoint.as_mut() {
            if ep.poll_timeout().is_some_and(|t| t <= now) {
                ep.handle_timeout(now);
            }
        }
        self.service(agent as usize);
    }

    fn start_flow(&mut self, flow: u32) {
        let f = &self.flows[flow as usize];
        let (sender, receiver) = (f.sender as usize, f.receiver as usize);
        if let Some(s) = f.source {
            self.on_off(s);
        }
        // Either end of a connection may open it.
        self.service(sender);
        self.service(receiver);
    }
}

/// Beacon instants (multiples of the beacon interval) in `(from, to]`.
fn beacons_in(from: Instant, to: Instant) -> u64 {
    let i = BEACON_INTERVAL.as_nanos();
    (to.as_nanos() / i).saturating_sub(from.as_nanos() / i)
}

/// Sends what agent `i`'s (`a`'s) endpoint has to send at `now`, each
/// datagram from the node and address of the path it names.
fn transmit(net: &mut Net, a: &mut Agent, i: usize, now: Instant) {
    let Some(ep) = a.endpoint.as_mut() else {
        return;
    };
    loop {
        let mut buf = net.free.pop().unwrap_or_default();
        match ep.poll_transmit(now, &mut buf) {
            Some(path) => {
                let b = a
                    .paths
                    .get(path.0 as usize)
                    .copied()
                    .unwrap_or(PathBinding {
                        node: a.node,
                        addr: a.addr,
                        peer_addr: a.peer_addr,
                        peer_agent: a.peer_agent,
                    });
                let p = Packet {
                    src: b.addr,
                    dst: b.peer_addr,
                    src_agent: i as u32,
                    dst_agent: b.peer_agent,
                    wire_len: buf.len() as u32 + net.overhead,
                    data: buf,
                };
                a.wire_bytes += u64::from(p.wire_len);
                net.forward(b.node, p);
            }
            None => {
                net.recycle(buf);
                break;
            }
        }
    }
}
