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

mod head_of_line;
mod pipe;
mod queue_cap;
mod rules;
mod scheduler;
mod silence;

use crate::cc::coupled::{increase_scale, Coupling, SubflowView};
pub use crate::policy::{TargetRate, Tokens};
pub use pipe::{Cap, PathState, Pipe, PipeReport};
pub use rules::{Rule, Rules};
pub use scheduler::{Ahead, Binding, Limits, Pick, Scheduler, Scheduling};

use std::collections::VecDeque;

use crate::endpoint::{AppEvent, Endpoint, EndpointStats, HostEvent, PathId, PathStats};
use crate::rcp::{RcpConfig, RcpVariant};
use crate::stream::ReassemblyBuffer;
use crate::time::{Duration, Instant};
use crate::wire::rcp::{RcpFlags, RcpHeader};

/// How long past its request the head of line may wait on a pipe slower
/// than another that could fetch it, once its answer is overdue: the bound
/// on a stall while a working path is up is this plus that path's round
/// trip.
pub const HOL_PATIENCE: Duration = Duration::from_secs(1);

/// R²CP receiver parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct R2cpConfig {
    /// The template of every pipe (segment size, controller, timers, duplicate
    /// threshold); `window` is the aggregate receive buffer in segments.
    pub pipe: RcpConfig,
    /// How segments are assigned to pipes.
    pub scheduling: Scheduling,
    /// The rules beyond the paper the engine applies ([`Rules::ALL`] for
    /// `r2cp`, [`Rules::PAPER`] for `r2cp-paper`).
    pub rules: Rules,
    /// Policy-based aggregation (pTCP §6.2.2, Figure 10): a target rate
    /// served first by a preferred path; `None` aggregates best effort.
    pub target: Option<TargetRate>,
    /// Coupled increase across the pipes, computed at the receiver from
    /// its own per-pipe windows and round trips (beyond the papers: each
    /// pipe otherwise grows as its own RCP).
    pub coupling: Coupling,
    /// Pipes that act on their host's wireless-loss reports, as RCP-ELN
    /// (RCP §3.4.2) chosen per interface (§4.3.3): bit `p` for the pipe on
    /// path `p` (paths 0 to 63).
    pub eln_paths: u64,
}

impl R2cpConfig {
    /// The connection id the pipe on `path` uses at its sender: the
    /// connection's id in the low 16 bits, the path in the high ones.
    pub fn pipe_conn_id(conn_id: u32, path: PathId) -> u32 {
        (conn_id & 0xffff) | (u32::from(path.0) << 16)
    }

    /// Receive buffer in bytes.
    pub fn rwnd_bytes(&self) -> u64 {
        self.pipe.rwnd_bytes()
    }
}

