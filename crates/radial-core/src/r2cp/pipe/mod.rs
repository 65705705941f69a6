//! One RCP pipe of an R²CP connection (R²CP §4.1.3, §4.3): the per-path half
//! of RCP's receiver — handshake with its sender, congestion window, RTT,
//! loss detection and retransmission timer — in a local sequence space. The
//! engine decides which global segment each local request carries.
//!
//! Local sequence numbers count the pipe's requests; each request carries
//! one segment in pull mode and its pull id is its local number plus one,
//! so an arriving DATA segment names the request it answers.

mod cap;
mod episode;
mod handshake;
mod outage;
mod pace;
mod pacer;
mod rate;

use std::collections::{BTreeMap, VecDeque};

use super::Rules;
use crate::cc::coupled::LossIntervals;
use crate::cc::{Controller, LossCause};
use crate::endpoint::PathId;
use crate::rcp::{count_later_arrival, Hole, RcpConfig};
use crate::rtt::RttEstimator;
use crate::seq::SeqNum;
use crate::time::{Duration, Instant};
use crate::wire::rcp::{PullBlock, RcpFlags, RcpHeader, RECENT_PULLS};
use episode::Episode;
use pacer::Pacer;

/// What a pipe had when its path failed, resumed when the path returns.
#[derive(Clone, Copy, Debug)]
struct Outage {
    /// The window it used.
    window: u64,
    /// Slow start's threshold: a pipe still in slow start resumes in it.
    ssthresh: u64,
}

/// The shortest interval between two probes of a silent path: at most 20 a
/// second, however short its round trip.
pub const MIN_PROBE_INTERVAL: Duration = Duration::from_millis(50);

/// The longest interval between two probes of a silent path, however long
/// its round trip: a link that returns is found within this and one round
/// trip. (Probed once per round trip, a satellite-like path of 530 ms
/// found its link's return up to a second late, half of a 2 s turn of a
/// handoff storm.)
pub const MAX_PROBE_INTERVAL: Duration = Duration::from_millis(100);

/// How many requests deemed lost a pipe remembers for late samples.
const GIVEN_UP: usize = 256;

/// SYNs whose sending times a pipe keeps, to time the one a SYN+ACK names.
const SYN_TIMES: usize = 8;

/// Where the pipe's handshake stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PipeState {
    /// SYN sent (or about to be).
    Opening,
    /// Requests may flow.
    Established,
}

/// An outstanding request of the pipe.
#[derive(Clone, Copy, Debug)]
struct LocalRequest {
    start: u64,
    end: u64,
    sent_at: Instant,
    /// Arrivals of later requests of this pipe since.
    later: u32,
    /// The pipe's delivery state when it left.
    snap: rate::Snapshot,
}

