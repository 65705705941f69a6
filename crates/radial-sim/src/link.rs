//! A point-to-point link in one direction: a drop-tail queue, a transmitter
//! of some rate, a propagation delay, and a channel loss model applied after
//! the packet crossed the link (as ns-2's link error models do: a lost packet
//! still used capacity).

use std::collections::VecDeque;

use crate::channel::LossModel;
use crate::packet::Packet;
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
    /// Longest queue seen, in packets.
    pub max_queue: u64,
}

/// One direction of a point-to-point link.
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
    /// Up or down.
    pub up: bool,
    /// Incremented each time the link goes down, so that events for packets
    /// lost with it are recognised as stale.
    pub generation: u32,
    queue: VecDeque<Packet>,
    transmitting: Option<Packet>,
    in_flight: VecDeque<Packet>,
    last_arrival: Instant,
    /// Counters.
    pub stats: LinkStats,
}

/// What the simulator must schedule after a link operation.
#[derive(Debug, PartialEq, Eq)]
pub enum LinkOutcome {
    /// Nothing to schedule.
    Idle,
    /// A transmission started; it completes at this time.
    TxUntil(Instant),
}

impl Link {
    /// A link that is up, empty and idle.
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
            up: true,
            generation: 0,
            queue: VecDeque::new(),
            transmitting: None,
            in_flight: VecDeque::new(),
            last_arrival: Instant::ZERO,
            stats: LinkStats::default(),
        }
    }

    /// Offers a packet. Returns the dropped packet and why, or what to schedule.
    pub fn enqueue(&mut self, now: Instant, p: Packet) -> Result<LinkOutcome, (Packet, DropCause)> {
        if !self.up {
            self.stats.drops_link_down += 1;
            return Err((p, DropCause::LinkDown));
        }
        if self.queue.len() + 1 >= self.queue_limit {
            self.stats.drops_queue += 1;
            return Err((p, DropCause::Queue));
        }
        if self.transmitting.is_none() {
            return Ok(self.start(now, p));
        }
        self.queue.push_back(p);
        self.stats.max_queue = self.stats.max_queue.max(self.queue.len() as u64);
        Ok(LinkOutcome::Idle)
    }

    fn start(&mut self, now: Instant, p: Packet) -> LinkOutcome {
        let done = now + self.rate.transmission_time(u64::from(p.wire_len));
        self.transmitting = Some(p);
        LinkOutcome::TxUntil(done)
    }

    /// The packet at the head finished transmission at `now`: it starts
    /// propagating (arriving at the returned time) and the next one starts.
    pub fn tx_done(&mut self, now: Instant) -> (Option<Instant>, LinkOutcome) {
        let Some(p) = self.transmitting.take() else {
            return (None, LinkOutcome::Idle);
        };
        self.stats.tx_packets += 1;
        self.stats.tx_bytes += u64::from(p.wire_len);
        // FIFO even if the delay shrinks while packets are in flight.
        let arrival = (now + self.delay).max(self.last_arrival);
        self.last_arrival = arrival;
        self.in_flight.push_back(p);
        let next = match self.queue.pop_front() {
            Some(q) => self.start(now, q),
            None => LinkOutcome::Idle,
        };
        (Some(arrival), next)
    }

    /// The packet at the far end arrives; `Err` if the channel lost it.
    pub fn arrive(&mut self, channel_loss_rate: f64) -> Option<Result<Packet, Packet>> {
        let p = self.in_flight.pop_front()?;
        let lost = match self.loss {
            LossModel::None => false,
            LossModel::Bernoulli(rate) => self.rng.chance(rate),
            LossModel::GilbertElliott(_) => self.rng.chance(channel_loss_rate),
        };
        if lost {
            self.stats.drops_channel += 1;
            Some(Err(p))
        } else {
            self.stats.delivered += 1;
            Some(Ok(p))
        }
    }

    /// Takes the link down: everything queued, in transmission or in flight is
    /// lost. Returns the lost packets.
    pub fn go_down(&mut self) -> Vec<Packet> {
        self.up = false;
        self.generation = self.generation.wrapping_add(1);
        let mut lost: Vec<Packet> = self.queue.drain(..).collect();
        lost.extend(self.transmitting.take());
        lost.extend(self.in_flight.drain(..));
        self.stats.drops_link_down += lost.len() as u64;
        lost
    }

    /// Brings the link back up.
    pub fn go_up(&mut self) {
        self.up = true;
    }

    /// Packets waiting in the queue.
    pub fn queue_len(&self) -> usize {
        self.queue.len()
    }
}
