//! Scheduled link changes, the link signals hosts hear, and the paths of
//! multi-path agents coming and going.

use super::*;

/// The links of `spec`, one per direction (forward first), with their
/// loss and RED random streams; the node at the sending end of each
/// direction (an interface), and each node's first interface address.
pub(super) fn build(spec: &RunSpec) -> (Vec<Link>, Vec<u32>, Vec<Option<Addr>>) {
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
            let mut link = Link::new(l.name.clone(), from, to, rate, l.delay, l.queue, model, rng);
            if let Some(params) = l.red {
                let rng = Rng::stream(seed, &format!("link:{}:{dir}:red", l.name));
                link.red = Some(Red::new(params, rng));
            }
            links.push(link);
            // The interface at the sending end of this direction.
            let addr = Addr(iface_node.len() as u32);
            iface_node.push(from);
            node_addr[from as usize].get_or_insert(addr);
        }
    }
    (links, iface_node, node_addr)
}

impl Simulator {
    /// True when a link at `node` went down with a signal to the hosts and
    /// has not come back.
    pub(super) fn link_signalled_down(&self, node: u32) -> bool {
        self.spec
            .links
            .iter()
            .zip(&self.signalled_down)
            .any(|(l, &down)| down && (l.a == node || l.b == node))
    }

    /// Tells every endpoint with a path through an end of `link` that the
    /// interface lost (or regained) its link, and, when it is back, the
    /// link's rate towards the host (a handoff hint).
    pub(super) fn signal_link(&mut self, link: u32, up: bool) {
        let now = self.net.now;
        let (a, b) = {
            let l = &self.spec.links[link as usize];
            (l.a, l.b)
        };
        self.signalled_down[link as usize] = !up;
        for i in 0..self.agents.len() {
            let (hits, nodes): (Vec<PathId>, Vec<u32>) =
                self.paths_through(i, a, b).into_iter().unzip();
            if hits.is_empty() {
                continue;
            }
            // A path is back only when no other signalled link of its
            // interface is still down.
            let still_down: Vec<bool> =
                nodes.iter().map(|&n| self.link_signalled_down(n)).collect();
            let Some(ep) = self.agents[i].endpoint.as_mut() else {
                continue;
            };
            for ((path, down), node) in hits.into_iter().zip(still_down).zip(nodes) {
                if up && !down {
                    ep.handle_event(now, HostEvent::LinkUp { path });
                    // The rate of the direction that reaches the host.
                    let d = if node == b { 0 } else { 1 };
                    let bandwidth = self.net.links[(link * 2 + d) as usize].rate;
                    ep.handle_event(now, HostEvent::HandoffHint { path, bandwidth });
                } else if !up {
                    ep.handle_event(now, HostEvent::LinkDown { path });
                }
            }
            self.service(i);
        }
    }

    /// Warns every endpoint with a path through an end of `link` that the
    /// link is about to go down.
    pub(super) fn warn_link(&mut self, link: u32) {
        let now = self.net.now;
        let (a, b) = {
            let l = &self.spec.links[link as usize];
            (l.a, l.b)
        };
        for i in 0..self.agents.len() {
            let hits = self.paths_through(i, a, b);
            let Some(ep) = self.agents[i].endpoint.as_mut() else {
                continue;
            };
            if hits.is_empty() {
                continue;
            }
            for (path, _) in hits {
                ep.handle_event(now, HostEvent::LinkWarning { path });
            }
            self.service(i);
        }
    }

    /// The paths of agent `i` whose interface is node `a` or `b`, with that
    /// node (a single-path agent's one path is its own node).
    pub(super) fn paths_through(&self, i: usize, a: u32, b: u32) -> Vec<(PathId, u32)> {
        let agent = &self.agents[i];
        if agent.paths.is_empty() {
            return if agent.node == a || agent.node == b {
                vec![(PathId(0), agent.node)]
            } else {
                Vec::new()
            };
        }
        agent
            .paths
            .iter()
            .enumerate()
            .filter(|(_, p)| p.node == a || p.node == b)
            .map(|(j, p)| (PathId(j as u16), p.node))
            .collect()
    }

    pub(super) fn apply_schedule(&mut self, index: u32) {
        let now = self.net.now;
        let s = self.spec.schedule[index as usize].clone();
        self.change_link(now, &s);
        if s.action == LinkAction::Warning {
            if s.signal {
                self.warn_link(s.link);
            }
        } else if s.signal {
            // The link changes first, then the hosts hear of it.
            self.signal_link(s.link, s.action == LinkAction::Up);
        }
    }

    pub(super) fn change_link(&mut self, now: Instant, s: &ScheduleSpec) {
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
                LinkAction::Warning => {}
            }
        }
    }

    /// A path of a multi-path agent comes up or goes away.
    pub(super) fn path_event(&mut self, agent: u32, path: u16, change: PathChange) {
        let now = self.net.now;
        let a = agent as usize;
        let flow = self.agents[a].flow as usize;
        let controller = self.spec.flows[flow]
            .pipes
            .get(path as usize)
            .and_then(|p| p.controller);
        let pipe = &self.spec.flows[flow].pipes[path as usize];
        let via = pipe.via;
        // The route: the host's interface and the pipe's server.
        let route = RouteId(u64::from(via) << 32 | u64::from(pipe.server));
        let no_link = self.link_signalled_down(via);
        if let Some(ep) = self.agents[a].endpoint.as_mut() {
            let path = PathId(path);
            let ev = match change {
                PathChange::Up => HostEvent::PathUp {
                    path,
                    controller,
                    route: Some(route),
                },
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
}
