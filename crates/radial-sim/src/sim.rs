//! The simulator: builds the network of a [`RunSpec`], drives every endpoint
//! through the sans-IO driver contract, and reports.

use radial_core::r2cp::{R2cpConfig, R2cpReceiver};
use radial_core::rcp::{RcpConfig, RcpReceiver, RcpSender};
use radial_core::tcp::{TcpReceiver, TcpSender};
use radial_core::{AppEvent, Duration, Endpoint, HostEvent, Instant, PathId};

use crate::app::{Resequencer, Sink, Source};
use crate::channel::{GilbertElliott, LossModel};
use crate::event::{EventKind, EventQueue, PathChange};
use crate::link::Link;
use crate::metrics::{
    Aggregate, FlowReport, LinkReport, NodeReport, PipePoint, SeriesPoint, Summary,
};
use crate::packet::{Addr, Packet};
use crate::rng::Rng;
use crate::routing::Routing;
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
}

impl Simulator {
    /// Builds the network and agents of `spec`.
    pub fn new(spec: RunSpec) -> Self {
        let seed = spec.seed;
        let mut links = Vec::with_capacity(spec.links.len() * 2);
        let mut iface_node = Vec::with_capacity(spec.links.len() * 2);
        let mut node_addr: Vec<Option<Addr>> = vec![None; spec.nodes.len()];
        for l in &spec.links {
            for (dir, from, to, rate, loss) in [
                ("fwd", l.a, l.b, l.rate_forward, l.loss_forward),
                ("rev", l.b, l.a, l.rate_reverse, l.loss_reverse),
            ] {
                let model = match loss {
                    LossSpec::None => LossModel::None,
                    LossSpec::Bernoulli(p) => LossModel::Bernoulli(p),
                    LossSpec::GilbertElliott(c) => LossModel::GilbertElliott(c),
                };
                let rng = Rng::stream(seed, &format!("link:{}:{dir}:loss", l.name));
                links.push(Link::new(
                    l.name.clone(),
                    from,
                    to,
                    rate,
                    l.delay,
                    l.queue,
                    model,
                    rng,
                ));
                // The interface at the sending end of this direction.
                let addr = Addr(iface_node.len() as u32);
                iface_node.push(from);
                node_addr[from as usize].get_or_insert(addr);
            }
        }
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
            spec,
        };
        sim.build_flows(&node_addr);
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