impl Hole for LocalRequest {
    fn later_arrivals(&mut self) -> Option<&mut u32> {
        Some(&mut self.later)
    }
}

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
    config: RcpConfig,
    /// The engine's rules beyond the paper (those a pipe applies itself:
    /// `pacing`, `probe_silent`, `resume_window`, `late_samples`).
    rules: Rules,
    /// Handshake state.
    pub state: PipeState,
    cc: Controller,
    rtt: RttEstimator,
    /// The sender's initial sequence number, once known.
    isn: Option<SeqNum>,
    syn_sent_at: Option<Instant>,
    /// SYNs sent. Each carries its number; a sender echoes the one it
    /// answers in its SYN+ACK, and the round trip is that SYN's (one that
    /// echoes none is a sample only if a single SYN left: Karn).
    syns: u32,
    /// When the latest [`SYN_TIMES`] SYNs left, by number.
    syn_times: VecDeque<(u32, Instant)>,
    /// When the first SYN left.
    opened_at: Option<Instant>,
    /// First SYN to SYN+ACK.
    handshake: Option<Duration>,
    /// Outstanding requests by local number.
    outstanding: BTreeMap<u64, LocalRequest>,
    /// When recent requests now deemed lost were sent, by local number: a
    /// late answer still names its request (its pull id), so it is an
    /// unambiguous RTT sample, and the one that shows a path slowed down.
    given_up: BTreeMap<u64, Instant>,
    in_flight: u64,
    next_local: u64,
    /// The loss-recovery episode: one window cut per window of losses.
    recovery: Episode,
    /// The retransmission timer expired and nothing has arrived since: the
    /// path may be blacked out (pTCP §4.1 (3)).
    blackout: bool,
    /// The window before the blackout began, and slow start's threshold
    /// then, restored if the path comes back after an outage.
    outage: Option<Outage>,
    /// Timer expiries (retransmission or probe) since the blackout began.
    expiries: u32,
    /// The interface has no link (the host said so): no requests, no
    /// timers, until it has one again.
    suspended: bool,
    /// A data-less probe of a silent path is out until then.
    probe_deadline: Option<Instant>,
    /// When the engine last halved this pipe's window for holding up the
    /// head of line.
    penalised_at: Option<Instant>,
    /// The last answer: when it arrived, and when the latest request
    /// answered so far had been sent.
    last_answer: Option<(Instant, Instant)>,
    /// Smoothed time between answers (gain 1/8): the pace at which the
    /// pipe's path drains what it was asked.
    answer_gap: Option<Duration>,
    /// The longest pause of the path's stream of answers lately (a
    /// jittery radio link's), over ten of its round trips or more.
    longest_gap: pace::LongestGap,
    /// The highest local number answered so far.
    answered_local: Option<u64>,
    /// The last answer was to a request given up on: the path is draining
    /// a backlog the pipe's timer did not wait for.
    answered_late: bool,
    /// The next request may go out whatever the window (fast retransmit).
    fast_retransmit: bool,
    rto_deadline: Option<Instant>,
    handshake_deadline: Option<Instant>,
    persist_deadline: Option<Instant>,
    /// SEG.DEQ of the connection as last told to this pipe.
    deq: u64,
    recent_pulls: VecDeque<PullBlock>,
    /// `active` (§4.3.1): frozen for lack of receive buffer until resumed.
    pub frozen: bool,
    /// Retiring: no new requests; closed once nothing is outstanding.
    pub draining: bool,
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
    /// How fast the path delivers.
    rate: rate::DeliveryRate,
    /// The pace of its requests while it shares the buffer.
    pacer: Pacer,
    /// The pace lets the pipe ask again then.
    pace_deadline: Option<Instant>,
    /// At most this many bytes outstanding whatever the window: the
    /// engine's share of the receive buffer for the pipe while others
    /// share it (see `R2cpReceiver`'s queue cap).
    pub queue_cap: Option<u64>,
    /// A pipe resuming its window after an outage paces its requests until
    /// this local number has left (see `outage`).
    resume_paced_until: Option<u64>,
}

impl Pipe {
    /// A pipe on `path` speaking to an unchanged RCP sender with `config`
    /// (its `conn_id` names the pipe's connection at that sender), under
    /// the engine's `rules`.
    pub fn new(config: RcpConfig, path: PathId, rules: Rules) -> Self {
        Pipe {
            path,
            rules,
            state: PipeState::Opening,
            cc: Controller::new(config.cc),
            rtt: RttEstimator::new(config.rtt),
            isn: None,
            syn_sent_at: None,
            syns: 0,
            syn_times: VecDeque::new(),
            opened_at: None,
            handshake: None,
            outstanding: BTreeMap::new(),
            given_up: BTreeMap::new(),
            in_flight: 0,
            next_local: 0,
            recovery: Episode::default(),
            blackout: false,
            outage: None,
            expiries: 0,
            suspended: false,
            probe_deadline: None,
            penalised_at: None,
            last_answer: None,
            answer_gap: None,
            longest_gap: pace::LongestGap::default(),
            answered_local: None,
            answered_late: false,
            fast_retransmit: false,
            rto_deadline: None,
            handshake_deadline: None,
            persist_deadline: None,
            deq: 0,
            recent_pulls: VecDeque::new(),
            frozen: false,
            draining: false,
            avail: 0,
            advertised: 0,
            fin: None,
            out: VecDeque::new(),
            delivered: 0,
            intervals: LossIntervals::default(),
            timeouts: 0,
            recoveries: 0,
            rate: rate::DeliveryRate::new(),
            pacer: Pacer::new(),
            pace_deadline: None,
            queue_cap: None,
            resume_paced_until: None,
            config,
        }
    }

