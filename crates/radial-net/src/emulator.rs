//! A user-space link emulator on loopback: each emulated path is a relay
//! whose two directions are the simulator's own links
//! ([`radial_link::link::Link`]: a rate, a one-way delay, a drop-tail queue
//! counted in packets, Bernoulli or Gilbert-Elliott loss after the link),
//! driven by the wall clock, and which can be taken down and brought up or
//! change rate. A client reaches the server through path `i` by sending to
//! [`Emulator::front`]`(i)`; the server sees the relay's own socket as the
//! peer, one per path. Nothing leaves the host. A relay serves one client:
//! replies go to the address it last heard from on its front.

use std::collections::BinaryHeap;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use mio::net::UdpSocket;
use mio::{Events, Interest, Poll, Token};
use radial_core::{BitRate, Instant};
use radial_link::channel::{ClockedChannel, GilbertElliottParams, LossModel};
use radial_link::link::{DropCause, Link};
use radial_link::packet::{Addr, Packet};
use radial_link::rng::Rng;

/// Bytes of IP and UDP headers a datagram occupies on a link beyond its own.
const FRAMING: u32 = 28;

/// One direction of a path.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkModel {
    /// Bits per second.
    pub rate_bps: u64,
    /// One-way propagation delay.
    pub delay: Duration,
    /// Packets that may wait for the link (drop-tail; the one being sent
    /// counts, as in ns-2); at least 2 (a smaller limit is taken as 2).
    pub queue: usize,
    /// Probability that a packet that crossed the link is lost.
    pub loss: f64,
    /// A two-state channel instead of `loss` when set.
    pub channel: Option<GilbertElliott>,
}

/// A Gilbert-Elliott channel: good and bad states with their own loss
/// probabilities and exponentially distributed sojourns, as the
/// simulator's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GilbertElliott {
    /// Loss probability in the good state.
    pub good_loss: f64,
    /// Loss probability in the bad state.
    pub bad_loss: f64,
    /// Mean time in the good state.
    pub good_mean: Duration,
    /// Mean time in the bad state.
    pub bad_mean: Duration,
}

impl GilbertElliott {
    /// The simulator's parameters of this channel.
    fn params(&self) -> GilbertElliottParams {
        let d = |t: Duration| radial_core::Duration::from_nanos(t.as_nanos() as u64);
        GilbertElliottParams {
            good_loss: self.good_loss,
            bad_loss: self.bad_loss,
            good_mean: d(self.good_mean),
            bad_mean: d(self.bad_mean),
        }
    }
}

impl LinkModel {
    /// A lossless link with a queue of one bandwidth-delay product of
    /// `rtt` (at least 2 packets of 1500 bytes).
    pub fn with_bdp_queue(rate_bps: u64, delay: Duration, rtt: Duration) -> Self {
        let bdp = (rate_bps as f64 * rtt.as_secs_f64() / 8.0 / 1500.0).ceil() as usize;
        LinkModel {
            rate_bps,
            delay,
            queue: bdp.max(2),
            loss: 0.0,
            channel: None,
        }
    }
}

/// A path: its two directions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathModel {
    /// Client → server.
    pub up: LinkModel,
    /// Server → client.
    pub down: LinkModel,
    /// Both directions' Gilbert-Elliott channels are one channel state (a
    /// scenario file's `shared = true`, its default), with `down`'s
    /// parameters; otherwise each direction has its own.
    pub shared_channel: bool,
}

/// Changes while the emulator runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum EmuCommand {
    /// Path `i` goes down (everything on it is lost) or comes up.
    SetUp(usize, bool),
    /// Path `i`'s rate in both directions.
    SetRate(usize, u64),
}

/// Counters of one path.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PathCounters {
    /// Datagrams delivered, both directions.
    pub delivered: u64,
    /// Dropped by a full queue.
    pub queue_drops: u64,
    /// Lost to the loss model or a down path.
    pub lost: u64,
}

