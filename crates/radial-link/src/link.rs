//! A point-to-point link in one direction: a drop-tail queue, a transmitter
//! of some rate, a propagation delay, and a channel loss model applied after
//! the packet crossed the link (as ns-2's link error models do: a lost packet
//! still used capacity).

use std::collections::VecDeque;

use crate::channel::LossModel;
use crate::packet::Packet;
use crate::red::{self, Red};
use crate::rng::Rng;
use radial_core::{BitRate, Duration, Instant};
use serde::Serialize;

/// Why a link dropped a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropCause {
    /// The queue was full.
    Queue,
    /// The channel corrupted it.
    Channel,
    /// The link was down.
    LinkDown,
}

/// Per-link counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LinkStats {
    /// Packets that finished transmission.
    pub tx_packets: u64,
    /// Bytes that finished transmission.
    pub tx_bytes: u64,
    /// Packets delivered to the far end.
    pub delivered: u64,
    /// Drops at the queue.
    pub drops_queue: u64,
    /// Drops by the channel loss model.
    pub drops_channel: u64,
    /// Drops because the link was down.
    pub drops_link_down: u64,
    /// Packets that reached a sleeping host and were lost.
    pub drops_asleep: u64,
    /// Longest queue seen, in packets.
    pub max_queue: u64,
}

/// A packet accepted by the link, with its precomputed schedule.
#[derive(Debug)]
struct Scheduled {
    /// When its transmission starts.
    start: Instant,
    /// When its transmission ends.
    end: Instant,
    /// When its last bit reaches the far end.
    arrival: Instant,
    packet: Packet,
}

/// One direction of a point-to-point link.
///
/// The link is FIFO with a constant rate between changes, so when a packet is
/// accepted its transmission start, end and arrival are already determined:
/// the simulator needs one event per packet (its arrival) instead of two, and
/// only the head of the link is in the event queue at any time. The drop-tail
/// decision counts the accepted packets whose transmission has not started.
#[derive(Debug)]
pub struct Link {
    /// Scenario name of the link (both directions share it).
    pub name: String,
    /// Sending node.
    pub from: u32,
    /// Receiving node.
    pub to: u32,
    /// Transmission rate.
    pub rate: BitRate,
    /// Propagation delay.
    pub delay: Duration,
    /// Queue limit in packets with ns-2 `DropTail` semantics: a packet is
    /// dropped when the packets waiting plus one reach the limit, so a limit of
    /// N holds N − 1 waiting packets plus the one being transmitted.
    pub queue_limit: usize,
    /// Channel loss.
    pub loss: LossModel,
    /// Random stream of the loss model.
    pub rng: Rng,
    /// Random Early Detection in front of the drop-tail limit, if any.
    pub red: Option<Red>,
    /// Up or down.
    pub up: bool,
    /// Incremented each time the link goes down, so that events for packets
    /// lost with it are recognised as stale.
    pub generation: u32,
    /// Accepted packets in FIFO order: propagating, transmitting, waiting.
    pipe: VecDeque<Scheduled>,
    /// Index in `pipe` of the first packet not known to have started
    /// (advanced lazily as time passes).
    started: usize,
    /// When the transmitter is free again.
    busy_until: Instant,
    /// Transmission time of the packets that have crossed the link.
    busy: Duration,
    /// Counters.
    pub stats: LinkStats,
}