    /// The connection id of this pipe at its sender.
    pub fn conn_id(&self) -> u32 {
        self.config.conn_id
    }

    /// True once the pipe can take over from a pipe with `old_in_flight`
    /// bytes outstanding: it is established and it left slow start, or its
    /// window alone holds what both pipes have in flight now.
    pub fn ready_to_take_over(&self, old_in_flight: u64) -> bool {
        let w = self.cc.window();
        self.state == PipeState::Established
            && (w.cwnd >= w.ssthresh || w.cwnd >= old_in_flight + self.in_flight)
    }

    /// True from a retransmission timeout until data arrives again: the
    /// pipe's requests probe a path that may be blacked out.
    pub fn probing_blackout(&self) -> bool {
        self.blackout && self.rules.probe_silent
    }

    /// How long the handshake took (first SYN to SYN+ACK), once done.
    pub fn handshake(&self) -> Option<Duration> {
        self.handshake
    }

    /// True while the host says the pipe's interface has no link.
    pub fn suspended(&self) -> bool {
        self.suspended
    }

    /// True when the pipe can be counted on: established, its path answering
    /// (not probing a blackout), its interface up, not retiring.
    pub fn live(&self) -> bool {
        self.state == PipeState::Established
            && !self.probing_blackout()
            && !self.suspended
            && !self.draining
    }

    /// True while the pipe probes a path that fell silent: established,
    /// its interface up as far as the host says, not retiring.
    pub fn probing(&self) -> bool {
        self.state == PipeState::Established
            && self.probing_blackout()
            && !self.suspended
            && !self.draining
    }

    /// The timeout to arm for a request now: the backed-off RTO, but while
    /// the path is silent its shortest round trip, between
    /// [`MIN_PROBE_INTERVAL`] and [`MAX_PROBE_INTERVAL`] (and no more than
    /// the RTO without backoff). A path that returns after an outage is
    /// then found within about a round trip, not after a timeout backed off
    /// over the whole outage
    /// (TCP-Probing's probe cycle, Freeze-TCP's prompt resumption). A
    /// silent path is asked one small request, or a PROBE, at a time, so
    /// the backoff that protects a congested path buys nothing here; and
    /// the outage emptied its queue, so an answer, if the path is back,
    /// takes about its propagation. Its smoothed RTT or RTO, which the
    /// queue before the outage raised, would have found a link that
    /// returned up to half a second late in a handoff storm (and the
    /// storm's silent turns of 1 to 2 s spent a quarter of their time
    /// finding their link). Should the path answer later, only because it
    /// is queued, the answer ends the blackout all the same (`heard`).
    fn timer(&self) -> Duration {
        if self.probing_blackout() {
            let base = self.rtt.base_rto();
            match self.rtt.min_rtt() {
                Some(m) => base.min(m.clamp(MIN_PROBE_INTERVAL, MAX_PROBE_INTERVAL)),
                None => base,
            }
        } else {
            self.rtt.rto()
        }
    }

    /// The engine had nothing this pipe could ask for although its window
    /// had room (the receive buffer or the senders held it back): its
    /// delivery-rate samples are app-limited until what it has out now is
    /// answered.
    pub fn held_back(&mut self) {
        self.rate.on_app_limited(self.in_flight);
    }

