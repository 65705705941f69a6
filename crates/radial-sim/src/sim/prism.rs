//! Building a PRISM flow: a TCP sender and receiver, the proxy's inverse
//! multiplexer between them, and a relay at each community member.

use radial_core::prism::{Imux, ImuxConfig, Relay};
use radial_core::tcp::{TcpReceiver, TcpSender};
use radial_core::PathId;

use super::build::{app_source, tick_offset};
use super::{Agent, FlowState, PathBinding, Simulator};
use crate::app::Sink;
use crate::packet::Addr;
use crate::rng::Rng;
use crate::spec::{FlowSpec, PrismFlow};

impl Simulator {
    /// A PRISM flow. The sender and the receiver address the proxy, which
    /// forwards each data segment over one member's link; a member that is
    /// not the receiver relays it over the community's WLAN. The
    /// receiver's acknowledgments go straight to the proxy, by the routes.
    pub(super) fn build_prism(
        &mut self,
        i: u32,
        f: &FlowSpec,
        config: PrismFlow,
        node_addr: &[Option<Addr>],
    ) {
        let seed = self.spec.seed;
        let salt = Rng::stream(seed, &format!("flow:{i}:pattern")).next_u64();
        let addr = |n: u32| node_addr[n as usize].expect("validated: node has a link");
        let mut tcp = config.tcp;
        tcp.conn_id = i + 1;
        tcp.rtt.tick_offset = tick_offset(seed, &format!("flow:{i}:clock"), tcp.rtt.tick);
        let sender = self.agents.len() as u32;
        let receiver = sender + 1;
        let imux = sender + 2;
        let proxy = config.proxy;
        self.agents.push(Agent {
            source: Some(app_source(f.traffic, salt)),
            ..Agent::new(
                f.from,
                addr(f.from),
                addr(proxy),
                imux,
                i,
                Some(Box::new(TcpSender::new(tcp, PathId(0)))),
            )
        });
        self.agents.push(Agent {
            sink: Some(Sink::new(salt)),
            ..Agent::new(
                f.to,
                addr(f.to),
                addr(proxy),
                imux,
                i,
                Some(Box::new(TcpReceiver::new(tcp, PathId(0)))),
            )
        });
        // Member k's link is the proxy's path k: to the receiver itself
        // when it is the member, else to the member's relay.
        let mut paths = Vec::new();
        let mut relays = Vec::new();
        let first_relay = imux + 1;
        for pipe in &f.pipes {
            let peer_agent = if pipe.via == f.to {
                receiver
            } else {
                relays.push(pipe.via);
                first_relay + relays.len() as u32 - 1
            };
            paths.push(PathBinding {
                node: proxy,
                addr: addr(proxy),
                peer_addr: addr(pipe.via),
                peer_agent,
            });
        }
        paths.push(PathBinding {
            node: proxy,
            addr: addr(proxy),
            peer_addr: addr(f.from),
            peer_agent: sender,
        });
        let imux_config = ImuxConfig {
            seed: Rng::stream(seed, &format!("flow:{i}:imux")).next_u64(),
            ..config.imux
        };
        self.agents.push(Agent {
            paths,
            ..Agent::new(
                proxy,
                addr(proxy),
                addr(f.from),
                sender,
                i,
                Some(Box::new(Imux::new(imux_config))),
            )
        });
        for via in relays {
            let at = |peer: u32, peer_agent: u32| PathBinding {
                node: via,
                addr: addr(via),
                peer_addr: addr(peer),
                peer_agent,
            };
            self.agents.push(Agent {
                paths: vec![at(proxy, imux), at(f.to, receiver)],
                ..Agent::new(
                    via,
                    addr(via),
                    addr(proxy),
                    imux,
                    i,
                    Some(Box::new(Relay::new())),
                )
            });
        }
        let handoffs = self.schedule_pipes(f, imux);
        let mut state = FlowState::new(sender, receiver, handoffs);
        state.proxy = Some(imux);
        self.flows.push(state);
    }
}
