//! The emulator's paths without their I/O: each direction of each path is
//! the simulator's own link ([`radial_link::link::Link`]) driven by the
//! wall clock, and a heap of the head packets' arrivals says what leaves
//! when. The loopback relays and the shell's TUN devices feed packets in
//! and send out what [`PathEngine::release`] hands back.

use std::collections::BinaryHeap;

use radial_core::{BitRate, Instant};
use radial_link::channel::{ClockedChannel, LossModel};
use radial_link::link::{DropCause, Link};
use radial_link::packet::{Addr, Packet};
use radial_link::rng::Rng;

use super::model::{EmuCommand, LinkModel, PathCounters, PathModel};

/// Which way a packet crosses a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Way {
    /// From the client (the mobile host) to the server.
    Up,
    /// From the server to the client.
    Down,
}

/// The arrival at the far end of the head packet of one direction of a
/// path, as scheduled when it became the head.
#[derive(Debug, PartialEq, Eq)]
struct Arrival {
    at: Instant,
    seq: u64,
    path: usize,
    way: Way,
    generation: u32,
}

impl Ord for Arrival {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        // Earliest first in a max-heap.
        (o.at, o.seq).cmp(&(self.at, self.seq))
    }
}

impl PartialOrd for Arrival {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

/// One direction of a path `model`, whose loss, if it has a channel, is the
/// path's channel number `channel`.
pub(super) fn direction(model: &LinkModel, channel: u32, seed: u64, label: &str) -> Link {
    let loss = match model.channel {
        Some(_) => LossModel::GilbertElliott(channel),
        None if model.loss > 0.0 => LossModel::Bernoulli(model.loss),
        None => LossModel::None,
    };
    Link::new(
        label.to_string(),
        0,
        1,
        BitRate::from_bps(model.rate_bps.max(1)),
        radial_core::Duration::from_nanos(model.delay.as_nanos() as u64),
        model.queue.max(2),
        loss,
        Rng::stream(seed, &format!("{label}:loss")),
    )
}

/// One path: its two directions and their Gilbert-Elliott channels.
pub(super) struct PathState {
    pub(super) up: Link,
    pub(super) down: Link,
    /// The channels its directions' losses follow (`LossModel::GilbertElliott`
    /// numbers them).
    pub(super) channels: Vec<ClockedChannel>,
    counters: PathCounters,
}

impl PathState {
    /// Path `i` of `model`.
    pub(super) fn new(i: usize, model: &PathModel, seed: u64) -> Self {
        let mut channels = Vec::new();
        let mut channel_of = |l: &LinkModel, dir: &str| {
            let Some(ge) = l.channel else { return 0 };
            if model.shared_channel && !channels.is_empty() {
                return 0;
            }
            let rng = Rng::stream(seed, &format!("path:{i}:{dir}:channel"));
            channels.push(ClockedChannel::new(ge.params(), rng));
            channels.len() as u32 - 1
        };
        let down_channel = channel_of(&model.down, "down");
        let up_channel = channel_of(&model.up, "up");
        PathState {
            up: direction(&model.up, up_channel, seed, &format!("path:{i}:up")),
            down: direction(&model.down, down_channel, seed, &format!("path:{i}:down")),
            channels,
            counters: PathCounters::default(),
        }
    }

    fn link(&mut self, way: Way) -> &mut Link {
        match way {
            Way::Up => &mut self.up,
            Way::Down => &mut self.down,
        }
    }
}

/// Every path of an emulator, and what is on its links.
pub struct PathEngine {
    paths: Vec<PathState>,
    heap: BinaryHeap<Arrival>,
    seq: u64,
}

impl PathEngine {
    /// The paths of `models`; `seed` drives their loss draws.
    pub fn new(models: &[PathModel], seed: u64) -> Self {
        PathEngine {
            paths: models
                .iter()
                .enumerate()
                .map(|(i, m)| PathState::new(i, m, seed))
                .collect(),
            heap: BinaryHeap::new(),
            seq: 0,
        }
    }

