//! A user-space link emulator on loopback: each emulated path is a relay
//! whose two directions are links like the simulator's (a rate, a one-way
//! delay, a drop-tail queue counted in packets, independent random loss) and
//! which can be taken down and brought up. A client reaches the server
//! through path `i` by sending to [`Emulator::front`]`(i)`; the server sees
//! the relay's own socket as the peer, one per path. Nothing leaves the
//! host. A relay serves one client: replies go to the address it last
//! heard from on its front.

use std::collections::{BinaryHeap, VecDeque};
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use mio::net::UdpSocket;
use mio::{Events, Interest, Poll, Token};

/// One direction of a path.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkModel {
    /// Bits per second.
    pub rate_bps: u64,
    /// One-way propagation delay.
    pub delay: Duration,
    /// Packets that may wait for the link (drop-tail; the one being sent
    /// counts, as in ns-2).
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

/// A packet crossing one direction.
#[derive(Debug, PartialEq, Eq)]
struct InFlight {
    at: Instant,
    seq: u64,
    path: usize,
    down: bool,
    data: Vec<u8>,
}

impl Ord for InFlight {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        // Earliest first in a max-heap.
        (o.at, o.seq).cmp(&(self.at, self.seq))
    }
}

impl PartialOrd for InFlight {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

/// One direction's transmitter: when it is free, and the departure times of
/// the packets accepted and not yet on the wire.
#[derive(Debug, Default)]
struct Transmitter {
    free_at: Option<Instant>,
    starts: VecDeque<Instant>,
    /// The Gilbert-Elliott channel's state and when it next changes.
    bad: bool,
    toggle_at: Option<Instant>,
}

impl Transmitter {
    /// The loss probability of `link` at `now`, moving its channel on.
    fn loss_at(&mut self, link: &LinkModel, now: Instant, rng: &mut Rng) -> f64 {
        let Some(ge) = link.channel else {
            return link.loss;
        };
        let sojourn = |bad: bool, rng: &mut Rng| {
            let mean = if bad { ge.bad_mean } else { ge.good_mean };
            mean.mul_f64(-(1.0 - rng.uniform()).ln())
        };
        let mut at = *self
            .toggle_at
            .get_or_insert_with(|| now + sojourn(false, rng));
        while at <= now {
            self.bad = !self.bad;
            at += sojourn(self.bad, rng);
        }
        self.toggle_at = Some(at);
        if self.bad {
            ge.bad_loss
        } else {
            ge.good_loss
        }
    }
}

struct Relay {
    model: PathModel,
    up_now: bool,
    front: UdpSocket,
    back: UdpSocket,
    client: Option<SocketAddr>,
    tx_up: Transmitter,
    tx_down: Transmitter,
    counters: PathCounters,
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
            relays.push(Relay {
                model: *model,
                up_now: true,
                front,
                back,
                client: None,
                tx_up: Transmitter::default(),
                tx_down: Transmitter::default(),
                counters: PathCounters::default(),
            });
        }
        let (commands, rx) = mpsc::channel();
        let stop = Arc::new(AtomicBool::new(false));
        let s = stop.clone();
        let handle = thread::spawn(move || run(poll, relays, server, &rx, &s, seed));
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

/// A small xorshift generator for the loss draws.
struct Rng(u64);

impl Rng {
    fn uniform(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Accepts a packet of `len` bytes at `now` onto a link: returns when it
/// arrives at the far end, or `None` when the queue is full.
fn admit(tx: &mut Transmitter, link: &LinkModel, now: Instant, len: usize) -> Option<Instant> {
    while tx.starts.front().is_some_and(|&s| s <= now) {
        tx.starts.pop_front();
    }
    // Waiting packets plus the one on the wire, as ns-2's limit counts.
    let on_wire = tx.free_at.is_some_and(|f| f > now);
    if tx.starts.len() + usize::from(on_wire) >= link.queue {
        return None;
    }
    let start = tx.free_at.map_or(now, |f| f.max(now));
    let bits = (len as u64 + 28) * 8; // IP and UDP headers
    let tx_time = Duration::from_nanos(bits * 1_000_000_000 / link.rate_bps.max(1));
    tx.free_at = Some(start + tx_time);
    if start > now {
        tx.starts.push_back(start);
    }
    Some(start + tx_time + link.delay)
}

fn run(
    mut poll: Poll,
    mut relays: Vec<Relay>,
    server: SocketAddr,
    commands: &Receiver<EmuCommand>,
    stop: &AtomicBool,
    seed: u64,
) -> Vec<PathCounters> {
    let mut rng = Rng(seed | 1);
    let mut heap: BinaryHeap<InFlight> = BinaryHeap::new();
    let mut seq = 0u64;
    let mut events = Events::with_capacity(256);
    let mut buf = vec![0u8; 65536];
    while !stop.load(Ordering::Relaxed) {
        while let Ok(c) = commands.try_recv() {
            match c {
                EmuCommand::SetUp(i, up) if i < relays.len() => {
                    relays[i].up_now = up;
                    if !up {
                        // Everything on the path is lost.
                        let before = heap.len();
                        heap.retain(|p| p.path != i);
                        relays[i].counters.lost += (before - heap.len()) as u64;
                        relays[i].tx_up = Transmitter::default();
                        relays[i].tx_down = Transmitter::default();
                    }
                }
                EmuCommand::SetRate(i, bps) if i < relays.len() => {
                    relays[i].model.up.rate_bps = bps;
                    relays[i].model.down.rate_bps = bps;
                }
                _ => {}
            }
        }
        let wait = heap.peek().map_or(Duration::from_millis(20), |p| {
            p.at.saturating_duration_since(Instant::now())
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
                if !r.up_now {
                    r.counters.lost += 1;
                    continue;
                }
                let now = Instant::now();
                let (tx, link) = if down {
                    (&mut r.tx_down, r.model.down)
                } else {
                    (&mut r.tx_up, r.model.up)
                };
                match admit(tx, &link, now, n) {
                    None => r.counters.queue_drops += 1,
                    Some(at) => {
                        // Loss is drawn after the link (ns-2's link loss model).
                        let loss = tx.loss_at(&link, now, &mut rng);
                        if loss > 0.0 && rng.uniform() < loss {
                            r.counters.lost += 1;
                            continue;
                        }
                        seq += 1;
                        heap.push(InFlight {
                            at,
                            seq,
                            path: i,
                            down,
                            data: buf[..n].to_vec(),
                        });
                    }
                }
            }
        }
        let now = Instant::now();
        while heap.peek().is_some_and(|p| p.at <= now) {
            let p = heap.pop().expect("peeked");
            let r = &mut relays[p.path];
            let sent = if p.down {
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

    #[test]
    fn a_link_paces_packets_and_drops_past_its_queue() {
        // 1 Mbit/s: a 1222-byte datagram (1250 bytes with headers) takes 10 ms.
        let link = LinkModel {
            rate_bps: 1_000_000,
            delay: Duration::from_millis(5),
            queue: 3,
            loss: 0.0,
            channel: None,
        };
        let mut tx = Transmitter::default();
        let t0 = Instant::now();
        let a = admit(&mut tx, &link, t0, 1222).unwrap();
        assert_eq!(a - t0, Duration::from_millis(15));
        let b = admit(&mut tx, &link, t0, 1222).unwrap();
        assert_eq!(b - t0, Duration::from_millis(25));
        assert!(admit(&mut tx, &link, t0, 1222).is_some(), "the third fits");
        assert!(
            admit(&mut tx, &link, t0, 1222).is_none(),
            "one on the wire, two waiting"
        );
        // Once the first two are on their way there is room again.
        let later = t0 + Duration::from_millis(21);
        assert!(admit(&mut tx, &link, later, 1222).is_some());
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
    fn a_gilbert_elliott_channel_spends_its_share_of_time_bad() {
        let link = LinkModel {
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
        let mut tx = Transmitter::default();
        let mut rng = Rng(12345);
        let t0 = Instant::now();
        let bad = (0..100_000)
            .filter(|&k| tx.loss_at(&link, t0 + Duration::from_millis(k), &mut rng) == 1.0)
            .count();
        // A quarter of the time in the bad state, within sampling noise.
        assert!((20_000..30_000).contains(&bad), "{bad} ms of 100000 bad");
    }
}