    fn build_flows(&mut self, node_addr: &[Option<Addr>]) {
        let seed = self.spec.seed;
        let flows = std::mem::take(&mut self.spec.flows);
        for (i, f) in flows.iter().enumerate() {
            let i = i as u32;
            if let FlowProtocol::R2cp(config) = &f.protocol {
                self.build_r2cp(i, f, *config, node_addr);
                continue;
            }
            if let FlowProtocol::Apps(config) = &f.protocol {
                self.build_apps(i, f, *config, node_addr);
                continue;
            }
            let (src_addr, dst_addr) = (
                node_addr[f.from as usize].expect("validated: node has a link"),
                node_addr[f.to as usize].expect("validated: node has a link"),
            );
            let sender = self.agents.len() as u32;
            let receiver = sender + 1;
            let salt = Rng::stream(seed, &format!("flow:{i}:pattern")).next_u64();
            let (tx_ep, rx_ep, source, sink): (Option<BoxedEndpoint>, Option<BoxedEndpoint>, _, _) =
                match &f.protocol {
                    FlowProtocol::Tcp(config) => {
                        let mut config = *config;
                        config.conn_id = i + 1;
                        config.rtt.tick_offset =
                            tick_offset(seed, &format!("flow:{i}:clock"), config.rtt.tick);
                        (
                            Some(Box::new(TcpSender::new(config, PathId(0)))),
                            Some(Box::new(TcpReceiver::new(config, PathId(0)))),
                            Some(app_source(f.traffic, salt)),
                            Some(Sink::new(salt)),
                        )
                    }
                    FlowProtocol::Rcp(config) => {
                        let mut config = *config;
                        config.conn_id = i + 1;
                        config.rtt.tick_offset =
                            tick_offset(seed, &format!("flow:{i}:clock"), config.rtt.tick);
                        (
                            Some(Box::new(RcpSender::new(config, PathId(0)))),
                            Some(Box::new(RcpReceiver::new(config, PathId(0)))),
                            Some(app_source(f.traffic, salt)),
                            Some(Sink::new(salt)),
                        )
                    }
                    FlowProtocol::Udp => (None, None, None, None),
                    FlowProtocol::R2cp(_) | FlowProtocol::Apps(_) => unreachable!("built above"),
                };
            self.agents.push(Agent {
                node: f.from,
                addr: src_addr,
                peer_addr: dst_addr,
                peer_agent: receiver,
                flow: i,
                endpoint: tx_ep,
                source,
                sink: None,
                timer_at: None,
                paths: Vec::new(),
                stripe: None,
            });
            self.agents.push(Agent {
                node: f.to,
                addr: dst_addr,
                peer_addr: src_addr,
                peer_agent: sender,
                flow: i,
                endpoint: rx_ep,
                source: None,
                sink,
                timer_at: None,
                paths: Vec::new(),
                stripe: None,
            });
            let source = if let Traffic::OnOff(spec) = f.traffic {
                self.sources.push(OnOff {
                    spec,
                    agent: sender,
                    rng: Rng::stream(seed, &format!("flow:{i}:onoff")),
                    on_until: None,
                });
                Some(self.sources.len() as u32 - 1)
            } else {
                None
            };
            let mut handoffs = Vec::new();
            for &(at, node) in &f.handoffs {
                let addr = node_addr[node as usize].expect("validated: node has a link");
                let at = Instant::ZERO + at;
                self.net.events.push(
                    at,
                    EventKind::Move {
                        flow: i,
                        node,
                        addr: addr.0,
                    },
                );
                handoffs.push(at);
            }
            self.flows.push(FlowState {
                sender,
                receiver,
                source,
                udp_bytes: 0,
                udp_sent: 0,
                completed_at: None,
                more_agents: Vec::new(),
                last_delivery: None,
                max_gap: (Duration::ZERO, Instant::ZERO),
                handoffs,
                handoff_gap: None,
                pre_handoff_gaps: Vec::new(),
                reseq: None,
            });
        }
        self.spec.flows = flows;
    }

    /// An R²CP flow: one multi-path receiver at `to` and one unchanged RCP
    /// sender per pipe, all serving the same content (replicas).
    fn build_r2cp(&mut self, i: u32, f: &FlowSpec, config: R2cpConfig, node_addr: &[Option<Addr>]) {
        let seed = self.spec.seed;
        let salt = Rng::stream(seed, &format!("flow:{i}:pattern")).next_u64();
        let receiver = self.agents.len() as u32;
        let mut config = config;
        config.pipe.conn_id = i + 1;
        config.pipe.rtt.tick_offset =
            tick_offset(seed, &format!("flow:{i}:clock"), config.pipe.rtt.tick);
        let addr = |n: u32| node_addr[n as usize].expect("validated: node has a link");
        let paths: Vec<PathBinding> = f
            .pipes
            .iter()
            .enumerate()
            .map(|(p, pipe)| PathBinding {
                node: pipe.via,
                addr: addr(pipe.via),
                peer_addr: addr(pipe.server),
                peer_agent: receiver + 1 + p as u32,
            })
            .collect();
        self.agents.push(Agent {
            node: f.to,
            addr: addr(f.pipes[0].via),
            peer_addr: addr(f.pipes[0].server),
            peer_agent: receiver + 1,
            flow: i,
            endpoint: Some(Box::new(R2cpReceiver::new(config))),
            source: None,
            sink: Some(Sink::new(salt)),
            timer_at: None,
            paths,
            stripe: None,
        });
        let mut senders = Vec::new();
        let mut handoffs = Vec::new();
        for (p, pipe) in f.pipes.iter().enumerate() {
            let mut cfg = config.pipe;
            cfg.conn_id = R2cpConfig::pipe_conn_id(cfg.conn_id, PathId(p as u16));
            cfg.opener = radial_core::rcp::Opener::Receiver;
            senders.push(self.agents.len() as u32);
            self.agents.push(Agent {
                node: pipe.server,
                addr: addr(pipe.server),
                peer_addr: addr(pipe.via),
                peer_agent: receiver,
                flow: i,
                endpoint: Some(Box::new(RcpSender::new(cfg, PathId(0)))),
                source: Some(app_source(f.traffic, salt)),
                sink: None,
                timer_at: None,
                paths: Vec::new(),
                stripe: None,
            });
            let changes = [
                (Some(pipe.open), PathChange::Up),
                (pipe.close, PathChange::Close),
                (pipe.drop, PathChange::Drop),
            ];
            for (at, change) in changes {
                let Some(at) = at else { continue };
                self.net.events.push(
                    Instant::ZERO + at,
                    EventKind::Path {
                        agent: receiver,
                        path: p as u16,
                        change,
                    },
                );
                // A handoff: watch delivery around it (pipes opening with the
                // flow are its start, not a handoff).
                if change != PathChange::Up || at > f.start {
                    handoffs.push(Instant::ZERO + at);
                }
            }
        }
        handoffs.sort();
        self.flows.push(FlowState {
            sender: senders[0],
            receiver,
            source: None,
            udp_bytes: 0,
            udp_sent: 0,
            completed_at: None,
            more_agents: senders[1..].to_vec(),
            last_delivery: None,
            max_gap: (Duration::ZERO, Instant::ZERO),
            handoffs,
            handoff_gap: None,
            pre_handoff_gaps: Vec::new(),
            reseq: None,
        });
    }

