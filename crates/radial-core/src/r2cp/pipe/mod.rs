//! One RCP pipe of an R²CP connection (R²CP §4.1.3, §4.3): the per-path
//! half of RCP's receiver — handshake with its sender, congestion window,
//! RTT, loss detection and retransmission timer — in a local sequence
//! space. The engine decides which global segment each local request
//! carries.
//!
//! A pipe is a composition of components, each owning its state:
//!
//! - [`PathState`] (`state.rs`): where its path stands;
//! - `Handshake` (`handshake.rs`): its SYNs and their timer;
//! - `Requests` (`requests.rs`): what it has outstanding, by local number;
//! - `AnswerClock` (`answers.rs`): the answer-time model, round trips and
//!   the stream of answers;
//! - the congestion controller (`cc`) and its loss-recovery `Episode`
//!   (`episode.rs`), the delivery rate (`rate.rs`), the engine's `Cap`
//!   (`cap.rs`) and the `Pacing` of its requests (`pacer.rs`);
//! - `Outage` (`outage.rs`): what it keeps across its path's failure.
//!
//! This file holds the pipe's requests and their answers; `lifecycle.rs`
//! its handshake, link events and retirement; `outage.rs` its timeouts,
//! probes and resumption.

mod answers;
mod cap;
mod episode;
mod handshake;
mod lifecycle;
mod outage;
mod pacer;
mod rate;
mod requests;
mod state;
#[cfg(test)]
mod tests;

use std::collections::VecDeque;

pub use cap::Cap;
pub use state::PathState;

use super::Rules;
use crate::cc::coupled::LossIntervals;
use crate::cc::{Controller, LossCause};
use crate::endpoint::{PathId, RouteId};
use crate::rcp::RcpConfig;
use crate::seq::SeqNum;
use crate::time::{Duration, Instant};
use crate::wire::rcp::{PullBlock, RcpFlags, RcpHeader};
use answers::AnswerClock;
use episode::Episode;
use handshake::Handshake;
use outage::Outage;
use pacer::{Pacing, Shape};
use requests::Requests;

/// The shortest interval between two probes of a silent path: at most 20 a
/// second, however short its round trip.
pub const MIN_PROBE_INTERVAL: Duration = Duration::from_millis(50);

/// The longest interval between two probes of a silent path, however long
/// its round trip: a link that returns is found within this and one round
/// trip.
pub const MAX_PROBE_INTERVAL: Duration = Duration::from_millis(100);

/// What the pipe reports to the engine after an input.
#[derive(Debug, Default)]
pub struct PipeReport {
    /// Global starts of segments whose requests this pipe now deems lost
    /// (`loss()`).
    pub lost: Vec<u64>,
    /// The pipe became established (`established()`).
    pub established: bool,
}

/// One RCP pipe.
#[derive(Debug)]
pub struct Pipe {
    /// The path (local interface, sender) it runs on.
    pub path: PathId,
    /// The route of its path, if the host named one.
    pub route: Option<RouteId>,
    /// The window and slow-start threshold to resume once established,
    /// left by the route's last pipe (rule `route_memory`).
    recalled: Option<(u64, u64)>,
    config: RcpConfig,
    /// The engine's rules beyond the paper (those a pipe applies itself:
    /// `pacing`, `probe_silent`, `resume_window`).
    rules: Rules,
    state: PathState,
    handshake: Handshake,
    /// The sender's initial sequence number, once known.
    isn: Option<SeqNum>,
    requests: Requests,
    answers: AnswerClock,
    cc: Controller,
    /// The loss-recovery episode: one window cut per window of losses.
    recovery: Episode,
    /// The next request may go out whatever the window (fast retransmit).
    fast_retransmit: bool,
    rate: rate::DeliveryRate,
    cap: Cap,
    pacing: Pacing,
    outage: Outage,
    rto_deadline: Option<Instant>,
    persist_deadline: Option<Instant>,
    /// SEG.DEQ of the connection as last told to this pipe.
    deq: u64,
    /// `active` (§4.3.1): frozen for lack of receive buffer until resumed.
    pub frozen: bool,
    /// One past the last byte this pipe may ask its sender for (global): what
    /// the sender advertised, or more for a pipe joining a transfer under way.
    pub avail: u64,
    /// One past the last byte the sender has said it holds (global).
    pub advertised: u64,
    /// End of the stream, once the sender marked it.
    pub fin: Option<u64>,
    out: VecDeque<RcpHeader>,
    /// New bytes this pipe delivered into the receive buffer.
    pub delivered: u64,
    /// Delivered bytes between and since losses (for coupled increase).
    intervals: LossIntervals,
    /// Retransmission-timer expiries.
    pub timeouts: u64,
    /// Loss-recovery episodes.
    pub recoveries: u64,
}