impl Link {
    /// A link that is up, empty and idle.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        name: String,
        from: u32,
        to: u32,
        rate: BitRate,
        delay: Duration,
        queue_limit: usize,
        loss: LossModel,
        rng: Rng,
    ) -> Self {
        Link {
            name,
            from,
            to,
            rate,
            delay,
            queue_limit,
            loss,
            rng,
            red: None,
            up: true,
            generation: 0,
            pipe: VecDeque::new(),
            started: 0,
            busy_until: Instant::ZERO,
            busy: Duration::ZERO,
            stats: LinkStats::default(),
        }
    }

    /// Packets waiting for the transmitter at `now` (`now` never decreases).
    pub fn waiting(&mut self, now: Instant) -> usize {
        while self.started < self.pipe.len() && self.pipe[self.started].start <= now {
            self.started += 1;
        }
        self.pipe.len() - self.started
    }

    /// Offers a packet at `now`. Returns the dropped packet and why, or, when
    /// the link was empty, the arrival time of this packet (the new head) for
    /// the simulator to schedule.
    pub fn enqueue(
        &mut self,
        now: Instant,
        p: Packet,
    ) -> Result<Option<Instant>, (Packet, DropCause)> {
        if !self.up {
            self.stats.drops_link_down += 1;
            return Err((p, DropCause::LinkDown));
        }
        let waiting = self.waiting(now);
        let early = self.red.as_mut().is_some_and(|red| {
            let idle = red::idle_time(now, self.busy_until, waiting);
            let packet_time = self.rate.transmission_time(u64::from(p.wire_len));
            red.on_arrival(waiting, idle, packet_time)
        });
        if early || waiting + 1 >= self.queue_limit {
            self.stats.drops_queue += 1;
            return Err((p, DropCause::Queue));
        }
        let start = now.max(self.busy_until);
        let end = start + self.rate.transmission_time(u64::from(p.wire_len));
        self.busy_until = end;
        // FIFO even if the delay shrinks while packets are in flight.
        let arrival = (end + self.delay).max(self.pipe.back().map_or(Instant::ZERO, |s| s.arrival));
        if start > now {
            self.stats.max_queue = self.stats.max_queue.max(waiting as u64 + 1);
        }
        let was_empty = self.pipe.is_empty();
        self.pipe.push_back(Scheduled {
            start,
            end,
            arrival,
            packet: p,
        });
        Ok(was_empty.then_some(arrival))
    }

    /// The head packet reaches the far end: `Ok` if delivered, `Err` if the
    /// channel lost it (it still used the link). Also returns the arrival
    /// time of the next head, to schedule.
    pub fn arrive(
        &mut self,
        channel_loss_rate: f64,
    ) -> Option<(Result<Packet, Packet>, Option<Instant>)> {
        let s = self.pipe.pop_front()?;
        self.started = self.started.saturating_sub(1);
        self.busy += s.end - s.start;
        let p = s.packet;
        self.stats.tx_packets += 1;
        self.stats.tx_bytes += u64::from(p.wire_len);
        let lost = match self.loss {
            LossModel::None => false,
            LossModel::Bernoulli(rate) => self.rng.chance(rate),
            LossModel::GilbertElliott(_) => self.rng.chance(channel_loss_rate),
        };
        let next = self.pipe.front().map(|s| s.arrival);
        if lost {
            self.stats.drops_channel += 1;
            Some((Err(p), next))
        } else {
            self.stats.delivered += 1;
            Some((Ok(p), next))
        }
    }

    /// Changes rate or delay at `now`: packets already transmitting keep their
    /// schedule, waiting ones are re-timed.
    pub fn reconfigure(&mut self, now: Instant, rate: BitRate, delay: Duration) {
        self.rate = rate;
        self.delay = delay;
        let first_waiting = self.pipe.len() - self.waiting(now);
        let (mut free, mut last_arrival) = match first_waiting.checked_sub(1) {
            Some(i) => (self.pipe[i].end.max(now), self.pipe[i].arrival),
            None => (now, Instant::ZERO),
        };
        for s in self.pipe.iter_mut().skip(first_waiting) {
            s.start = free;
            s.end = free + rate.transmission_time(u64::from(s.packet.wire_len));
            s.arrival = (s.end + delay).max(last_arrival);
            last_arrival = s.arrival;
            free = s.end;
        }
        if first_waiting < self.pipe.len() {
            self.busy_until = free;
        }
    }

    /// Takes the link down: everything queued, in transmission or in flight is
    /// lost. Returns the lost packets.
    pub fn go_down(&mut self) -> Vec<Packet> {
        self.up = false;
        self.generation = self.generation.wrapping_add(1);
        let lost: Vec<Packet> = self.pipe.drain(..).map(|s| s.packet).collect();
        self.started = 0;
        self.stats.drops_link_down += lost.len() as u64;
        self.busy_until = Instant::ZERO;
        lost
    }

    /// Brings the link back up.
    pub fn go_up(&mut self) {
        self.up = true;
    }

    /// Time the transmitter spent on packets that have crossed the link.
    pub fn busy(&self) -> Duration {
        self.busy
    }

    /// Packets accepted and not yet arrived.
    pub fn in_pipe(&self) -> usize {
        self.pipe.len()
    }
}