    /// An `apps` flow: one RCP connection per pipe, the stream striped over
    /// them by chunks of one segment, resequenced at the receiving
    /// application in a buffer of the receive window's size.
    fn build_apps(&mut self, i: u32, f: &FlowSpec, config: RcpConfig, node_addr: &[Option<Addr>]) {
        let seed = self.spec.seed;
        let salt = Rng::stream(seed, &format!("flow:{i}:pattern")).next_u64();
        let addr = |n: u32| node_addr[n as usize].expect("validated: node has a link");
        let k = f.pipes.len() as u64;
        let chunk = config.mss;
        let total = match f.traffic {
            Traffic::File(n) => Some(n),
            _ => None,
        };
        let mut agents = Vec::new();
        for (j, pipe) in f.pipes.iter().enumerate() {
            let mut cfg = config;
            cfg.conn_id = R2cpConfig::pipe_conn_id(i + 1, PathId(j as u16));
            cfg.rtt.tick_offset = tick_offset(seed, &format!("flow:{i}:{j}:clock"), cfg.rtt.tick);
            let sender = self.agents.len() as u32;
            let receiver = sender + 1;
            self.agents.push(Agent {
                node: pipe.server,
                addr: addr(pipe.server),
                peer_addr: addr(pipe.via),
                peer_agent: receiver,
                flow: i,
                endpoint: Some(Box::new(RcpSender::new(cfg, PathId(0)))),
                source: Some(Source::striped(salt, total, k, j as u64, chunk)),
                sink: None,
                timer_at: None,
                paths: Vec::new(),
                stripe: None,
            });
            self.agents.push(Agent {
                node: pipe.via,
                addr: addr(pipe.via),
                peer_addr: addr(pipe.server),
                peer_agent: sender,
                flow: i,
                endpoint: Some(Box::new(RcpReceiver::new(cfg, PathId(0)))),
                source: None,
                sink: None,
                timer_at: None,
                paths: Vec::new(),
                stripe: Some(j as u16),
            });
            agents.push((sender, receiver));
            // Connections after the first start at their pipe's opening.
            if j > 0 {
                self.net.events.push(
                    Instant::ZERO + pipe.open,
                    EventKind::Timer { agent: receiver },
                );
            }
        }
        self.flows.push(FlowState {
            sender: agents[0].0,
            receiver: agents[0].1,
            source: None,
            udp_bytes: 0,
            udp_sent: 0,
            completed_at: None,
            more_agents: agents[1..].iter().flat_map(|&(s, r)| [s, r]).collect(),
            last_delivery: None,
            max_gap: (Duration::ZERO, Instant::ZERO),
            handoffs: Vec::new(),
            handoff_gap: None,
            pre_handoff_gaps: Vec::new(),
            reseq: Some(Resequencer::new(salt, k, chunk, config.rwnd_bytes())),
        });
    }

