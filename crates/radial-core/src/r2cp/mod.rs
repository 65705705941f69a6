//! R²CP, the radial RCP (RCP paper §4): one RCP pipe per path, coordinated
//! at the receiver by an engine that owns the aggregate connection.
//!
//! The engine ([`R2cpReceiver`]) holds the receive buffer, decides which
//! global segment each pipe requests (scheduling, §4.3.1), re-assigns the
//! segments a pipe loses (reliability, §4.3.5), freezes pipes when the buffer
//! is full (flow control, §4.3.4) and tells every sender what to purge with
//! SEG.DEQ. Each [`Pipe`] runs its own congestion control and loss detection
//! (§4.3.3) against an unchanged [`crate::rcp::RcpSender`]: a sender cannot
//! tell it serves one pipe of an R²CP connection.
//!
//! Paths come and go with [`HostEvent::PathUp`] and [`HostEvent::PathDown`]
//! from the driver, which maps each path to a local interface and a sender
//! (the same server, or a replica: server migration and multipoint-to-point
//! aggregation are the same mechanism, §4.4.2–4.4.3).

mod asking;
mod config;
mod flow;
mod invariants;
mod memory;
mod pipe;
pub mod plan;
#[cfg(test)]
mod proptests;
mod ring;
mod rules;
mod scheduler;

pub use crate::policy::{TargetRate, Tokens};
pub use config::{FlowControl, R2cpConfig, HOL_PATIENCE, PACING_QUANTUM};
pub use memory::{RouteMemory, Routes, MEMORY_LIFETIME};
pub use pipe::{Cap, PathState, Pipe, PipeReport};
pub use rules::{Rule, Rules};
pub use scheduler::{Ahead, Binding, Limits, Pick, Scheduler, Scheduling};

use std::collections::VecDeque;

use crate::endpoint::{AppEvent, Endpoint, EndpointStats, HostEvent, PathId, PathStats};
use crate::rcp::RcpVariant;
use crate::stream::ReassemblyBuffer;
use crate::time::Instant;
use crate::wire::rcp::{RcpFlags, RcpHeader};
use plan::silence::{self, SilenceView};

/// The receiving end of an R²CP connection: the engine and its pipes.
#[derive(Debug)]
pub struct R2cpReceiver {
    config: R2cpConfig,
    buffer: ReassemblyBuffer,
    sched: Scheduler,
    /// Live pipes, in the order they were opened.
    pipes: Vec<Pipe>,
    /// Bytes delivered by pipes that have been closed, by path.
    closed_pipes: Vec<PathStats>,
    fin: Option<u64>,
    established: bool,
    delivered_all: bool,
    read_since_poll: bool,
    /// Rotates `poll_transmit` over the pipes.
    next_pipe: usize,
    /// Last datagrams of pipes already removed.
    farewell: VecDeque<(PathId, RcpHeader)>,
    timeouts_closed: u64,
    recoveries_closed: u64,
    /// What the last pipe on each route knew of its path.
    routes: Routes,
    /// Pending handoffs: (retire this path, once this one is ready).
    handoffs: Vec<(PathId, PathId)>,
    /// The token state of a target-rate policy.
    tokens: Option<Tokens>,
    /// When a pipe blocked by the buffer may re-request the head of line
    /// that a slower pipe holds, if nothing else wakes the engine first.
    reinject_at: Option<Instant>,
    /// Requests are held (a host handing over a batch of datagrams that
    /// arrived together, [`R2cpReceiver::hold_requests`]), and a datagram
    /// came that would have let the pipes ask.
    held: bool,
    ask_due: bool,
    events: VecDeque<AppEvent>,
    stats: EndpointStats,
}

impl R2cpReceiver {
    /// A receiver with no pipe yet; the driver opens paths with
    /// [`HostEvent::PathUp`].
    pub fn new(config: R2cpConfig) -> Self {
        Self::resuming_at(config, 0)
    }