impl Pipe {
    /// A pipe on `path` speaking to an unchanged RCP sender with `config`
    /// (its `conn_id` names the pipe's connection at that sender), under
    /// the engine's `rules`.
    pub fn new(config: RcpConfig, path: PathId, rules: Rules) -> Self {
        Pipe {
            path,
            route: None,
            recalled: None,
            rules,
            state: PathState::Opening,
            handshake: Handshake::default(),
            isn: None,
            requests: Requests::default(),
            answers: AnswerClock::new(config.rtt),
            cc: Controller::new(config.cc),
            recovery: Episode::default(),
            fast_retransmit: false,
            rate: rate::DeliveryRate::new(),
            cap: Cap::default(),
            pacing: Pacing::new(rules.pacing),
            outage: Outage::default(),
            rto_deadline: None,
            persist_deadline: None,
            deq: 0,
            frozen: false,
            avail: 0,
            advertised: 0,
            fin: None,
            out: VecDeque::new(),
            delivered: 0,
            intervals: LossIntervals::default(),
            timeouts: 0,
            recoveries: 0,
            config,
        }
    }

    // --- what the engine sees ---

    /// Where the pipe's path stands.
    pub fn state(&self) -> PathState {
        self.state
    }

    /// The connection id of this pipe at its sender.
    pub fn conn_id(&self) -> u32 {
        self.config.conn_id
    }

    /// True when the pipe can be counted on: it works (or, without rule
    /// `probe_silent`, it is silent but goes on requesting as RCP does).
    pub fn live(&self) -> bool {
        match self.state {
            PathState::Working => true,
            PathState::Silent => !self.rules.probe_silent,
            _ => false,
        }
    }

    /// True while the pipe probes a path that fell silent (rule
    /// `probe_silent`).
    pub fn probing(&self) -> bool {
        self.state == PathState::Silent && self.rules.probe_silent
    }

    /// True while the host says the pipe's interface has no link.
    pub fn suspended(&self) -> bool {
        matches!(self.state, PathState::Suspended { .. })
    }

    /// True once the pipe retires.
    pub fn draining(&self) -> bool {
        matches!(self.state, PathState::Draining { .. })
    }

    /// True when a retiring pipe has nothing left to wait for.
    pub fn drained(&self) -> bool {
        match self.state {
            PathState::Draining { established } => !established || self.requests.is_empty(),
            _ => false,
        }
    }

    /// The congestion window in bytes.
    pub fn cwnd(&self) -> u64 {
        self.cc.window().cwnd
    }

    /// What the pipe may have outstanding: its congestion window, or the
    /// engine's cap on it if lower.
    pub fn window(&self) -> u64 {
        self.cap.window(self.cwnd())
    }

    /// The window the pipe grows to over `span` if each of its round trips
    /// (`rtt`) brings what it asks: doubled per round trip in slow start,
    /// a segment more per round trip after (RFC 5681 §3.1), within the
    /// receive buffer and its cap.
    pub fn window_within(&self, span: Duration, rtt: Duration) -> u64 {
        let w = self.cc.window();
        let rwnd = self.config.rwnd_bytes();
        let rounds = span.as_secs_f64() / rtt.as_secs_f64().max(1e-6);
        let grown = if w.cwnd < w.ssthresh {
            let doubled = w.cwnd as f64 * rounds.min(64.0).exp2();
            doubled.min(w.ssthresh.max(w.cwnd) as f64 + self.config.mss as f64 * rounds)
        } else {
            w.cwnd as f64 + self.config.mss as f64 * rounds
        };
        self.cap.window((grown.min(rwnd as f64) as u64).max(w.cwnd))
    }

    /// Sets how long of requests at its pace a held-back pipe waits for
    /// ([`crate::r2cp::R2cpConfig::pacing_quantum`]).
    pub fn set_pacing_quantum(&mut self, quantum: Duration) {
        self.pacing.set_quantum(quantum);
    }