    /// A path of a multi-path agent comes up or goes away.
    fn path_event(&mut self, agent: u32, path: u16, change: PathChange) {
        let now = self.net.now;
        let a = agent as usize;
        let flow = self.agents[a].flow as usize;
        let controller = self.spec.flows[flow]
            .pipes
            .get(path as usize)
            .and_then(|p| p.controller);
        let via = self.spec.flows[flow].pipes[path as usize].via;
        let no_link = self.link_signalled_down(via);
        if let Some(ep) = self.agents[a].endpoint.as_mut() {
            let path = PathId(path);
            let ev = match change {
                PathChange::Up => HostEvent::PathUp { path, controller },
                PathChange::Close => HostEvent::PathClose { path },
                PathChange::Drop => HostEvent::PathDown { path },
            };
            ep.handle_event(now, ev);
            // A pipe opening on an interface the host knows has no link.
            if change == PathChange::Up && no_link {
                ep.handle_event(now, HostEvent::LinkDown { path });
            }
            // A new pipe whose predecessor hands over to it once it is ready.
            if change == PathChange::Up && path.0 > 0 {
                let before = &self.spec.flows[flow].pipes[path.0 as usize - 1];
                if before.handoff_to_next {
                    ep.handle_event(
                        now,
                        HostEvent::PathHandoff {
                            from: PathId(path.0 - 1),
                            to: path,
                        },
                    );
                }
            }
        }
        self.service(a);
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
        self.report()
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
                    if let Some(ep) = self.agents[agent].endpoint.as_mut() {
                        let now = self.net.now;
                        ep.handle_event(
                            now,
                            HostEvent::WirelessLoss {
                                path: PathId(0),
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

    fn notify_node(&mut self, node: u32, event: &HostEvent) {
        let now = self.net.now;
        for i in 0..self.agents.len() {
            if self.agents[i].node != node {
                continue;
            }
            if let Some(ep) = self.agents[i].endpoint.as_mut() {
                ep.handle_event(now, event.clone());
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
                self.notify_node(node, &HostEvent::InterfaceAsleep { path: PathId(0) });
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
        self.notify_node(node, &HostEvent::InterfaceAwake { path: PathId(0) });
    }

    fn deliver(&mut self, p: Packet) {
        let agent = p.dst_agent as usize;
        let now = self.net.now;
        let path = self.agents[agent]
            .paths
            .iter()
            .position(|b| b.addr == p.dst && b.peer_addr == p.src)
            .unwrap_or(0);
        match self.agents[agent].endpoint.as_mut() {
            Some(ep) => {
                ep.handle_datagram(now, PathId(path as u16), &p.data);
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
            // The transport may have skipped ahead (a replica joining a
            // transfer): the application seeks there, as a file server would.
            if let Some(o) = ep.write_offset() {
                if o > src.written {
                    src.written = src.limit.map_or(o, |l| o.min(l));
                }
            }
            while !src.done() {
                let room = ep.send_capacity();
                if room == 0 {
                    break;
                }
                let n = ep.write(src.next_chunk(room, &mut self.scratch));
                src.written += n as u64;
                if n == 0 {
                    break;
                }
            }
            if src.finished() && !src.closed {
                src.closed = true;
                ep.close();
            }
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
        {
            if progressed {
                let f = &mut self.flows[a.flow as usize];
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
            }
        }
        loop {
            let mut buf = self.net.free.pop().unwrap_or_default();
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
                        dst_agent: b.peer_agent,
                        wire_len: buf.len() as u32 + self.net.overhead,
                        data: buf,
                    };
                    self.net.forward(b.node, p);
                }
                None => {
                    self.net.recycle(buf);
                    break;
                }
            }
        }
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

    /// One step of a Pareto on/off source: emit a datagram while on, toggle
    /// at the end of each period.
    fn on_off(&mut self, s: u32) {
        let now = self.net.now;
        let src = &mut self.sources[s as usize];
        let spec = src.spec;
        let until = match src.on_until {
            Some(u) if now < u => u,
            Some(_) => {
                // On period over: stay off for a Pareto-distributed time.
                src.on_until = None;
                let off = src.rng.pareto(spec.off.as_secs_f64(), spec.shape);
                self.net.events.push(
                    now + Duration::from_secs_f64(off),
                    EventKind::Source { source: s },
                );
                return;
            }
            None => {
                let on = src.rng.pareto(spec.on.as_secs_f64(), spec.shape);
                let u = now + Duration::from_secs_f64(on);
                src.on_until = Some(u);
                u
            }
        };
        let agent = &mut self.agents[src.agent as usize];
        if let Some(app) = agent.source.as_mut() {
            // An on/off application over a transport: it offers one
            // datagram's worth of bytes per step.
            app.offer(u64::from(spec.packet_size));
            let a = src.agent as usize;
            let gap = spec.rate.transmission_time(u64::from(spec.packet_size));
            self.net
                .events
                .push((now + gap).min(until), EventKind::Source { source: s });
            self.service(a);
            return;
        }
        let wire_len = spec.packet_size + self.net.overhead;
        let p = Packet {
            src: agent.addr,
            dst: agent.peer_addr,
            dst_agent: agent.peer_agent,
            wire_len,
            data: Vec::new(),
        };
        let node = agent.node;
        let flow = agent.flow as usize;
        self.flows[flow].udp_sent += 1;
        self.net.forward(node, p);
        let gap = spec.rate.transmission_time(u64::from(wire_len));
        let next = (now + gap).min(until);
        self.net.events.push(next, EventKind::Source { source: s });
    }

    /// True when a link at `node` went down with a signal to the hosts and
    /// has not come back.
    fn link_signalled_down(&self, node: u32) -> bool {
        self.spec
            .links
            .iter()
            .zip(&self.signalled_down)
            .any(|(l, &down)| down && (l.a == node || l.b == node))
    }

    /// Tells every multi-path receiver with a pipe through an end of `link`
    /// that the interface lost (or regained) its link.
    fn signal_link(&mut self, link: u32, up: bool) {
        let now = self.net.now;
        let (a, b) = {
            let l = &self.spec.links[link as usize];
            (l.a, l.b)
        };
        self.signalled_down[link as usize] = !up;
        for i in 0..self.agents.len() {
            let hits: Vec<PathId> = self.agents[i]
                .paths
                .iter()
                .enumerate()
                .filter(|(_, p)| p.node == a || p.node == b)
                .map(|(j, _)| PathId(j as u16))
                .collect();
            if hits.is_empty() {
                continue;
            }
            // A path is back only when no other signalled link of its
            // interface is still down.
            let nodes: Vec<u32> = hits
                .iter()
                .map(|p| self.agents[i].paths[p.0 as usize].node)
                .collect();
            let still_down: Vec<bool> =
                nodes.iter().map(|&n| self.link_signalled_down(n)).collect();
            let Some(ep) = self.agents[i].endpoint.as_mut() else {
                continue;
            };
            for (path, down) in hits.into_iter().zip(still_down) {
                let ev = if up && !down {
                    HostEvent::LinkUp { path }
                } else if !up {
                    HostEvent::LinkDown { path }
                } else {
                    continue;
                };
                ep.handle_event(now, ev);
            }
            self.service(i);
        }
    }

    fn apply_schedule(&mut self, index: u32) {
        let now = self.net.now;
        let s = self.spec.schedule[index as usize].clone();
        self.change_link(now, &s);
        if s.signal {
            // The link changes first, then the hosts hear of it.
            self.signal_link(s.link, s.action == LinkAction::Up);
        }
    }

    fn change_link(&mut self, now: Instant, s: &ScheduleSpec) {
        let dirs: &[u32] = match s.direction {
            Direction::Forward => &[0],
            Direction::Reverse => &[1],
            Direction::Both => &[0, 1],
        };
        for &d in dirs {
            let l = (s.link * 2 + d) as usize;
            match s.action {
                LinkAction::Down => {
                    for p in self.net.links[l].go_down() {
                        self.net.recycle(p.data);
                    }
                }
                LinkAction::Up => self.net.links[l].go_up(),
                LinkAction::Rate(r) => {
                    let link = &mut self.net.links[l];
                    let delay = link.delay;
                    link.reconfigure(now, r, delay);
                }
                LinkAction::Delay(d) => {
                    let link = &mut self.net.links[l];
                    let rate = link.rate;
                    link.reconfigure(now, rate, d);
                }
            }
        }
    }

    fn delivered(&self, flow: usize) -> u64 {
        let f = &self.flows[flow];
        if let Some(r) = &f.reseq {
            return r.sink.delivered;
        }
        match &self.agents[f.receiver as usize].sink {
            Some(s) => s.delivered,
            None => f.udp_bytes,
        }
    }

    /// The longest delivery gap and the handoff disruption of a flow,
    /// counting the stall that lasts to the end of the run when a flow that
    /// always had data to deliver (bulk or a file not finished) is stalled
    /// then: from its last in-order delivery, or from its start if nothing
    /// was delivered.
    fn gaps_to_end(&self, fs: &FlowSpec, f: &FlowState) -> ((Duration, Instant), Option<Duration>) {
        let (mut max_gap, mut handoff_gap) = (f.max_gap, f.handoff_gap);
        let stalls = matches!(fs.traffic, Traffic::Bulk | Traffic::File(_))
            && !matches!(fs.protocol, FlowProtocol::Udp)
            && f.completed_at.is_none();
        let start = Instant::ZERO + fs.start;
        if !stalls || start >= self.end {
            return (max_gap, handoff_gap);
        }
        let last = f.last_delivery.unwrap_or(start);
        let gap = self.end - last;
        if gap > max_gap.0 {
            max_gap = (gap, last);
        }
        if f.handoffs
            .iter()
            .any(|&h| last <= h + HANDOFF_WATCH && self.end >= h)
        {
            handoff_gap = Some(handoff_gap.map_or(gap, |g| g.max(gap)));
        }
        (max_gap, handoff_gap)
    }

    fn report(self) -> RunOutput {
        let duration = self.spec.duration.as_secs_f64();
        let mut flows = Vec::new();
        let mut reliable = Vec::new();
        for (i, (fs, f)) in self.spec.flows.iter().zip(&self.flows).enumerate() {
            let delivered = self.delivered(i);
            let goodput = delivered as f64 * 8.0 / duration / 1e6;
            let (mut retransmits, mut timeouts, mut fast, mut sent) = (0, 0, 0, f.udp_sent);
            let (mut arrivals, mut arrivals_75, mut duplicate) = (0, 0, 0);
            for &a in [f.sender, f.receiver].iter().chain(&f.more_agents) {
                if let Some(ep) = &self.agents[a as usize].endpoint {
                    let st = ep.stats();
                    // An R²CP sender answers nothing but pulls; the
                    // receiver counts the segments it requested again.
                    if !(matches!(fs.protocol, FlowProtocol::R2cp(_)) && a != f.receiver) {
                        retransmits += st.retransmits;
                    }
                    timeouts += st.timeouts;
                    fast += st.fast_recoveries;
                    sent += st.datagrams_sent;
                    arrivals += st.data_arrivals;
                    arrivals_75 += st.arrivals_buffer_75;
                    duplicate += st.duplicate_bytes;
                }
            }
            let (max_gap, handoff_gap) = self.gaps_to_end(fs, f);
            let corrupt = match &f.reseq {
                Some(r) => r.sink.corrupt,
                None => self.agents[f.receiver as usize]
                    .sink
                    .as_ref()
                    .map_or(0, |s| s.corrupt),
            };
            if !matches!(fs.protocol, FlowProtocol::Udp) {
                reliable.push(goodput);
            }
            flows.push(FlowReport {
                name: fs.name.clone(),
                protocol: fs.protocol.name().to_string(),
                from: self.spec.nodes[fs.from as usize].clone(),
                to: self.spec.nodes[fs.to as usize].clone(),
                start_s: fs.start.as_secs_f64(),
                goodput_mbps: goodput,
                bytes_delivered: delivered,
                corrupt_bytes: corrupt,
                retransmits,
                timeouts,
                fast_recoveries: fast,
                datagrams_sent: sent,
                completion_time_s: f
                    .completed_at
                    .map(|t| (t - (Instant::ZERO + fs.start)).as_secs_f64()),
                max_delivery_gap_s: max_gap.0.as_secs_f64(),
                max_delivery_gap_at_s: max_gap.1.as_secs_f64(),
                buffer_75_share: (arrivals > 0).then(|| arrivals_75 as f64 / arrivals as f64),
                duplicate_bytes: duplicate,
                handoff_disruption_s: handoff_gap.map(|g| g.as_secs_f64()),
                pre_handoff_median_gap_s: median(&f.pre_handoff_gaps).map(|g| g.as_secs_f64()),
                pipe_handshakes_s: self.agents[f.receiver as usize].endpoint.as_ref().map_or(
                    Vec::new(),
                    |ep| {
                        ep.path_stats()
                            .iter()
                            .filter_map(|p| p.handshake)
                            .map(Duration::as_secs_f64)
                            .collect()
                    },
                ),
            });
        }
        let links = self
            .net
            .links
            .iter()
            .map(|l| LinkReport {
                name: l.name.clone(),
                direction: format!(
                    "{}->{}",
                    self.spec.nodes[l.from as usize], self.spec.nodes[l.to as usize]
                ),
                utilization: l.busy().as_secs_f64() / duration,
                stats: l.stats,
            })
            .collect();
        let nodes = self
            .spec
            .energy
            .iter()
            .map(|&(node, model)| {
                let busy = |dir: fn(&Link) -> u32| -> f64 {
                    self.net
                        .links
                        .iter()
                        .filter(|l| dir(l) == node)
                        .map(|l| l.busy().as_secs_f64())
                        .sum()
                };
                let sl = &self.sleep[node as usize];
                let (mut sleep, mut beacons) = (sl.total, sl.beacons);
                if let Some(since) = sl.since {
                    sleep += self.end - since;
                    beacons += beacons_in(since, self.end);
                }
                let sleep = sleep.as_secs_f64();
                let beacon = (BEACON_LISTEN.as_secs_f64() * beacons as f64).min(sleep);
                let tx = busy(|l| l.from);
                let rx = (busy(|l| l.to) - sl.rx_asleep.as_secs_f64()).max(0.0);
                let idle = (duration - tx - rx - sleep).max(0.0);
                let energy = model.tx * tx
                    + model.rx * (rx + beacon)
                    + model.sleep * (sleep - beacon)
                    + model.idle * idle;
                let delivered: u64 = self
                    .spec
                    .flows
                    .iter()
                    .enumerate()
                    .filter(|(_, f)| f.to == node)
                    .map(|(i, _)| self.delivered(i))
                    .sum();
                NodeReport {
                    name: self.spec.nodes[node as usize].clone(),
                    energy_j: energy,
                    tx_s: tx,
                    rx_s: rx,
                    idle_s: idle,
                    sleep_s: sleep,
                    energy_per_mb_j: (delivered > 0).then(|| energy / (delivered as f64 / 1e6)),
                }
            })
            .collect();
        RunOutput {
            summary: Summary {
                scenario: self.spec.name.clone(),
                seed: self.spec.seed,
                duration_s: duration,
                events: self.net.events.processed(),
                flows,
                aggregate: Aggregate::of(&reliable),
                links,
                nodes,
            },
            series: self.series,
            pipe_series: self.pipe_series,
        }
    }
}

/// Beacon instants (multiples of the beacon interval) in `(from, to]`.
fn beacons_in(from: Instant, to: Instant) -> u64 {
    let i = BEACON_INTERVAL.as_nanos();
    (to.as_nanos() / i).saturating_sub(from.as_nanos() / i)
}

/// Where within its timer tick an endpoint's clock starts, drawn per
/// endpoint from stream `label` (ns-2's agents do not tick in phase).
fn tick_offset(seed: u64, label: &str, tick: Duration) -> Duration {
    let mut clock = Rng::stream(seed, label);
    Duration::from_nanos((clock.uniform() * tick.as_nanos() as f64) as u64)
}

/// The application at the sending end of a transport flow.
fn app_source(traffic: Traffic, salt: u64) -> Source {
    match traffic {
        Traffic::Bulk => Source::new(salt, None),
        Traffic::File(n) => Source::new(salt, Some(n)),
        Traffic::OnOff(_) => Source::open_ended(salt),
    }
}

fn median(v: &[Duration]) -> Option<Duration> {
    let mut v = v.to_vec();
    v.sort();
    v.get(v.len() / 2).copied()
}