    /// A receiver that already holds the stream's first `offset` bytes (a
    /// download resumed from a partial file): it asks only for the rest,
    /// its first requests carry SEG.DEQ = `offset` (so a sender skips
    /// there, as for a replica joining midway, §4.4.2), and
    /// [`Endpoint::read`] returns bytes from `offset` on.
    pub fn resuming_at(config: R2cpConfig, offset: u64) -> Self {
        R2cpReceiver {
            buffer: ReassemblyBuffer::starting_at(offset),
            sched: Scheduler::starting_at(config.pipe.mss, config.scheduling, offset),
            pipes: Vec::new(),
            closed_pipes: Vec::new(),
            fin: None,
            established: false,
            delivered_all: false,
            read_since_poll: false,
            next_pipe: 0,
            farewell: VecDeque::new(),
            timeouts_closed: 0,
            recoveries_closed: 0,
            routes: Routes::default(),
            handoffs: Vec::new(),
            tokens: config.target.map(Tokens::new),
            reinject_at: None,
            held: false,
            ask_due: false,
            events: VecDeque::new(),
            stats: EndpointStats::default(),
            config,
        }
    }

    /// The in-order bytes ready for the application, in place (two slices,
    /// in order): what [`Endpoint::read`] would copy out.
    /// [`R2cpReceiver::consume`] takes them.
    pub fn ready(&self) -> (&[u8], &[u8]) {
        self.buffer.ready()
    }

    /// Takes the first `n` ready bytes, as a read of them would.
    pub fn consume(&mut self, n: usize) {
        self.buffer.consume(n);
        self.read_since_poll |= n > 0;
    }

    /// Holds the pipes' requests until [`R2cpReceiver::release_requests`]:
    /// the datagrams handled meanwhile are taken as having arrived
    /// together, and the pipes ask once, after the last of them, instead of
    /// after each (§4.3.1's `send()` runs once per batch). A host that
    /// reads its sockets in batches (several datagrams per system call)
    /// uses this; the decisions are those of one arrival of them all, and
    /// the scheduler's walks run once per batch instead of once per
    /// datagram. The simulator hands over one datagram per arrival and
    /// never holds.
    pub fn hold_requests(&mut self) {
        self.held = true;
    }

    /// Ends [`R2cpReceiver::hold_requests`]: the pipes ask, at `now`, for
    /// what the datagrams handled meanwhile let them.
    pub fn release_requests(&mut self, now: Instant) {
        self.held = false;
        if std::mem::take(&mut self.ask_due) {
            self.pump(now);
            self.debug_check();
        }
    }

    /// The scheduling structures (for inspection).
    pub fn scheduler(&self) -> &Scheduler {
        &self.sched
    }

    /// Figures of every pipe, open or closed, in the order opened.
    fn pipe_stats(&self) -> Vec<PathStats> {
        let mut v = self.closed_pipes.clone();
        v.extend(self.pipes.iter().map(|p| PathStats {
            path: p.path,
            delivered: p.delivered,
            cwnd: p.cwnd(),
            handshake: p.handshake(),
        }));
        v
    }

    /// The live pipe on `path`.
    pub fn pipe(&self, path: PathId) -> Option<&Pipe> {
        self.pipes.iter().find(|p| p.path == path)
    }

    /// In-order point of the aggregate stream (SEG.DEQ).
    pub fn delivered(&self) -> u64 {
        self.buffer.next()
    }

    /// What the silence rules see of every pipe.
    fn silence_views(&self) -> Vec<SilenceView> {
        self.pipes
            .iter()
            .map(|p| SilenceView {
                live: p.live(),
                probing: p.probing(),
                syn_sent_at: p.syn_sent_at(),
                silent_at: p.silent_at(),
                stream_stopped_at: p.stream_stopped_at(),
            })
            .collect()
    }

    /// When a working path counts as silent with a pipe still opening
    /// beside it (rule `eager_syn`): its SYN then goes again.
    fn syn_deadline(&self) -> Option<Instant> {
        if !self.config.rules.eager_syn || self.pipes.iter().all(|p| p.syn_sent_at().is_none()) {
            return None;
        }
        silence::syn_deadline(&self.silence_views())
    }

    /// When the only working path counts as silent while others probe
    /// theirs (rule `take_back`).
    fn last_path_silent_at(&self) -> Option<Instant> {
        if !self.config.rules.take_back
            || self.pipes.iter().filter(|p| p.live()).count() != 1
            || !self.pipes.iter().any(Pipe::probing)
        {
            return None;
        }
        silence::last_path_silent_at(&self.silence_views())
    }