    /// Bytes requested and neither arrived nor deemed lost.
    pub fn in_flight(&self) -> u64 {
        self.requests.in_flight()
    }

    /// The local number the next request gets.
    pub fn next_local(&self) -> u64 {
        self.requests.next_local()
    }

    /// True when the pipe's request `local` is outstanding.
    pub fn holds_request(&self, local: u64) -> bool {
        self.requests.holds(local)
    }

    /// One past the last global byte the pipe has outstanding.
    pub fn requested_end(&self) -> Option<u64> {
        self.requests.by_local().map(|(_, r)| r.end).max()
    }

    /// Whether the pipe's count of what it has in flight adds up.
    pub fn consistent(&self) -> bool {
        self.requests.consistent()
    }

    /// The highest delivery rate of the pipe's last ten round trips, in
    /// bytes per second (0 before a sample).
    pub fn delivery_rate(&self) -> u64 {
        self.rate.max_rate()
    }

    /// How long a request given up on is kept to time a late answer
    /// (rule `late_samples`): the timeout's upper bound (RFC 6298 §2.5),
    /// the longest round trip the estimator takes as one.
    fn given_up_kept(&self) -> Duration {
        self.config.rtt.max_rto
    }

    /// The bandwidth-delay product of the pipe's path: its highest recent
    /// delivery rate over its shortest round trip (`None` before samples).
    pub fn bdp(&self) -> Option<u64> {
        self.answers.min_rtt().and_then(|m| self.rate.bdp(m))
    }

    /// The smoothed round trip, once sampled.
    pub fn srtt(&self) -> Option<Duration> {
        self.answers.srtt()
    }

    /// The shortest round trip seen on the pipe, once sampled.
    pub fn min_rtt(&self) -> Option<Duration> {
        self.answers.min_rtt()
    }

    /// The round-trip estimate (R²CP §4.3.1's `RTT_j`): the smoothed RTT, or
    /// the initial RTO before any sample.
    pub fn rtt_estimate(&self) -> Duration {
        self.answers.estimate()
    }

    /// How long a request of this pipe may be outstanding before the engine
    /// stops waiting for it: its RTO, at most `cap`, never less than its
    /// path's shortest round trip.
    pub fn patience(&self, cap: Duration) -> Duration {
        self.answers.patience(cap)
    }

    /// The round trip a request sent now should take: what the pipe has
    /// outstanding, and this request, at the highest rate its path has
    /// delivered lately (the flight over the rate: Little's law), but no
    /// less than the path's shortest round trip; the estimate before the
    /// rate is measured.
    pub fn rtt_expected(&self) -> Duration {
        let rate = self.rate.max_rate();
        match self.answers.min_rtt() {
            Some(min) if rate > 0 => {
                let bytes = u128::from(self.in_flight() + self.config.mss);
                let drain = bytes * 1_000_000_000 / u128::from(rate);
                min.max(Duration::from_nanos(drain.min(u128::from(u64::MAX)) as u64))
            }
            _ => self.rtt_estimate(),
        }
    }

    /// The round trip the pipe shows now (`AnswerClock::shown`): a path
    /// that slowed down or died looks so at once.
    pub fn rtt_shown(&self, now: Instant) -> Duration {
        self.answers.shown(now, &self.requests, self.rtt_expected())
    }

    /// Whether the path fell silent for a request sent at `asked`.
    pub fn fell_silent(&self, now: Instant, asked: Instant) -> bool {
        self.answers.fell_silent(now, asked)
    }

    /// When the request sent at `asked` missed its turn in the stream of
    /// answers, if that is known.
    pub fn turn_missed_at(&self, asked: Instant) -> Option<Instant> {
        self.answers.turn_missed_at(asked, &self.requests)
    }

    /// When the path counts as silent since its oldest request left, if
    /// nothing has arrived since.
    pub fn unanswered_at(&self) -> Option<Instant> {
        self.answers.unanswered_at(&self.requests)
    }

    /// When the path counts as fallen silent under what it holds.
    pub fn stream_stopped_at(&self) -> Option<Instant> {
        self.answers.stream_stopped_at(&self.requests)
    }

    /// When a working pipe's path will count as silent if nothing arrives
    /// meanwhile, with when it last answered.
    pub fn silent_at(&self) -> Option<(Instant, Instant)> {
        if !self.live() {
            return None;
        }
        self.answers.silent_at(&self.requests)
    }

