//! Scheduled link changes and the link signals hosts hear.

use super::*;

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

    /// Tells every multi-path receiver with a pipe through an end of `link`
    /// that the interface lost (or regained) its link.
    pub(super) fn signal_link(&mut self, link: u32, up: bool) {
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

    pub(super) fn apply_schedule(&mut self, index: u32) {
        let now = self.net.now;
        let s = self.spec.schedule[index as usize].clone();
        self.change_link(now, &s);
        if s.signal {
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
            }
        }
    }
}