    /// The only working pipe's path fell silent while other pipes probe
    /// theirs (rule `take_back`): it is timed out, all it held going back
    /// to be asked again, and every probing pipe is taken as heard: it
    /// resumes the window it had before its outage, paced, and asks at
    /// once.
    fn take_silent_paths_as_back(&mut self, now: Instant) {
        if self.last_path_silent_at().is_none_or(|t| t > now) {
            return;
        }
        let Some(last) = self.pipes.iter().position(Pipe::live) else {
            return;
        };
        let r = self.pipes[last].time_out(now);
        self.report(now, last, r);
        for i in 0..self.pipes.len() {
            if i != last && self.pipes[i].probing() {
                let r = self.pipes[i].assume_heard(now);
                self.report(now, i, r);
            }
        }
    }
}

impl Endpoint for R2cpReceiver {
    fn handle_datagram(&mut self, now: Instant, path: PathId, datagram: &[u8]) {
        let Ok((h, payload)) = RcpHeader::parse(datagram) else {
            self.stats.malformed += 1;
            return;
        };
        let Some(i) = self.index(path) else {
            return; // a pipe already closed
        };
        if h.conn_id != self.pipes[i].conn_id() || h.flags.contains(RcpFlags::REQ) {
            self.stats.malformed += 1;
            return;
        }
        let syn = h.flags.contains(RcpFlags::SYN);
        let ack = h.flags.contains(RcpFlags::ACK);
        if syn && ack {
            let r = self.pipes[i].on_synack(now, &h);
            self.report(now, i, r);
        } else if !syn && self.pipes[i].state().established() && !ack {
            self.pipes[i].heard(now);
            self.on_data(now, i, &h, payload);
        }
        self.check_handoffs();
        self.retire_drained();
        if self.held {
            self.ask_due = true;
        } else {
            self.pump(now);
        }
        self.debug_check();
    }

    fn handle_event(&mut self, now: Instant, event: HostEvent) {
        match event {
            HostEvent::PathUp {
                path,
                controller,
                route,
            } if self.index(path).is_none() => {
                let mut cfg = self.config.pipe;
                // §4.3.3: congestion control is per pipe, chosen per interface.
                if let Some(a) = controller {
                    cfg.cc.algorithm = a;
                }
                if path.0 < 64 && self.config.eln_paths >> path.0 & 1 == 1 {
                    cfg.variant = RcpVariant::RcpEln;
                }
                cfg.conn_id = R2cpConfig::pipe_conn_id(cfg.conn_id, path);
                let mut p = Pipe::new(cfg, path, self.config.rules);
                p.set_pacing_quantum(self.config.pacing_quantum);
                p.route = route;
                let memory = route.filter(|_| self.config.rules.route_memory);
                if let Some(m) = memory.and_then(|r| self.routes.recall(r, now)) {
                    p.recall(m);
                }
                p.open(now);
                self.pipes.push(p);
            }
            HostEvent::PathHandoff { from, to } => {
                self.handoffs.push((from, to));
                self.check_handoffs();
                self.retire_drained();
            }
            HostEvent::PathClose { path } => {
                if let Some(i) = self.index(path) {
                    self.pipes[i].retire();
                    self.retire_drained();
                }
            }
            HostEvent::PathDown { path } => {
                if let Some(i) = self.index(path) {
                    self.remove_pipe(i);
                    self.pump(now);
                }
            }
            HostEvent::WirelessLoss { path, datagram } => {
                let Some(i) = self.index(path) else { return };
                let Ok((h, payload)) = RcpHeader::parse(&datagram) else {
                    return;
                };
                if h.conn_id == self.pipes[i].conn_id()
                    && !payload.is_empty()
                    && !h.flags.contains(RcpFlags::REQ)
                {
                    let r = self.pipes[i].wireless_loss(now, h.id);
                    self.report(now, i, r);
                    self.pump(now);
                }
            }
            HostEvent::LinkDown { path } => {
                if let Some(i) = self.index(path) {
                    let r = self.pipes[i].suspend();
                    self.report(now, i, r);
                    self.pump(now);
                }
            }
            HostEvent::LinkUp { path } => {
                if let Some(i) = self.index(path) {
                    self.pipes[i].link_up(now);
                    self.pump(now);
                }
            }
            _ => {}
        }
        self.debug_check();
    }