    /// The congestion window in bytes.
    pub fn cwnd(&self) -> u64 {
        self.cc.window().cwnd
    }

    /// The highest delivery rate of the pipe's last ten round trips, in
    /// bytes per second (0 before a sample).
    pub fn delivery_rate(&self) -> u64 {
        self.rate.max_rate()
    }

    /// The bandwidth-delay product of the pipe's path: its highest recent
    /// delivery rate over its shortest round trip (`None` before samples).
    pub fn bdp(&self) -> Option<u64> {
        self.rtt.min_rtt().and_then(|m| self.rate.bdp(m))
    }

    /// The smoothed round trip, once sampled.
    pub fn srtt(&self) -> Option<Duration> {
        self.rtt.srtt()
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

    /// Bytes requested and neither arrived nor deemed lost.
    pub fn in_flight(&self) -> u64 {
        self.in_flight
    }

    /// The local number the next request gets.
    pub fn next_local(&self) -> u64 {
        self.next_local
    }

    /// Remembers when a request now deemed lost was sent (the most recent
    /// [`GIVEN_UP`] of them).
    fn give_up(&mut self, local: u64, sent: Instant) {
        self.given_up.insert(local, sent);
        while self.given_up.len() > GIVEN_UP {
            self.given_up.pop_first();
        }
    }

    fn wire(&self, offset: u64) -> SeqNum {
        self.isn.unwrap_or(self.config.isn) + 1u32 + offset
    }

    /// The global offset of `seq`, near `near`.
    pub fn offset_of(&self, seq: SeqNum, near: u64) -> u64 {
        let delta = seq.since(self.wire(near));
        (near as i64 + delta).max(0) as u64
    }

    /// May the pipe request one more segment now?
    pub fn can_request(&self, now: Instant) -> bool {
        self.state == PipeState::Established
            && !self.frozen
            && !self.draining
            && !self.suspended
            && self.probe_deadline.is_none()
            && (self.fast_retransmit || (self.window_has_room() && self.paced(now)))
    }

    fn window_has_room(&self) -> bool {
        self.in_flight + self.config.mss <= self.window()
    }

    /// Sends the request for global `[start, end)` bound by the engine, as a
    /// pull; `deq` is the connection's in-order point (SEG.DEQ, and SEG.REQ
    /// too, so the sender sends nothing in cumulative mode).
    pub fn request(&mut self, now: Instant, start: u64, end: u64, deq: u64) {
        self.fast_retransmit = false;
        self.persist_deadline = None;
        self.deq = deq;
        match self.pace() {
            Some(pace) => self.pacer.spend(now, pace, end - start),
            None => self.pacer.reset(),
        }
        let local = self.next_local;
        self.next_local += 1;
        let snap = self.rate.on_send(now, self.in_flight);
        self.outstanding.insert(
            local,
            LocalRequest {
                start,
                end,
                sent_at: now,
                later: 0,
                snap,
            },
        );
        self.in_flight += end - start;
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
        for b in &self.recent_pulls {
            h.push_block(*b);
        }
        self.out.push_back(h);
        self.recent_pulls.push_front(block);
        self.recent_pulls.truncate(RECENT_PULLS);
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

    /// DATA answering pull `id` arrived (§4.3.1 `recv()`): RTT sample, window
    /// growth, and loss detection over the pipe's earlier requests.
    pub fn on_data(&mut self, now: Instant, id: u32) -> PipeReport {
        let mut report = PipeReport::default();
        let Some(local) = u64::from(id).checked_sub(1) else {
            return report;
        };
        let Some(r) = self.outstanding.remove(&local) else {
            // Late: it was deemed lost already. Its pull id names it, so
            // its round trip is a sample all the same (no Karn ambiguity).
            let Some(sent) = self.given_up.remove(&local) else {
                return report;
            };
            if self.rules.late_samples {
                self.rtt.on_sample(sent, now);
                self.cc.on_rtt_sample(now, now - sent);
                // And it shows the pace at which the path drains what it
                // was asked, and what is still behind it.
                self.note_answer(now, sent, local);
                self.answered_late = true;
            }
            return report;
        };
        let len = r.end - r.start;
        self.in_flight -= len;
        self.intervals.on_delivered(len);
        self.clock_pace(now, len);
        let sample = now - r.sent_at;
        let min_rtt = self.rtt.min_rtt().map_or(sample, |m| m.min(sample));
        self.rate.on_answer(now, len, r.sent_at, r.snap, min_rtt);
        self.note_answer(now, r.sent_at, local);
        self.answered_late = false;
        self.heard(now);
        self.rtt.reset_backoff();
        self.rtt.on_sample(r.sent_at, now);
        self.cc.on_rtt_sample(now, now - r.sent_at);
        self.rto_deadline = if self.outstanding.is_empty() {
            None
        } else {
            Some(now + self.timer())
        };
        // The episode lasts until nothing requested before it began is
        // still outstanding, and as long as RCP's would on this path (see
        // `episode`): every hole of that window belongs to the one cut. A
        // re-request answered early does not end it.
        self.recovery.end_if_over(now, &self.outstanding);
        // §3.3.3: growth per arrival that advances the pipe in order.
        let in_order = self.outstanding.range(..local).next().is_none();
        if in_order && self.recovery.window_grows() && self.window_may_grow() {
            self.cc.on_ack(now, len);
        }
        // §3.3.5 per pipe: every earlier hole counts this arrival.
        let flight = self.in_flight;
        for l in count_later_arrival(&mut self.outstanding, local, self.config.dupthresh) {
            let req = self.outstanding.remove(&l).expect("listed above");
            self.give_up(l, req.sent_at);
            self.in_flight -= req.end - req.start;
            report.lost.push(req.start);
            if !self.recovery.active() {
                // The window is halved (see `cap` for a pipe its cap held
                // back), or what the pipe had in flight when the loss
                // showed if more (RFC 5681 §3.2, eq. (4): FlightSize): a
                // window the engine halved for holding the head of line
                // (`penalise`) is no measure of what the path carried, and
                // a congestion cut on top of it would quarter the rate (a
                // satellite pipe beside a 2 Mbit/s one: 1.7 Mbit/s against
                // 2.5 alone).
                let in_use = self.cwnd().max(flight).min(self.config.rwnd_bytes());
                self.cc.on_loss(now, LossCause::Congestion, in_use);
                self.recovery.on_holes(self.next_local);
                self.fast_retransmit = true;
                self.recoveries += 1;
                self.intervals.on_loss();
            }
            self.recovery.lost(l, req.start, now, self.rtt_estimate());
        }
        report
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
        let Some(req) = self.outstanding.remove(&local) else {
            return report;
        };
        self.give_up(local, req.sent_at);
        self.in_flight -= req.end - req.start;
        if self.outstanding.is_empty() {
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
            self.next_local as u32,
        ));
    }

    /// Arms the persist timer if it is not running: the pipe is frozen with
    /// nothing outstanding because its sender has no more data yet, or none
    /// beyond `deq`, the connection's in-order point, which the other pipes
    /// moved past what this sender was last told. The probe carries the
    /// latest `deq`, so the sender purges up to it and says what it has
    /// beyond.
    pub fn persist(&mut self, now: Instant, deq: u64) {
        self.deq = self.deq.max(deq);
        if self.persist_deadline.is_none() {
            self.persist_deadline = Some(now + self.rtt.rto());
        }
    }

    /// The next deadline of the pipe's timers.
    pub fn poll_timeout(&self) -> Option<Instant> {
        [
            self.rto_deadline,
            self.handshake_deadline,
            self.persist_deadline,
            self.probe_deadline,
            self.pace_deadline,
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Timers that expired by `now`: the handshake is retried; on the RTO
    /// every outstanding request is deemed lost and the window restarts.
    pub fn handle_timeout(&mut self, now: Instant) -> PipeReport {
        let mut report = PipeReport::default();
        if self.handshake_deadline.is_some_and(|d| d <= now) {
            self.rtt.back_off();
            self.handshake_deadline = None;
            self.open(now);
        }
        if self.rto_deadline.is_some_and(|d| d <= now) {
            report = self.time_out(now);
        }
        if self.pace_deadline.is_some_and(|d| d <= now) {
            self.pace_deadline = None;
        }
        if self.persist_deadline.is_some_and(|d| d <= now) {
            self.persist_deadline = None;
            self.frozen = false;
            self.probe(self.deq);
        }
        if self.probe_deadline.is_some_and(|d| d <= now) {
            // Unanswered: the engine decides how to probe again.
            self.probe_deadline = None;
            self.expiries += 1;
            self.rtt.back_off();
        }
        report
    }

    /// The retransmission timeout (its timer expired, or the engine found
    /// the path silent): every outstanding request is deemed lost, the
    /// window restarts, and the pipe probes its path until it answers.
    pub fn time_out(&mut self, now: Instant) -> PipeReport {
        let mut report = PipeReport::default();
        self.rto_deadline = None;
        self.timeouts += 1;
        self.intervals.on_loss();
        if !self.blackout {
            self.outage = Some(self.outage_starts());
            self.expiries = 0;
        }
        self.expiries += 1;
        let in_use = self.window().min(self.config.rwnd_bytes());
        self.cc.on_loss(now, LossCause::Timeout, in_use);
        self.rtt.back_off();
        report.lost = self.outstanding.values().map(|r| r.start).collect();
        for (l, r) in std::mem::take(&mut self.outstanding) {
            self.give_up(l, r.sent_at);
        }
        self.in_flight = 0;
        self.recovery.on_timeout(self.next_local);
        self.blackout = true;
        self.fast_retransmit = true;
        // Re-armed by the next request, backed off.
        report
    }

    /// A final request telling the sender the pipe is done (§4.3.2
    /// `close()`).
    pub fn close(&mut self, deq: u64) {
        self.out.clear();
        let seq = self.wire(deq);
        self.out.push_back(RcpHeader::new(
            RcpFlags::REQ | RcpFlags::FIN,
            self.config.conn_id,
            seq,
            seq,
            self.next_local as u32,
        ));
        self.rto_deadline = None;
        self.handshake_deadline = None;
        self.persist_deadline = None;
        self.probe_deadline = None;
        self.pace_deadline = None;
    }

    /// The next datagram header to send.
    pub fn poll_header(&mut self) -> Option<RcpHeader> {
        self.out.pop_front()
    }

    /// True when a retiring pipe has nothing left to wait for.
    pub fn drained(&self) -> bool {
        self.draining && (self.outstanding.is_empty() || self.state != PipeState::Established)
    }

    /// True while the pipe has datagrams queued.
    pub fn has_output(&self) -> bool {
        !self.out.is_empty()
    }
}

#[cfg(test)]
impl Pipe {
    /// A pipe on path 0, established at 10 ms with a sender that holds
    /// `bytes` of the stream (the pipe modules' tests start from it).
    pub(super) fn established(bytes: u32) -> Pipe {
        let mut p = Pipe::new(
            RcpConfig::ns2(crate::rcp::RcpVariant::Rcp),
            PathId(0),
            Rules::ALL,
        );
        p.open(Instant::from_millis(0));
        let synack = RcpHeader::new(
            RcpFlags::SYN | RcpFlags::ACK,
            0,
            SeqNum(0),
            SeqNum(0) + 1u32 + bytes,
            0,
        );
        p.on_synack(Instant::from_millis(10), &synack);
        p
    }
}