/// The arrival at the far end of the head packet of one direction of a
/// path, as scheduled when it became the head.
#[derive(Debug, PartialEq, Eq)]
struct Arrival {
    at: Instant,
    seq: u64,
    path: usize,
    down: bool,
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

/// One direction of a path: the simulator's link, whose loss may follow
/// one of its relay's Gilbert-Elliott channels (`LossModel::GilbertElliott`
/// names it).
struct Direction {
    link: Link,
}

impl Direction {
    /// A direction of `model` whose channel, if it has one, is the relay's
    /// channel `channel`.
    fn new(model: &LinkModel, channel: u32, seed: u64, label: &str) -> Self {
        let loss = match model.channel {
            Some(_) => LossModel::GilbertElliott(channel),
            None if model.loss > 0.0 => LossModel::Bernoulli(model.loss),
            None => LossModel::None,
        };
        let link = Link::new(
            label.to_string(),
            0,
            1,
            BitRate::from_bps(model.rate_bps.max(1)),
            radial_core::Duration::from_nanos(model.delay.as_nanos() as u64),
            model.queue.max(2),
            loss,
            Rng::stream(seed, &format!("{label}:loss")),
        );
        Direction { link }
    }
}

struct Relay {
    front: UdpSocket,
    back: UdpSocket,
    client: Option<SocketAddr>,
    up: Direction,
    down: Direction,
    /// The Gilbert-Elliott channels of its directions.
    channels: Vec<ClockedChannel>,
    counters: PathCounters,
}

impl Relay {
    /// The relay of path `i` of `model`, between `front` and `back`.
    fn new(i: usize, model: &PathModel, front: UdpSocket, back: UdpSocket, seed: u64) -> Self {
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
        Relay {
            front,
            back,
            client: None,
            up: Direction::new(&model.up, up_channel, seed, &format!("path:{i}:up")),
            down: Direction::new(&model.down, down_channel, seed, &format!("path:{i}:down")),
            channels,
            counters: PathCounters::default(),
        }
    }

    fn direction(&mut self, down: bool) -> &mut Direction {
        if down {
            &mut self.down
        } else {
            &mut self.up
        }
    }
}

/// The running emulator.
pub struct Emulator {
    fronts: Vec<SocketAddr>,
    commands: Sender<EmuCommand>,
    stop: Arc<AtomicBool>,
    handle: Option<thread::JoinHandle<Vec<PathCounters>>>,
}

impl Emulator {
    /// Starts one relay per `(front address, model)` towards `server` (a
    /// front with port 0 gets one from the system); `seed` drives the loss
    /// draws.
    pub fn start(
        server: SocketAddr,
        paths: &[(SocketAddr, PathModel)],
        seed: u64,
    ) -> io::Result<Self> {
        let poll = Poll::new()?;
        let mut relays = Vec::new();
        let mut fronts = Vec::new();
        for (i, (addr, model)) in paths.iter().enumerate() {
            let mut front = UdpSocket::bind(*addr)?;
            let back_ip: IpAddr = if server.is_ipv4() {
                [127, 0, 0, 1].into()
            } else {
                std::net::Ipv6Addr::LOCALHOST.into()
            };
            let mut back = UdpSocket::bind(SocketAddr::new(back_ip, 0))?;
            poll.registry()
                .register(&mut front, Token(2 * i), Interest::READABLE)?;
            poll.registry()
                .register(&mut back, Token(2 * i + 1), Interest::READABLE)?;
            fronts.push(front.local_addr()?);
            relays.push(Relay::new(i, model, front, back, seed));
        }
        let (commands, rx) = mpsc::channel();
        let stop = Arc::new(AtomicBool::new(false));
        let s = stop.clone();
        let handle = thread::spawn(move || run(poll, relays, server, &rx, &s));
        Ok(Emulator {
            fronts,
            commands,
            stop,
            handle: Some(handle),
        })
    }