    /// How many paths.
    pub fn len(&self) -> usize {
        self.paths.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty()
    }

    /// Applies a change at `now`; a path that does not exist is ignored.
    pub fn apply(&mut self, now: Instant, c: EmuCommand) {
        match c {
            EmuCommand::SetUp(i, up) if i < self.paths.len() => {
                let p = &mut self.paths[i];
                for link in [&mut p.up, &mut p.down] {
                    if up {
                        link.go_up();
                    } else if link.up {
                        // Everything on the path is lost.
                        p.counters.lost += link.go_down().len() as u64;
                    }
                }
            }
            EmuCommand::SetRate(i, bps) if i < self.paths.len() => {
                let p = &mut self.paths[i];
                for link in [&mut p.up, &mut p.down] {
                    let delay = link.delay;
                    link.reconfigure(now, BitRate::from_bps(bps.max(1)), delay);
                }
            }
            _ => {}
        }
    }

    /// A packet of `data` enters path `path` going `way` at `now`,
    /// occupying `wire_len` bytes of the link; it is queued, or dropped by
    /// a full queue or a down path (and counted).
    pub fn offer(&mut self, now: Instant, path: usize, way: Way, data: &[u8], wire_len: u32) {
        let p = &mut self.paths[path];
        let packet = Packet {
            src: Addr(0),
            dst: Addr(0),
            src_agent: 0,
            dst_agent: 0,
            wire_len,
            data: data.to_vec(),
        };
        let link = p.link(way);
        match link.enqueue(now, packet) {
            Ok(Some(at)) => {
                let generation = link.generation;
                self.seq += 1;
                self.heap.push(Arrival {
                    at,
                    seq: self.seq,
                    path,
                    way,
                    generation,
                });
            }
            Ok(None) => {}
            Err((_, DropCause::Queue)) => p.counters.queue_drops += 1,
            Err(_) => p.counters.lost += 1,
        }
    }

    /// When the next packet reaches the far end of its path.
    pub fn next_arrival(&self) -> Option<Instant> {
        self.heap.peek().map(|a| a.at)
    }

    /// Hands every packet that has reached the far end of its path by
    /// `now` to `deliver(path, way, data)`, which says whether it went out;
    /// those the loss model takes are counted, not handed.
    pub fn release(&mut self, now: Instant, mut deliver: impl FnMut(usize, Way, &[u8]) -> bool) {
        while self.heap.peek().is_some_and(|a| a.at <= now) {
            let a = self.heap.pop().expect("peeked");
            let p = &mut self.paths[a.path];
            let rate = match p.link(a.way).loss {
                LossModel::GilbertElliott(c) => p.channels[c as usize].loss_rate_at(a.at),
                _ => 0.0,
            };
            let link = p.link(a.way);
            if link.generation != a.generation {
                continue; // lost with the path
            }
            let Some((outcome, next)) = link.arrive(rate) else {
                continue;
            };
            if let Some(at) = next {
                let generation = link.generation;
                self.seq += 1;
                self.heap.push(Arrival {
                    at,
                    seq: self.seq,
                    path: a.path,
                    way: a.way,
                    generation,
                });
            }
            match outcome {
                Ok(packet) => {
                    if deliver(a.path, a.way, &packet.data) {
                        p.counters.delivered += 1;
                    }
                }
                Err(_) => p.counters.lost += 1,
            }
        }
    }