    /// When, at the pace it answers now, the pipe should bring its request
    /// sent at `asked`.
    pub fn answer_expected(&self, now: Instant, asked: Instant) -> Option<Instant> {
        self.answers.expected(now, asked, &self.requests)
    }

    /// Whether the pipe's window is full but its next answer, due soon,
    /// opens a slot in it: no more than its window is outstanding, and its
    /// answers keep coming at their pace.
    pub fn slot_at_next_answer(&self, now: Instant) -> bool {
        self.answers.answering(now)
            && !self.window_has_room()
            && !self.requests.is_empty()
            && self.in_flight() <= self.window()
    }

    /// The timeout to arm for a request now: the backed-off RTO, but while
    /// the pipe probes a silent path, its shortest round trip within
    /// [`MIN_PROBE_INTERVAL`] and [`MAX_PROBE_INTERVAL`] (TCP-Probing's
    /// probe cycle): the outage emptied its queue, so an answer, if the path
    /// is back, takes about its propagation.
    fn timer(&self) -> Duration {
        if self.probing() {
            self.answers
                .probe_interval(MIN_PROBE_INTERVAL, MAX_PROBE_INTERVAL)
        } else {
            self.answers.rto()
        }
    }

    /// What the pipe's pace depends on now.
    fn shape(&self) -> Shape {
        let w = self.cc.window();
        Shape {
            window: self.window(),
            cwnd: w.cwnd,
            srtt: self.answers.srtt(),
            slow_start: w.cwnd < w.ssthresh,
            capped: self.cap.0.is_some(),
            next_local: self.next_local(),
            mss: self.config.mss,
        }
    }

    /// Whether the pipe's requests are paced now.
    pub fn is_paced(&self) -> bool {
        self.pacing.pace(self.shape()).is_some()
    }

    /// Sets the engine's cap on what the pipe may have outstanding.
    pub fn set_cap(&mut self, cap: Cap) {
        self.cap = cap;
    }

    /// The engine had nothing this pipe could ask for although its window
    /// had room: its delivery-rate samples are app-limited until what it has
    /// out now is answered.
    pub fn held_back(&mut self) {
        self.rate.on_app_limited(self.in_flight());
    }

    /// Scales the congestion-avoidance increase (coupled pipes; see
    /// [`crate::cc::coupled`]).
    pub fn set_increase_scale(&mut self, scale: f64) {
        self.cc.set_increase_scale(scale);
    }

    /// Bytes delivered between its last two losses or since the last one,
    /// whichever is more (OLIA's ℓ).
    pub fn delivered_since_loss(&self) -> u64 {
        self.intervals.value()
    }

    /// How long the handshake took (first SYN to SYN+ACK), once done.
    pub fn handshake(&self) -> Option<Duration> {
        self.handshake.took()
    }

    fn wire(&self, offset: u64) -> SeqNum {
        self.isn.unwrap_or(self.config.isn) + 1u32 + offset
    }

    /// The global offset of `seq`, near `near`.
    pub fn offset_of(&self, seq: SeqNum, near: u64) -> u64 {
        let delta = seq.since(self.wire(near));
        (near as i64 + delta).max(0) as u64
    }

    fn window_has_room(&self) -> bool {
        self.in_flight() + self.config.mss <= self.window()
    }

    // --- requests and their answers ---

    /// May the pipe request one more segment now?
    pub fn can_request(&self, now: Instant) -> bool {
        self.state.established()
            && !self.frozen
            && !self.draining()
            && !self.suspended()
            && self.outage.probe_deadline().is_none()
            && (self.fast_retransmit
                || (self.window_has_room() && self.pacing.ready(now, self.shape())))
    }

    /// The pipe has room in its window but its pace holds it back: it asks
    /// again when the pace lets it ([`Pipe::poll_timeout`]).
    pub fn note_paced(&mut self, now: Instant) {
        let (shape, room) = (self.shape(), self.window_has_room());
        self.pacing.held(now, shape, room);
    }

    /// The engine lets the pipe ask again after freezing it: the room it
    /// has leaves paced if it is more than `pacer::MAX_BURST` requests.
    pub fn pace_opening(&mut self) {
        let room = self.window().saturating_sub(self.in_flight()) / self.config.mss;
        self.pacing.opening(self.next_local(), room);
    }