/// What every pipe asking in one `pump` is asked against.
struct Ask<'a> {
    now: Instant,
    /// The in-order point (SEG.DEQ).
    deq: u64,
    buffer_end: u64,
    /// One past the last byte any sender has said it holds.
    known: u64,
    /// Round trips of the pipes that will request again.
    rtts: &'a [(PathId, Duration)],
}

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
    /// Pending handoffs: (retire this path, once this one is ready).
    handoffs: Vec<(PathId, PathId)>,
    /// The token state of a target-rate policy.
    tokens: Option<Tokens>,
    /// When a pipe blocked by the buffer may re-request the head of line
    /// that a slower pipe holds, if nothing else wakes the engine first.
    reinject_at: Option<Instant>,
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
            handoffs: Vec::new(),
            tokens: config.target.map(Tokens::new),
            reinject_at: None,
            events: VecDeque::new(),
            stats: EndpointStats::default(),
            config,
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

    /// §3.3.4 / §4.3.4: requests must fit the receive buffer, counting what
    /// the application has not read yet.
    fn buffer_end(&self) -> u64 {
        let consumed = self.buffer.next() - self.buffer.ready_bytes() as u64;
        consumed + self.config.rwnd_bytes()
    }

    /// True when `len` bytes at `start` lie within what was ever requested
    /// (below the scheduler's frontier) and within one segment and the
    /// receive buffer: only such data is stored, so whatever a sender sends
    /// the buffer holds at most its size.
    fn asked_for(&self, start: u64, len: usize) -> bool {
        let end = start.saturating_add(len as u64);
        len as u64 <= self.config.pipe.mss
            && end <= self.sched.frontier()
            && end <= self.buffer_end()
    }

    /// Lets every pipe with room in its window request (§4.3.1 `send()`),
    /// freezing those the buffer cannot serve (`active`).
    fn pump(&mut self, now: Instant) {
        if self.delivered_all {
            return;
        }
        // A retiring pipe makes no further request: its outstanding ones
        // do not rank.
        let rules = self.config.rules;
        let rtts: Vec<(PathId, Duration)> = self
            .pipes
            .iter()
            .filter(|p| p.live())
            .map(|p| (p.path, rtt_of(rules, p, now)))
            .collect();
        let deq = self.buffer.next();
        let ask = Ask {
            now,
            deq,
            buffer_end: self.buffer_end(),
            // Every sender serves the same stream (§4.4.2: replicas), and one
            // asked past what its application has written holds the pull
            // until it has (SEG.DEQ makes a file-serving application seek
            // there): what any sender has said it holds may be asked of all.
            // A pipe left idle while the others moved the stream on would
            // otherwise wait for a persist probe. (Only what senders said: a
            // joining pipe's own first guess stays its own.)
            known: self.pipes.iter().map(|p| p.advertised).max().unwrap_or(0),
            rtts: &rtts,
        };
        // A pipe taking over in a handoff asks first, so the buffer space
        // the old pipe's arrivals free goes to it and its window opens while
        // the old pipe still delivers (§4.4.1). The others ask one segment at
        // a time, the pipe with the fewest bytes outstanding first: where
        // the buffer is short, each pipe holds an equal part of it (more
        // where another cannot use its part), so no pipe whose window could
        // cover the whole buffer keeps the others out, a new pipe's window
        // opens at once, and a slow pipe does not tie up the buffer a quick
        // one would turn over several times meanwhile.
        self.set_queue_caps();
        let n = self.pipes.len();
        let mut done = vec![false; n];
        loop {
            let next = if rules.ask_order {
                (0..n).filter(|&i| !done[i]).min_by_key(|&i| {
                    let p = &self.pipes[i];
                    let taking_over = self.handoffs.iter().any(|&(_, to)| to == p.path);
                    (!taking_over, p.in_flight(), i)
                })
            } else {
                // Each pipe in the order opened, as much as it may.
                (0..n).find(|&i| !done[i])
            };
            let Some(i) = next else { break };
            if !self.ask(i, &ask) {
                done[i] = true;
            }
        }
    }

    /// One `send()` of pipe `i` (§4.3.1): true if it requested a segment;
    /// false if it may not, or froze (`active`).
    fn ask(&mut self, i: usize, ask: &Ask) -> bool {
        let p = &self.pipes[i];
        let limits = Limits {
            buffer_end: ask.buffer_end,
            avail: p.avail.max(ask.known),
            fin: self.fin.or(p.fin),
        };
        if !p.can_request(ask.now) {
            self.pipes[i].note_paced(ask.now);
            let p = &self.pipes[i];
            // The head of line overdue on a slower pipe is asked of a
            // working one even when that one's window is full (one segment
            // past it, as a fast retransmit goes): in-order delivery waits
            // for nothing else, and a window cut below what is in flight,
            // or opening in slow start, may not free a slot for a round
            // trip. But not past a window that is just full while answers
            // keep coming: the next one opens a slot, and the head of line
            // takes it (a request is asked of the head of line first). A
            // request past such a window arrives right behind its last one
            // at a queue the window keeps full, and a drop-tail queue
            // drops it: the only losses of a steady path, twice in a row,
            // were such re-requests of the head of line (4.2 s of stall in
            // the random mobility test).
            return p.live()
                && !p.frozen
                && !p.slot_at_next_answer(ask.now)
                && self.reinject(i, ask, limits, false);
        }
        if self.tokens.as_ref().is_some_and(|t| !t.allows(p.path)) {
            // pTCP Figure 10: throttled until the token timer.
            self.pipes[i].frozen = true;
            return false;
        }
        // A pipe whose path fell silent is probed, not trusted (beyond
        // §4.3.5, which re-assigns what a closed pipe held): while another
        // pipe works, it takes nothing from the others. With redundant
        // striping it asks for the head of line that another pipe asks for
        // too (pTCP §4.1 (3)); without, a PROBE that carries no pull. Only
        // the last working path asks for data on its own.
        let others_live = self
            .pipes
            .iter()
            .enumerate()
            .any(|(j, q)| j != i && q.live());
        // The head of line held past its holder's RTO goes to a quicker
        // pipe first, buffer full or not: in-order delivery waits for it.
        if p.live() && self.reinject(i, ask, limits, false) {
            return true;
        }
        let p = &self.pipes[i];
        let pick = if p.probing() && others_live {
            if self.config.rules.redundant_striping {
                self.sched.send_redundant(limits)
            } else {
                self.pipes[i].probe_path(ask.now, ask.deq);
                return false;
            }
        } else {
            let rtt_of_path =
                |path: PathId| ask.rtts.iter().find(|(q, _)| *q == path).map(|(_, r)| *r);
            let (pipes, config) = (&self.pipes, &self.config);
            let ours = rtt_of(config.rules, p, ask.now);
            let ahead = |path: PathId| match pipes.iter().find(|q| q.path == path) {
                Some(q) if config.rules.look_ahead => ahead(ours, q, ask.now, config),
                _ => Ahead::PAPER,
            };
            self.sched.send_looking_ahead(
                ask.now,
                p.path,
                p.next_local(),
                ours,
                rtt_of_path,
                ahead,
                limits,
            )
        };
        match pick {
            Pick::Segment(s, e) => {
                if let Some(t) = self.tokens.as_mut() {
                    t.spend(p.path, e - s);
                }
                self.pipes[i].request(ask.now, s, e, ask.deq);
                true
            }
            Pick::Freeze => {
                if self.reinject(i, ask, limits, true) {
                    return true;
                }
                let p = &mut self.pipes[i];
                p.frozen = true;
                p.held_back();
                // Frozen with nothing outstanding for want of the sender's
                // data: probe it (§5.2.2), or nothing would ever tell us it
                // has more.
                if p.in_flight() == 0 && p.avail.max(ask.known) < ask.buffer_end {
                    p.persist(ask.now, ask.deq);
                }
                false
            }
        }
    }

    /// `resume()`: buffer space opened, every frozen pipe may ask again.
    fn resume(&mut self) {
        for p in &mut self.pipes {
            if p.frozen {
                p.pace_opening();
            }
            p.frozen = false;
        }
    }

    fn report(&mut self, now: Instant, i: usize, r: PipeReport) {
        if r.established {
            // A new pipe tells its sender at once where the connection
            // stands (SEG.DEQ), so a replica joining midway skips what is
            // held already (§4.4.2) and answers with what it has.
            let deq = self.buffer.next();
            self.pipes[i].probe(deq);
            if self.established {
                // Joining a transfer under way: its sender serves the same
                // content, so the pipe asks at once, right behind the PROBE,
                // for what the buffer can take (the sender serves a pull once
                // its application, seeking to SEG.DEQ, has written it). Its
                // first data thus comes one round trip after the handshake.
                let end = self.buffer_end();
                let p = &mut self.pipes[i];
                p.avail = p.avail.max(end);
            }
            if !self.established {
                // §4.3.2: established when the first pipe is.
                self.established = true;
                if let Some(t) = self.tokens.as_mut() {
                    t.start(now);
                }
                self.events.push_back(AppEvent::Established);
            }
        }
        let path = self.pipes[i].path;
        if !r.lost.is_empty() {
            // A segment went back to pending, below the buffer's end, and one
            // fewer request ranks: a frozen pipe may take it.
            self.resume();
        }
        for start in r.lost {
            let held = self.buffer.holds(start);
            if held {
                self.pipes[i].repaired(start);
            }
            self.sched.loss(start, path, held);
        }
    }

    fn on_data(&mut self, now: Instant, i: usize, h: &RcpHeader, payload: &[u8]) {
        let next = self.buffer.next();
        let start = self.pipes[i].offset_of(h.seq, next);
        if !payload.is_empty() && !self.asked_for(start, payload.len()) {
            self.stats.unsolicited += 1;
            return;
        }
        let avail = self.pipes[i].avail;
        self.pipes[i].learn(h, next);
        if self.pipes[i].avail > avail {
            self.pipes[i].frozen = false;
        }
        if let Some(f) = self.pipes[i].fin {
            self.fin = Some(self.fin.map_or(f, |g| g.min(f)));
        }
        if !payload.is_empty() {
            self.stats.data_arrivals += 1;
            let held = self.buffer.ready_bytes() as u64 + self.buffer.pending_bytes();
            if 4 * held >= 3 * self.config.rwnd_bytes() {
                self.stats.arrivals_buffer_75 += 1;
            }
            let new = self.buffer.insert(start, payload);
            for p in &mut self.pipes {
                p.repaired(start);
            }
            self.pipes[i].delivered += new;
            self.stats.duplicate_bytes += payload.len() as u64 - new;
            let answered = self.sched.recv(start).is_some();
            self.couple(i);
            let r = self.pipes[i].on_data(now, h.id);
            self.report(now, i, r);
            if self.buffer.next() > next {
                self.sched.delivered_to(self.buffer.next());
            }
            if answered || self.buffer.next() > next {
                // The buffer moved on, or one fewer request is outstanding:
                // the rank that froze a pipe may now put its segment inside
                // the buffer (with none outstanding it is the lowest pending
                // one, which always fits), so every frozen pipe asks again.
                self.resume();
            }
        }
        if self.fin.is_some_and(|f| self.buffer.next() >= f) && !self.delivered_all {
            self.delivered_all = true;
            self.events.push_back(AppEvent::Closed);
            let deq = self.buffer.next();
            for p in &mut self.pipes {
                p.close(deq);
            }
        }
    }

    /// The coupled increase (LIA, RFC 6356 §3) of pipe `i`, from every
    /// open pipe's window and smoothed round trip as the receiver measures
    /// them, set before `i` takes an arrival. R²CP's pipes run at the
    /// receiver, so the same equations apply with the receiver's estimates
    /// in place of the sender's.
    fn couple(&mut self, i: usize) {
        if self.config.coupling == Coupling::Uncoupled {
            return;
        }
        let views: Vec<SubflowView> = self
            .pipes
            .iter()
            .map(|p| SubflowView {
                cwnd: p.cwnd(),
                rtt: p.srtt(),
                interval: p.delivered_since_loss(),
            })
            .collect();
        let scale = increase_scale(self.config.coupling, &views, i);
        self.pipes[i].set_increase_scale(scale);
    }

    /// Deletes pipe `i` (§4.3.2 `close()`): what it had outstanding goes back
    /// to pending (§4.3.5) and its sender is told with a FIN request.
    fn remove_pipe(&mut self, i: usize) {
        let path = self.pipes[i].path;
        let buffer = &self.buffer;
        self.sched.unbind_path(path, |s| buffer.holds(s));
        let mut p = self.pipes.remove(i);
        self.closed_pipes.push(PathStats {
            path,
            delivered: p.delivered,
            cwnd: 0,
            handshake: p.handshake(),
        });
        self.timeouts_closed += p.timeouts;
        self.recoveries_closed += p.recoveries;
        p.close(self.buffer.next());
        self.farewell.extend(p.poll_header().map(|h| (path, h)));
        self.resume();
    }

    /// Carries out the handoffs whose new pipe is ready: the old pipe is
    /// retired (§4.4.1, "close the old pipe once the new one leaves slow
    /// start").
    fn check_handoffs(&mut self) {
        let pipes = &self.pipes;
        let ready: Vec<PathId> = self
            .handoffs
            .iter()
            .filter(|(from, to)| {
                let old = pipes.iter().find(|p| p.path == *from);
                let new = pipes.iter().find(|p| p.path == *to);
                match (old, new) {
                    (Some(o), Some(n)) => n.ready_to_take_over(o.in_flight()),
                    // The old pipe is gone already.
                    (None, _) => true,
                    (Some(_), None) => false,
                }
            })
            .map(|(from, _)| *from)
            .collect();
        self.handoffs.retain(|(from, _)| !ready.contains(from));
        for from in ready {
            if let Some(i) = self.index(from) {
                self.pipes[i].retire();
            }
        }
    }

    /// Closes the retiring pipes that have nothing outstanding.
    fn retire_drained(&mut self) {
        while let Some(i) = self.pipes.iter().position(Pipe::drained) {
            self.remove_pipe(i);
        }
    }

    fn index(&self, path: PathId) -> Option<usize> {
        self.pipes.iter().position(|p| p.path == path)
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
        self.pump(now);
    }

    fn handle_event(&mut self, now: Instant, event: HostEvent) {
        match event {
            HostEvent::PathUp { path, controller } if self.index(path).is_none() => {
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
            .chain(
                self.silence_deadline()
                    .filter(|_| self.config.rules.eager_syn),
            )
            .chain(
                self.last_path_silent_at()
                    .filter(|_| self.config.rules.take_back),
            )
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
        if rules.eager_syn {
            self.open_beside_silent(now);
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

/// The round trip pipe `p` counts with in the engine's decisions: what it
/// shows now (rule `shown_rtt`), or its smoothed one (the paper's `RTT_j`).
fn rtt_of(rules: Rules, p: &Pipe, now: Instant) -> Duration {
    if rules.shown_rtt {
        p.rtt_shown(now)
    } else {
        p.rtt_estimate()
    }
}

/// How the rank counts pipe `q`'s requests when a pipe showing round trip
/// `ours` (`p` below) asks.
fn ahead(ours: Duration, q: &Pipe, now: Instant, config: &R2cpConfig) -> Ahead {
    // How many round trips of `q` one of `p`'s spans: the ratio of the
    // round trips they show now, queues included. A pipe's own queue is
    // as much a part of when its request comes back as its path's
    // propagation (a 2 Mbit/s path with the round trip of a 20 Mbit/s WLAN
    // beside it and a 50-packet queue answers 200 ms later); the queue cap
    // (`queue_cap`) keeps that queue to about one bandwidth-delay product
    // while others share the buffer, so the ratio does not swing with
    // queues that would drain on their own.
    let (tp, tq) = (
        ours.as_nanos().max(1),
        rtt_of(config.rules, q, now).as_nanos().max(1),
    );
    let generations = tp / tq;
    // Beyond the paper, whose rank counts what `q` has outstanding (each
    // request triggers one more per round trip): a quicker pipe held
    // back by the receive buffer has few requests out, and that count
    // would let a slow pipe take the segments the quick one is about to
    // ask for, and hold the head of line behind them once the buffer
    // opens. So a quicker pipe counts, if more, what its window lets it
    // ask for whose answers arrive before `p`'s: a window per round trip
    // of its own for the time `p`'s request takes beyond one of `q`'s,
    // (RTT_p − RTT_q) / RTT_q windows, and, unless its requests are paced
    // (they then leave at about a window per round trip, not at once),
    // what of its window is unused now. This is the estimate of what the
    // fast subflow could send meanwhile that MPTCP's BLEST scheduler makes,
    // its ratio of round trips taken as a fraction (Ferlin et al., IFIP
    // Networking 2016); the window is taken at most the receive buffer.
    let could = if tp > tq {
        let window = q.window().min(config.rwnd_bytes());
        let unused = if q.is_paced() {
            0
        } else {
            window.saturating_sub(q.in_flight())
        };
        let meanwhile = u128::from(window) * u128::from(tp - tq) / u128::from(tq);
        unused.saturating_add(u64::try_from(meanwhile).unwrap_or(u64::MAX)) / config.pipe.mss
    } else {
        0
    };
    Ahead {
        generations,
        // What a pipe asked for longer ago than its patience allows
        // (see `reinject`) is not waited for.
        given_up_before: now.checked_sub(q.patience(HOL_PATIENCE)),
        could,
    }
}