    /// Each path's counters.
    pub fn counters(&self) -> Vec<PathCounters> {
        self.paths.iter().map(|p| p.counters).collect()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::emulator::model::GilbertElliott;

    fn ms(m: u64) -> Instant {
        Instant::ZERO + radial_core::Duration::from_millis(m)
    }

    fn lossless(rate_bps: u64, delay_ms: u64, queue: usize) -> PathModel {
        let l = LinkModel {
            rate_bps,
            delay: Duration::from_millis(delay_ms),
            queue,
            loss: 0.0,
            channel: None,
        };
        PathModel {
            up: l,
            down: l,
            shared_channel: false,
        }
    }

    #[test]
    fn a_path_direction_is_the_simulators_link_pacing_and_dropping_past_its_queue() {
        // 1 Mbit/s: a 1250-byte packet takes 10 ms.
        let mut e = PathEngine::new(&[lossless(1_000_000, 5, 3)], 1);
        for _ in 0..4 {
            e.offer(ms(0), 0, Way::Down, &[7; 1222], 1250);
        }
        assert_eq!(e.next_arrival(), Some(ms(15)));
        assert_eq!(
            e.counters()[0].queue_drops,
            1,
            "one on the wire, two waiting"
        );
        let mut got = Vec::new();
        e.release(ms(26), |path, way, data| {
            got.push((path, way, data.len()));
            true
        });
        assert_eq!(got, vec![(0, Way::Down, 1222), (0, Way::Down, 1222)]);
        assert_eq!(e.next_arrival(), Some(ms(35)));
        assert_eq!(e.counters()[0].delivered, 2);
    }

    #[test]
    fn a_path_that_goes_down_loses_what_it_carries_and_refuses_more() {
        let mut e = PathEngine::new(&[lossless(1_000_000, 5, 10)], 1);
        e.offer(ms(0), 0, Way::Up, &[1; 100], 128);
        e.offer(ms(0), 0, Way::Up, &[1; 100], 128);
        e.apply(ms(1), EmuCommand::SetUp(0, false));
        e.offer(ms(2), 0, Way::Up, &[1; 100], 128);
        let mut n = 0;
        e.release(ms(100), |_, _, _| {
            n += 1;
            true
        });
        assert_eq!(n, 0);
        assert_eq!(e.counters()[0].lost, 3);
        e.apply(ms(100), EmuCommand::SetUp(0, true));
        e.offer(ms(100), 0, Way::Up, &[1; 100], 125);
        // 125 bytes at 1 Mbit/s: 1 ms, then 5 ms of delay.
        assert_eq!(e.next_arrival(), Some(ms(106)));
    }

    #[test]
    fn a_shared_channel_is_one_state_for_both_directions() {
        let ge = GilbertElliott {
            good_loss: 0.0,
            bad_loss: 1.0,
            good_mean: Duration::from_millis(300),
            bad_mean: Duration::from_millis(100),
        };
        let l = LinkModel {
            channel: Some(ge),
            ..LinkModel::with_bdp_queue(1_000_000, Duration::ZERO, Duration::ZERO)
        };
        for (shared, channels, up) in [(true, 1, 0), (false, 2, 1)] {
            let model = PathModel {
                up: l,
                down: l,
                shared_channel: shared,
            };
            let p = PathState::new(0, &model, 1);
            assert_eq!(p.channels.len(), channels);
            assert_eq!(p.down.loss, LossModel::GilbertElliott(0));
            assert_eq!(p.up.loss, LossModel::GilbertElliott(up));
        }
    }

    #[test]
    fn a_gilbert_elliott_direction_loses_in_its_bad_state() {
        let model = LinkModel {
            rate_bps: 1_000_000,
            delay: Duration::ZERO,
            queue: 10,
            loss: 0.0,
            channel: Some(GilbertElliott {
                good_loss: 0.0,
                bad_loss: 1.0,
                good_mean: Duration::from_millis(300),
                bad_mean: Duration::from_millis(100),
            }),
        };
        let d = direction(&model, 0, 12345, "test");
        assert_eq!(d.loss, LossModel::GilbertElliott(0));
        let ge = model.channel.unwrap().params();
        let mut c = ClockedChannel::new(ge, Rng::stream(12345, "test"));
        let bad = (0..100_000u64)
            .filter(|&k| c.loss_rate_at(ms(k)) == 1.0)
            .count();
        // A quarter of the time in the bad state, within sampling noise.
        assert!((20_000..30_000).contains(&bad), "{bad} ms of 100000 bad");
    }
}