    /// Where a client sends to reach the server through path `i`.
    pub fn front(&self, i: usize) -> SocketAddr {
        self.fronts[i]
    }

    /// Applies a change (from any thread).
    pub fn command(&self, c: EmuCommand) {
        let _ = self.commands.send(c);
    }

    /// Stops the relays and returns their counters.
    pub fn stop(mut self) -> Vec<PathCounters> {
        self.stop.store(true, Ordering::Relaxed);
        self.handle
            .take()
            .map_or_else(Vec::new, |h| h.join().unwrap_or_default())
    }
}

impl Drop for Emulator {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

fn run(
    mut poll: Poll,
    mut relays: Vec<Relay>,
    server: SocketAddr,
    commands: &Receiver<EmuCommand>,
    stop: &AtomicBool,
) -> Vec<PathCounters> {
    let epoch = std::time::Instant::now();
    let clock = || Instant::from_nanos(epoch.elapsed().as_nanos() as u64);
    let mut heap: BinaryHeap<Arrival> = BinaryHeap::new();
    let mut seq = 0u64;
    let mut events = Events::with_capacity(256);
    let mut buf = vec![0u8; 65536];
    while !stop.load(Ordering::Relaxed) {
        while let Ok(c) = commands.try_recv() {
            let now = clock();
            match c {
                EmuCommand::SetUp(i, up) if i < relays.len() => {
                    let r = &mut relays[i];
                    for d in [&mut r.up, &mut r.down] {
                        if up {
                            d.link.go_up();
                        } else if d.link.up {
                            // Everything on the path is lost.
                            r.counters.lost += d.link.go_down().len() as u64;
                        }
                    }
                }
                EmuCommand::SetRate(i, bps) if i < relays.len() => {
                    let r = &mut relays[i];
                    for d in [&mut r.up, &mut r.down] {
                        let delay = d.link.delay;
                        d.link
                            .reconfigure(now, BitRate::from_bps(bps.max(1)), delay);
                    }
                }
                _ => {}
            }
        }
        let wait = heap.peek().map_or(Duration::from_millis(20), |a| {
            Duration::from_nanos(a.at.saturating_since(clock()).as_nanos())
                .min(Duration::from_millis(20))
        });
        if poll.poll(&mut events, Some(wait)).is_err() {
            continue;
        }
        for ev in &events {
            let i = ev.token().0 / 2;
            let down = ev.token().0 % 2 == 1;
            loop {
                let r = &mut relays[i];
                let sock = if down { &r.back } else { &r.front };
                let (n, from) = match sock.recv_from(&mut buf) {
                    Ok(x) => x,
                    Err(_) => break,
                };
                if down {
                    if from != server {
                        continue;
                    }
                } else {
                    // The client's address is the last one heard from (a
                    // client may ask from one socket and then open its
                    // pipe from another).
                    r.client = Some(from);
                }
                let p = Packet {
                    src: Addr(0),
                    dst: Addr(0),
                    src_agent: 0,
                    dst_agent: 0,
                    wire_len: n as u32 + FRAMING,
                    data: buf[..n].to_vec(),
                };
                let link = &mut r.direction(down).link;
                match link.enqueue(clock(), p) {
                    Ok(Some(at)) => {
                        seq += 1;
                        let generation = link.generation;
                        heap.push(Arrival {
                            at,
                            seq,
                            path: i,
                            down,
                            generation,
                        });
                    }
                    Ok(None) => {}
                    Err((_, DropCause::Queue)) => r.counters.queue_drops += 1,
                    Err(_) => r.counters.lost += 1,
                }
            }
        }
        let now = clock();
        while heap.peek().is_some_and(|a| a.at <= now) {
            let a = heap.pop().expect("peeked");
            let r = &mut relays[a.path];
            let rate = match r.direction(a.down).link.loss {
                LossModel::GilbertElliott(c) => r.channels[c as usize].loss_rate_at(a.at),
                _ => 0.0,
            };
            let d = r.direction(a.down);
            if d.link.generation != a.generation {
                continue; // lost with the path
            }
            let Some((outcome, next)) = d.link.arrive(rate) else {
                continue;
            };
            if let Some(at) = next {
                seq += 1;
                let generation = d.link.generation;
                heap.push(Arrival {
                    at,
                    seq,
                    path: a.path,
                    down: a.down,
                    generation,
                });
            }
            let Ok(p) = outcome else {
                r.counters.lost += 1;
                continue;
            };
            let sent = if a.down {
                r.client.map(|c| r.front.send_to(&p.data, c))
            } else {
                Some(r.back.send_to(&p.data, server))
            };
            if matches!(sent, Some(Ok(_))) {
                r.counters.delivered += 1;
            }
        }
    }
    relays.iter().map(|r| r.counters).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn packet(len: usize) -> Packet {
        Packet {
            src: Addr(0),
            dst: Addr(0),
            src_agent: 0,
            dst_agent: 0,
            wire_len: len as u32 + FRAMING,
            data: vec![0; len],
        }
    }

    #[test]
    fn a_path_direction_is_the_simulators_link_pacing_and_dropping_past_its_queue() {
        // 1 Mbit/s: a 1222-byte datagram (1250 bytes with headers) takes 10 ms.
        let model = LinkModel {
            rate_bps: 1_000_000,
            delay: Duration::from_millis(5),
            queue: 3,
            loss: 0.0,
            channel: None,
        };
        let mut d = Direction::new(&model, 0, 1, "test");
        let t0 = Instant::ZERO;
        let ms = |m: u64| Instant::ZERO + radial_core::Duration::from_millis(m);
        assert_eq!(d.link.enqueue(t0, packet(1222)).unwrap(), Some(ms(15)));
        assert_eq!(
            d.link.enqueue(t0, packet(1222)).unwrap(),
            None,
            "behind the head"
        );
        assert!(d.link.enqueue(t0, packet(1222)).is_ok(), "the third fits");
        assert!(
            matches!(d.link.enqueue(t0, packet(1222)), Err((_, DropCause::Queue))),
            "one on the wire, two waiting"
        );
        // Once the second is on the wire there is room again.
        assert!(d.link.enqueue(ms(11), packet(1222)).is_ok());
        let (first, next) = d.link.arrive(0.0).unwrap();
        assert!(first.is_ok());
        assert_eq!(next, Some(ms(25)));
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
        let socket = || UdpSocket::bind("127.0.0.1:0".parse().unwrap()).unwrap();
        for (shared, channels, up) in [(true, 1, 0), (false, 2, 1)] {
            let model = PathModel {
                up: l,
                down: l,
                shared_channel: shared,
            };
            let r = Relay::new(0, &model, socket(), socket(), 1);
            assert_eq!(r.channels.len(), channels);
            assert_eq!(r.down.link.loss, LossModel::GilbertElliott(0));
            assert_eq!(r.up.link.loss, LossModel::GilbertElliott(up));
        }
    }

    #[test]
    fn bdp_queues() {
        let l = LinkModel::with_bdp_queue(
            20_000_000,
            Duration::from_millis(60),
            Duration::from_millis(120),
        );
        assert_eq!(l.queue, 200);
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
        let d = Direction::new(&model, 0, 12345, "test");
        assert_eq!(d.link.loss, LossModel::GilbertElliott(0));
        let ge = model.channel.unwrap().params();
        let mut c = ClockedChannel::new(ge, Rng::stream(12345, "test"));
        let bad = (0..100_000u64)
            .filter(|&k| {
                c.loss_rate_at(Instant::ZERO + radial_core::Duration::from_millis(k)) == 1.0
            })
            .count();
        // A quarter of the time in the bad state, within sampling noise.
        assert!((20_000..30_000).contains(&bad), "{bad} ms of 100000 bad");
    }
}
