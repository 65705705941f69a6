//! Building the agents of each flow from its spec.

use super::*;

impl Simulator {
    /// Each flow whose receiving host has an interface at an end of a link
    /// that hands off counts that handoff among its own (for the handoff
    /// disruption in its report).
    pub(super) fn note_link_handoffs(&mut self) {
        for h in &self.spec.link_handoffs {
            let l = &self.spec.links[h.link as usize];
            for f in &mut self.flows {
                let rx = &self.agents[f.receiver as usize];
                let touches = |n: u32| n == l.a || n == l.b;
                if touches(rx.node) || rx.paths.iter().any(|p| touches(p.node)) {
                    f.handoffs.push(Instant::ZERO + h.at);
                    f.link_returns.push((Instant::ZERO + h.at + h.outage, None));
                }
            }
        }
        for f in &mut self.flows {
            f.handoffs.sort();
            f.handoffs.dedup();
        }
    }

    pub(super) fn build_flows(&mut self, node_addr: &[Option<Addr>]) {
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
            if let FlowProtocol::Ptcp(config) = &f.protocol {
                self.build_ptcp(i, f, *config, node_addr);
                continue;
            }
            if let FlowProtocol::Prism(config) = &f.protocol {
                self.build_prism(i, f, *config, node_addr);
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
                    FlowProtocol::Tcp(_) | FlowProtocol::Rcp(_) => {
                        let (tx, rx) = single_path(&f.protocol, i + 1, |tick| {
                            tick_offset(seed, &format!("flow:{i}:clock"), tick)
                        });
                        (
                            Some(tx),
                            Some(rx),
                            Some(app_source(f.traffic, salt)),
                            Some(Sink::new(salt)),
                        )
                    }
                    FlowProtocol::Udp => (None, None, None, None),
                    FlowProtocol::R2cp(_)
                    | FlowProtocol::Apps(_)
                    | FlowProtocol::Ptcp(_)
                    | FlowProtocol::Prism(_) => {
                        unreachable!("built above")
                    }
                };
            self.agents.push(Agent {
                source,
                ..Agent::new(f.from, src_addr, dst_addr, receiver, i, tx_ep)
            });
            self.agents.push(Agent {
                sink,
                ..Agent::new(f.to, dst_addr, src_addr, sender, i, rx_ep)
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
                source,
                ..FlowState::new(sender, receiver, handoffs)
            });
        }
        self.spec.flows = flows;
    }

    /// An R²CP flow: one multi-path receiver at `to` and one unchanged RCP
    /// sender per pipe, all serving the same content (replicas).
    pub(super) fn build_r2cp(
        &mut self,
        i: u32,
        f: &FlowSpec,
        config: R2cpConfig,
        node_addr: &[Option<Addr>],
    ) {
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
            sink: Some(Sink::new(salt)),
            paths,
            ..Agent::new(
                f.to,
                addr(f.pipes[0].via),
                addr(f.pipes[0].server),
                receiver + 1,
                i,
                Some(Box::new(R2cpReceiver::new(config))),
            )
        });
        let mut senders = Vec::new();
        for (p, pipe) in f.pipes.iter().enumerate() {
            let mut cfg = config.pipe;
            cfg.conn_id = R2cpConfig::pipe_conn_id(cfg.conn_id, PathId(p as u16));
            cfg.opener = radial_core::rcp::Opener::Receiver;
            senders.push(self.agents.len() as u32);
            self.agents.push(Agent {
                source: Some(app_source(f.traffic, salt)),
                ..Agent::new(
                    pipe.server,
                    addr(pipe.server),
                    addr(pipe.via),
                    receiver,
                    i,
                    Some(Box::new(RcpSender::new(cfg, PathId(0)))),
                )
            });
        }
        let handoffs = self.schedule_pipes(f, receiver);
        self.flows.push(FlowState {
            more_agents: senders[1..].to_vec(),
            ..FlowState::new(senders[0], receiver, handoffs)
        });
    }

    /// A pTCP flow: one multi-path sender at `from` (one path per pipe, the
    /// engine and its TCP-v pipes) and one multi-path receiver at `to`; the
    /// receiver opens and closes the pipes as their paths come and go.
    pub(super) fn build_ptcp(
        &mut self,
        i: u32,
        f: &FlowSpec,
        config: PtcpConfig,
        node_addr: &[Option<Addr>],
    ) {
        let seed = self.spec.seed;
        let salt = Rng::stream(seed, &format!("flow:{i}:pattern")).next_u64();
        let sender = self.agents.len() as u32;
        let receiver = sender + 1;
        let mut config = config;
        config.tcp.conn_id = (i + 1) << 4;
        config.tcp.rtt.tick_offset =
            tick_offset(seed, &format!("flow:{i}:clock"), config.tcp.rtt.tick);
        let addr = |n: u32| node_addr[n as usize].expect("validated: node has a link");
        let binding = |node: u32, peer: u32, peer_agent: u32| PathBinding {
            node,
            addr: addr(node),
            peer_addr: addr(peer),
            peer_agent,
        };
        let tx_paths = f
            .pipes
            .iter()
            .map(|p| binding(p.server, p.via, receiver))
            .collect();
        let rx_paths = f
            .pipes
            .iter()
            .map(|p| binding(p.via, p.server, sender))
            .collect();
        self.agents.push(Agent {
            source: Some(app_source(f.traffic, salt)),
            paths: tx_paths,
            ..Agent::new(
                f.from,
                addr(f.from),
                addr(f.pipes[0].via),
                receiver,
                i,
                Some(Box::new(PtcpSender::new(config))),
            )
        });
        self.agents.push(Agent {
            sink: Some(Sink::new(salt)),
            paths: rx_paths,
            ..Agent::new(
                f.to,
                addr(f.pipes[0].via),
                addr(f.from),
                sender,
                i,
                Some(Box::new(PtcpReceiver::new(config))),
            )
        });
        let handoffs = self.schedule_pipes(f, receiver);
        self.flows.push(FlowState::new(sender, receiver, handoffs));
    }

    /// The pipes' openings, closings and drops as path events for the
    /// receiving agent; returns the handoff times (changes after the
    /// flow's start).
    pub(super) fn schedule_pipes(&mut self, f: &FlowSpec, receiver: u32) -> Vec<Instant> {
        let mut handoffs = Vec::new();
        for (p, pipe) in f.pipes.iter().enumerate() {
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
        handoffs
    }

    /// An `apps` flow: one RCP connection per pipe, the stream striped over
    /// them by chunks of one segment, resequenced at the receiving
    /// application in a buffer of the receive window's size.
    pub(super) fn build_apps(
        &mut self,
        i: u32,
        f: &FlowSpec,
        config: RcpConfig,
        node_addr: &[Option<Addr>],
    ) {
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
                source: Some(Source::striped(salt, total, k, j as u64, chunk)),
                ..Agent::new(
                    pipe.server,
                    addr(pipe.server),
                    addr(pipe.via),
                    receiver,
                    i,
                    Some(Box::new(RcpSender::new(cfg, PathId(0)))),
                )
            });
            self.agents.push(Agent {
                stripe: Some(j as u16),
                ..Agent::new(
                    pipe.via,
                    addr(pipe.via),
                    addr(pipe.server),
                    sender,
                    i,
                    Some(Box::new(RcpReceiver::new(cfg, PathId(0)))),
                )
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
            more_agents: agents[1..].iter().flat_map(|&(s, r)| [s, r]).collect(),
            reseq: Some(Resequencer::new(salt, k, chunk, config.rwnd_bytes())),
            ..FlowState::new(agents[0].0, agents[0].1, Vec::new())
        });
    }
}