    fn poll_transmit(&mut self, now: Instant, buf: &mut Vec<u8>) -> Option<PathId> {
        if self.read_since_poll {
            self.read_since_poll = false;
            self.resume();
            self.pump(now);
        }
        let (path, h) = if let Some(f) = self.farewell.pop_front() {
            f
        } else {
            let n = self.pipes.len();
            let i = (0..n)
                .map(|k| (self.next_pipe + k) % n)
                .find(|&i| self.pipes[i].has_output())?;
            self.next_pipe = (i + 1) % n;
            let p = &mut self.pipes[i];
            (p.path, p.poll_header().expect("has output"))
        };
        buf.clear();
        h.emit(buf);
        self.stats.datagrams_sent += 1;
        Some(path)
    }

    fn poll_timeout(&self) -> Option<Instant> {
        let tokens = self.tokens.as_ref().and_then(Tokens::deadline);
        let tokens = tokens.filter(|_| !self.delivered_all);
        let reinject = self.reinject_at.filter(|_| !self.delivered_all);
        self.pipes
            .iter()
            .filter_map(Pipe::poll_timeout)
            .chain(tokens)
            .chain(reinject)
            .chain(self.syn_deadline())
            .chain(self.last_path_silent_at())
            .min()
    }

    fn handle_timeout(&mut self, now: Instant) {
        if self.tokens.as_mut().is_some_and(|t| t.on_timer(now)) {
            // Figure 10 lines 18–19: every frozen pipe may ask again.
            self.resume();
        }
        if self.reinject_at.is_some_and(|t| t <= now) {
            // The head of line a blocked pipe waits for is now late enough
            // to be asked for again.
            self.reinject_at = None;
            self.resume();
        }
        let live = self.pipes.iter().any(Pipe::live);
        let rules = self.config.rules;
        for i in 0..self.pipes.len() {
            if self.pipes[i].poll_timeout().is_some_and(|d| d <= now) {
                if rules.eager_syn && live && self.pipes[i].handshake_due(now) {
                    // Beside a working pipe, a SYN is not backed off
                    // (`pipe::handshake`).
                    self.pipes[i].open_again(now);
                }
                let r = self.pipes[i].handle_timeout(now);
                self.report(now, i, r);
            }
        }
        if rules.eager_syn && self.syn_deadline().is_some_and(|t| t <= now) {
            // A working path fell silent: the pipes still opening whose SYN
            // left before it last answered send it again now.
            for i in silence::syns_again(now, &self.silence_views()) {
                self.pipes[i].open_again(now);
            }
        }
        if rules.take_back {
            self.take_silent_paths_as_back(now);
        }
        if rules.take_back && live && !self.pipes.iter().any(Pipe::live) {
            // The last working path fell silent: every other silent path is
            // probed at once, in case one of them came back meanwhile.
            for p in &mut self.pipes {
                p.probe_now(now);
            }
        }
        self.check_handoffs();
        self.retire_drained();
        self.pump(now);
        self.debug_check();
    }

    fn poll_app_event(&mut self) -> Option<AppEvent> {
        self.events.pop_front()
    }

    fn read(&mut self, buf: &mut [u8]) -> usize {
        let n = self.buffer.read(buf);
        self.read_since_poll |= n > 0;
        n
    }

    fn path_stats(&self) -> Vec<PathStats> {
        let mut v = self.pipe_stats();
        v.sort_by_key(|p| p.path.0);
        v
    }

    fn stats(&self) -> EndpointStats {
        EndpointStats {
            retransmits: self.sched.re_requests(),
            timeouts: self.timeouts_closed + self.pipes.iter().map(|p| p.timeouts).sum::<u64>(),
            fast_recoveries: self.recoveries_closed
                + self.pipes.iter().map(|p| p.recoveries).sum::<u64>(),
            cwnd: self.pipes.iter().map(Pipe::cwnd).sum(),
            ..self.stats
        }
    }
}
