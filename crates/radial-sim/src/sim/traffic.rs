//! Traffic without a transport of its own: Pareto on/off sources.

use super::*;

impl Simulator {
    /// One step of a Pareto on/off source: emit a datagram while on, toggle
    /// at the end of each period.
    pub(super) fn on_off(&mut self, s: u32) {
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
            src_agent: src.agent,
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
}