/// Where within its timer tick an endpoint's clock starts, drawn per
/// endpoint from stream `label` (ns-2's agents do not tick in phase).
pub(super) fn tick_offset(seed: u64, label: &str, tick: Duration) -> Duration {
    let mut clock = Rng::stream(seed, label);
    Duration::from_nanos((clock.uniform() * tick.as_nanos() as f64) as u64)
}
/// The application at the sending end of a transport flow.
pub(super) fn app_source(traffic: Traffic, salt: u64) -> Source {
    match traffic {
        Traffic::Bulk => Source::new(salt, None),
        Traffic::File(n) => Source::new(salt, Some(n)),
        Traffic::OnOff(_) => Source::open_ended(salt),
    }
}

/// A TCP or RCP flow's sender and receiver, with connection id `conn_id`
/// and the timer ticks offset as `clock` says for a tick of that length.
fn single_path(
    protocol: &FlowProtocol,
    conn_id: u32,
    clock: impl Fn(Duration) -> Duration,
) -> (BoxedEndpoint, BoxedEndpoint) {
    match protocol {
        FlowProtocol::Tcp(config) => {
            let mut c = *config;
            (c.conn_id, c.rtt.tick_offset) = (conn_id, clock(c.rtt.tick));
            (
                Box::new(TcpSender::new(c, PathId(0))),
                Box::new(TcpReceiver::new(c, PathId(0))),
            )
        }
        FlowProtocol::Rcp(config) => {
            let mut c = *config;
            (c.conn_id, c.rtt.tick_offset) = (conn_id, clock(c.rtt.tick));
            (
                Box::new(RcpSender::new(c, PathId(0))),
                Box::new(RcpReceiver::new(c, PathId(0))),
            )
        }
        _ => panic!("single_path: not a single-path protocol"),
    }
}