    /// Sends the request for global `[start, end)` bound by the engine, as a
    /// pull; `deq` is the connection's in-order point (SEG.DEQ, and SEG.REQ
    /// too, so the sender sends nothing in cumulative mode).
    pub fn request(&mut self, now: Instant, start: u64, end: u64, deq: u64) {
        self.fast_retransmit = false;
        self.persist_deadline = None;
        self.deq = deq;
        let shape = self.shape();
        self.pacing.spend(now, shape, end - start);
        let snap = self.rate.on_send(now, self.in_flight());
        let local = self.requests.add(now, start, end, snap);
        let block = PullBlock {
            start: self.wire(start),
            end: self.wire(end),
            id: local as u32 + 1,
        };
        // §3.3.1: the pull first, then the three before it.
        let mut h = RcpHeader::new(
            RcpFlags::REQ | RcpFlags::PUL,
            self.config.conn_id,
            self.wire(deq),
            self.wire(deq),
            block.id,
        );
        h.push_block(block);
        for b in self.requests.recent_pulls() {
            h.push_block(b);
        }
        self.requests.pulled(block);
        self.out.push_back(h);
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(now + self.timer());
        }
    }

    /// Takes the sender's advertisement and end-of-stream mark from a DATA
    /// header (FIN: the stream ends at the advertised point).
    pub fn learn(&mut self, h: &RcpHeader, near: u64) {
        self.advertised = self.advertised.max(self.offset_of(h.deq, near));
        self.avail = self.avail.max(self.advertised);
        if h.flags.contains(RcpFlags::FIN) {
            self.fin = Some(self.advertised);
        }
    }

    /// DATA answering pull `id` arrived with the segment at global `start`
    /// (§4.3.1 `recv()`): RTT sample, window growth, and loss detection over
    /// the pipe's earlier requests. A segment that is not the one the pull
    /// asked for answers nothing (a stale answer to an earlier pipe on the
    /// same path, whose pulls were numbered alike).
    pub fn on_data(&mut self, now: Instant, id: u32, start: u64) -> PipeReport {
        let mut report = PipeReport::default();
        let Some(local) = u64::from(id).checked_sub(1) else {
            return report;
        };
        if !self.requests.asks(local, start) {
            // Late (deemed lost already, and asked again elsewhere), or
            // stale. A late answer still shows the path's round trip (rule
            // `late_samples`): its id names the request it answers, so the
            // time is unambiguous, as TCP's timestamps make the
            // acknowledgment of a retransmission (RFC 7323 §4). The
            // timeout's estimator keeps Karn's rule (RFC 6298 §3).
            if let Some(sent) = self.requests.answered_late(local, start) {
                if self.rules.late_samples {
                    self.answers.answered_late(now, sent);
                }
            }
            return report;
        }
        let r = self.requests.remove(local).expect("outstanding");
        self.requests.forget_given_up_before(local);
        let len = r.len();
        self.intervals.on_delivered(len);
        let (shape, bdp) = (self.shape(), self.bdp());
        self.pacing.credit(now, shape, len, bdp);
        let sample = now - r.sent_at;
        let min_rtt = self.answers.min_rtt().map_or(sample, |m| m.min(sample));
        self.rate.on_answer(now, len, r.sent_at, r.snap, min_rtt);
        self.answers.answered(now, r.sent_at);
        self.heard(now);
        self.answers.reset_backoff();
        self.answers.sample(r.sent_at, now);
        self.cc.on_rtt_sample(now, now - r.sent_at);
        self.rto_deadline = if self.requests.is_empty() {
            None
        } else {
            Some(now + self.timer())
        };
        // The episode lasts until nothing requested before it began is
        // still outstanding, and as long as RCP's would on this path (see
        // `episode`): every hole of that window belongs to the one cut.
        self.recovery.end_if_over(now, self.requests.oldest_local());
        // §3.3.3: growth per arrival that advances the pipe in order.
        let in_order = !self.requests.any_before(local);
        if in_order && self.recovery.window_grows() && self.cap.may_grow(self.cc.window()) {
            self.cc.on_ack(now, len);
        }
        self.detect_losses(now, local, &mut report);
        report
    }

    /// §3.3.5 per pipe: every earlier request counts the arrival of request
    /// `local`; those at the duplicate threshold are lost, and the first
    /// loss of an episode cuts the window.
    fn detect_losses(&mut self, now: Instant, local: u64, report: &mut PipeReport) {
        let flight = self.in_flight();
        for l in self.requests.later_arrival(local, self.config.dupthresh) {
            let keep = self.given_up_kept();
            let req = self.requests.give_up(l, keep).expect("listed above");
            report.lost.push(req.start);
            if !self.recovery.active() {
                // The window is halved (`cap.rs` for a pipe its cap held
                // back), or what the pipe had in flight when the loss
                // showed if more (RFC 5681 §3.2, eq. (4): FlightSize).
                let in_use = self.cwnd().max(flight).min(self.config.rwnd_bytes());
                self.cc.on_loss(now, LossCause::Congestion, in_use);
                self.recovery.on_holes(self.next_local());
                self.fast_retransmit = true;
                self.recoveries += 1;
                self.intervals.on_loss();
            }
            self.recovery.lost(l, req.start, now, self.rtt_estimate());
        }
    }

    /// The segment at global `start` arrived, by whichever pipe: it no
    /// longer holds this pipe's recovery open.
    pub fn repaired(&mut self, start: u64) {
        self.recovery.repaired(start);
    }

    /// The host's wireless link lost the data answering pull `id` (an
    /// RCP-ELN pipe only; RCP §3.4.2 per pipe): its request is lost at once,
    /// without cutting the window, and its segment goes back to the engine
    /// to be asked again.
    pub fn wireless_loss(&mut self, now: Instant, id: u32) -> PipeReport {
        let mut report = PipeReport::default();
        if !self.config.variant.knows_wireless_losses() {
            return report;
        }
        let Some(local) = u64::from(id).checked_sub(1) else {
            return report;
        };
        let Some(req) = self.requests.remove(local) else {
            return report;
        };
        if self.requests.is_empty() {
            self.rto_deadline = None;
        }
        report.lost.push(req.start);
        self.cc.on_loss(now, LossCause::Wireless, 0);
        report
    }

    /// A request without pulls carrying SEG.DEQ and asking the sender to say
    /// how much it has (the PROBE of §5.2.2).
    pub fn probe(&mut self, deq: u64) {
        self.deq = deq;
        let seq = self.wire(deq);
        self.out.push_back(RcpHeader::new(
            RcpFlags::REQ | RcpFlags::PROBE,
            self.config.conn_id,
            seq,
            seq,
            self.next_local() as u32,
        ));
    }

    /// Arms the persist timer if it is not running (§5.2.2): the pipe is
    /// frozen with nothing outstanding because its sender has no more data
    /// yet, or none beyond `deq`, the connection's in-order point. The probe
    /// carries the latest `deq`, so the sender purges up to it and says what
    /// it has beyond.
    pub fn persist(&mut self, now: Instant, deq: u64) {
        self.deq = self.deq.max(deq);
        if self.persist_deadline.is_none() {
            self.persist_deadline = Some(now + self.answers.rto());
        }
    }

    // --- timers and output ---

    /// The next deadline of the pipe's timers.
    pub fn poll_timeout(&self) -> Option<Instant> {
        [
            self.rto_deadline,
            self.handshake.deadline(),
            self.persist_deadline,
            self.outage.probe_deadline(),
            self.pacing.deadline(),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Timers that expired by `now`: the handshake is retried; on the RTO
    /// every outstanding request is deemed lost and the window restarts.
    pub fn handle_timeout(&mut self, now: Instant) -> PipeReport {
        let mut report = PipeReport::default();
        if self.handshake.due(now) {
            self.answers.back_off();
            self.handshake.stop();
            self.open(now);
        }
        if self.rto_deadline.is_some_and(|d| d <= now) {
            report = self.time_out(now);
        }
        if self.pacing.deadline().is_some_and(|d| d <= now) {
            self.pacing.clear_deadline();
        }
        if self.persist_deadline.is_some_and(|d| d <= now) {
            self.persist_deadline = None;
            self.frozen = false;
            self.probe(self.deq);
        }
        if self.outage.probe_due(now) {
            // Unanswered: the engine decides how to probe again.
            self.outage.probe_unanswered();
            self.answers.back_off();
        }
        report
    }

    /// The next datagram header to send.
    pub fn poll_header(&mut self) -> Option<RcpHeader> {
        self.out.pop_front()
    }

    /// True while the pipe has datagrams queued.
    pub fn has_output(&self) -> bool {
        !self.out.is_empty()
    }
}
