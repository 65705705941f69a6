//! The engine asking its pipes for requests (§4.3.1 `send()`): each pipe
//! with room asks in turn, and the planner (`plan/`) says what it does —
//! take the rank's segment, probe its silent path, ask for the head of line
//! another pipe holds up, or freeze (`active`) for want of receive buffer.
//! This file reads the pipes into views and applies the planner's answers.

use super::plan::caps::{caps, CapInput};
use super::plan::head::{self, HeadStep};
use super::plan::view::{Holder, PipeView};
use super::plan::{self, Source};
use super::{Ahead, Cap, FlowControl, Limits, Pick, Pipe, R2cpReceiver, Rules, HOL_PATIENCE};
use crate::endpoint::PathId;
use crate::time::{Duration, Instant};

/// What every pipe asking in one `pump` is asked against.
pub(super) struct Ask<'a> {
    pub(super) now: Instant,
    /// The in-order point (SEG.DEQ).
    pub(super) deq: u64,
    pub(super) buffer_end: u64,
    /// One past the last byte any sender has said it holds.
    pub(super) known: u64,
    /// Round trips of the pipes that will request again.
    pub(super) rtts: &'a [(PathId, Duration)],
}

/// The round trip pipe `p` counts with in the engine's decisions: what it
/// shows now (rule `shown_rtt`), or its smoothed one (the paper's `RTT_j`).
pub(super) fn rtt_of(rules: Rules, p: &Pipe, now: Instant) -> Duration {
    if rules.shown_rtt {
        p.rtt_shown(now)
    } else {
        p.rtt_estimate()
    }
}

/// The pipes' views for one `send()`, read once when first needed: until
/// a pipe requests (and the `send()` ends) nothing they show changes.
#[derive(Default)]
struct Views(Option<Vec<PipeView>>);

impl Views {
    fn get<'c>(&'c mut self, rx: &R2cpReceiver, now: Instant) -> &'c [PipeView] {
        self.0.get_or_insert_with(|| rx.views(now))
    }
}

impl R2cpReceiver {
    /// Pipe `i` as the planner sees it at `now`.
    fn view(&self, i: usize, now: Instant) -> PipeView {
        let p = &self.pipes[i];
        PipeView {
            index: i,
            path: p.path,
            live: p.live(),
            probing: p.probing(),
            frozen: p.frozen,
            rtt: rtt_of(self.config.rules, p, now),
            patience: p.patience(HOL_PATIENCE),
            window: p.window(),
            in_flight: p.in_flight(),
            paced: p.is_paced(),
            slot_at_next_answer: p.slot_at_next_answer(now),
        }
    }

    /// Every pipe as the planner sees it at `now`.
    fn views(&self, now: Instant) -> Vec<PipeView> {
        (0..self.pipes.len()).map(|i| self.view(i, now)).collect()
    }

    /// Lets every pipe with room in its window request (§4.3.1 `send()`),
    /// freezing those the buffer cannot serve (`active`).
    pub(super) fn pump(&mut self, now: Instant) {
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
        let ask = Ask {
            now,
            deq: self.buffer.next(),
            buffer_end: self.buffer_end(),
            // Every sender serves the same stream (§4.4.2: replicas), and one
            // asked past what its application has written holds the pull
            // until it has: what any sender has said it holds may be asked
            // of all.
            known: self.pipes.iter().map(|p| p.advertised).max().unwrap_or(0),
            rtts: &rtts,
        };
        self.set_queue_caps();
        // Each pipe in the order opened, as much as it may.
        for i in 0..self.pipes.len() {
            while self.ask(i, &ask) {}
        }
    }

    /// Sets every pipe's cap on what it may have outstanding (rule
    /// `queue_cap`).
    fn set_queue_caps(&mut self) {
        if !self.config.rules.queue_cap {
            return;
        }
        let inputs: Vec<CapInput> = self
            .pipes
            .iter()
            .map(|p| CapInput {
                live: p.live(),
                rate: p.delivery_rate(),
                bdp: p.bdp(),
            })
            .collect();
        let caps = caps(&inputs, self.config.rwnd_bytes(), self.config.pipe.mss);
        for (p, c) in self.pipes.iter_mut().zip(caps) {
            p.set_cap(Cap(c));
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
            room: self.room_for(i, ask),
            head: ask.deq,
            head_room: self.room(true),
        };
        let mut views = Views::default();
        if !p.can_request(ask.now) {
            self.pipes[i].note_paced(ask.now);
            let p = &self.pipes[i];
            return plan::past_window(p.live(), p.frozen, p.slot_at_next_answer(ask.now))
                && self.try_head(i, ask, limits, false, &mut views);
        }
        if self.tokens.as_ref().is_some_and(|t| !t.allows(p.path)) {
            // pTCP Figure 10: throttled until the token timer.
            self.pipes[i].frozen = true;
            return false;
        }
        let others_live = self
            .pipes
            .iter()
            .enumerate()
            .any(|(j, q)| j != i && q.live());
        // The head of line a slower pipe holds up goes to a quicker pipe
        // first, buffer full or not: in-order delivery waits for it.
        if p.live() && self.try_head(i, ask, limits, false, &mut views) {
            return true;
        }
        // No pipe changed since the views were read (a head taken would
        // have ended this `send()`).
        let view = views.get(self, ask.now)[i];
        let pick = match plan::source(self.config.rules, &view, others_live) {
            Source::Probe => {
                self.pipes[i].probe_path(ask.now, ask.deq);
                return false;
            }
            Source::Redundant => self.sched.send_redundant(limits),
            Source::Ranked => self.ranked(i, ask, limits, view.rtt, &mut views),
        };
        match pick {
            Pick::Segment(s, e) => {
                let p = &self.pipes[i];
                if let Some(t) = self.tokens.as_mut() {
                    t.spend(p.path, e - s);
                }
                self.pipes[i].request(ask.now, s, e, ask.deq);
                true
            }
            Pick::Freeze => {
                // The rank changed the scheduler, no pipe: the views hold.
                if self.try_head(i, ask, limits, true, &mut views) {
                    return true;
                }
                // Frozen with nothing outstanding for want of the sender's
                // data (not of buffer): probe it (§5.2.2), or nothing would
                // ever tell us it has more.
                let data_limited = match self.config.flow {
                    FlowControl::Span => self.pipes[i].avail.max(ask.known) < ask.buffer_end,
                    FlowControl::Reserve => limits.room >= self.config.pipe.mss,
                };
                let p = &mut self.pipes[i];
                p.frozen = true;
                p.held_back();
                if p.in_flight() == 0 && data_limited {
                    p.persist(ask.now, ask.deq);
                }
                false
            }
        }
    }

    /// The buffer's room pipe `i` may reserve from: what is left once every
    /// quicker working pipe could fill the window it grows to while a
    /// request of pipe `i` is out. A segment's room is held for a round
    /// trip of the pipe that asks for it, so room given to a pipe with
    /// round trip `r` brings one segment per `r`: a buffer too small for
    /// every pipe's window goes to the quickest first (the greedy answer
    /// to filling it for the most goodput), and a slower pipe takes what
    /// they leave — counted at the windows they reach before its room
    /// comes back (a quicker pipe in slow start doubles its window each of
    /// its round trips meanwhile).
    fn room_for(&self, i: usize, ask: &Ask) -> u64 {
        let room = self.room(false);
        if room == u64::MAX {
            return room;
        }
        let rtt = |path: PathId| ask.rtts.iter().find(|(q, _)| *q == path).map(|(_, r)| *r);
        let Some(ours) = rtt(self.pipes[i].path) else {
            return room;
        };
        let quicker: u64 = self
            .pipes
            .iter()
            .enumerate()
            .filter_map(|(j, q)| {
                let r = rtt(q.path).filter(|r| j != i && q.live() && *r < ours)?;
                Some(q.window_within(ours, r).saturating_sub(q.in_flight()))
            })
            .sum();
        room.saturating_sub(quicker)
    }

    /// The rank's segment for pipe `i`, which counts round trip `ours`
    /// (§4.3.1; rule `look_ahead` for how other pipes' requests count).
    fn ranked(
        &mut self,
        i: usize,
        ask: &Ask,
        limits: Limits,
        ours: Duration,
        views: &mut Views,
    ) -> Pick {
        let rules = self.config.rules;
        let views: &[PipeView] = if rules.look_ahead {
            views.get(self, ask.now)
        } else {
            &[]
        };
        let (rwnd, mss) = (self.config.rwnd_bytes(), self.config.pipe.mss);
        let rtt_of_path = |path: PathId| ask.rtts.iter().find(|(q, _)| *q == path).map(|(_, r)| *r);
        let ahead = |path: PathId| match views.iter().find(|q| q.path == path) {
            Some(q) => plan::rank::ahead(ours, q, ask.now, rwnd, mss),
            None => Ahead::PAPER,
        };
        let p = &self.pipes[i];
        self.sched.send_looking_ahead(
            ask.now,
            p.path,
            p.next_local(),
            ours,
            rtt_of_path,
            ahead,
            limits,
        )
    }

    /// Pipe `i`, `blocked` by the receive buffer or not, looks at the head of
    /// line (`plan::head`): true if it requested it.
    fn try_head(
        &mut self,
        i: usize,
        ask: &Ask,
        limits: Limits,
        blocked: bool,
        views: &mut Views,
    ) -> bool {
        let hol = ask.deq;
        if hol >= ask.buffer_end || self.buffer.holds(hol) {
            return false;
        }
        let rules = self.config.rules;
        let (step, holder) = match self.sched.binding(hol).copied() {
            None => {
                if !rules.take_head {
                    return false;
                }
                let views = views.get(self, ask.now);
                (head::unheld(rules, &views[i], views), None)
            }
            Some(b) => {
                if !rules.reinject || b.path == self.pipes[i].path {
                    return false;
                }
                let Some(j) = self.index(b.path) else {
                    return false;
                };
                let views = views.get(self, ask.now);
                let h = &self.pipes[j];
                let holder = Holder {
                    pipe: views[j],
                    sent_at: b.sent_at,
                    silent_at: [h.turn_missed_at(b.sent_at), h.unanswered_at()]
                        .into_iter()
                        .flatten()
                        .min(),
                    fell_silent: h.fell_silent(ask.now, b.sent_at),
                    expected: h.answer_expected(ask.now, b.sent_at),
                };
                let step = head::held(rules, ask.now, &views[i], &holder, views, blocked);
                (step, Some(j))
            }
        };
        self.apply_head(i, ask, limits, step, holder)
    }

    /// Carries out what the planner said pipe `i` does about the head of
    /// line that pipe `holder` (if any) holds.
    fn apply_head(
        &mut self,
        i: usize,
        ask: &Ask,
        limits: Limits,
        step: HeadStep,
        holder: Option<usize>,
    ) -> bool {
        let (now, hol) = (ask.now, ask.deq);
        match step {
            HeadStep::Leave { wake } => {
                if let Some(w) = wake {
                    self.reinject_at = Some(self.reinject_at.map_or(w, |t| t.min(w)));
                }
                false
            }
            HeadStep::Take => {
                let p = &self.pipes[i];
                let Some(end) = self
                    .sched
                    .take_head(now, hol, p.path, p.next_local(), limits)
                else {
                    return false;
                };
                self.pipes[i].request(now, hol, end, hol);
                true
            }
            HeadStep::Reinject {
                time_out_holder,
                back_up,
            } => {
                let p = &self.pipes[i];
                let Some(end) = self
                    .sched
                    .reinject(now, hol, p.path, p.next_local(), limits)
                else {
                    return false;
                };
                let j = holder.expect("a held head of line");
                if time_out_holder {
                    // Its path fell silent while pipe `i`'s works: all it
                    // holds goes back to be asked of working pipes now, not
                    // at its own RTO (R²CP §4.3.5 re-assigns what a closed
                    // pipe held; this goes beyond it).
                    let r = self.pipes[j].time_out(now);
                    self.report(now, j, r);
                }
                self.pipes[i].request(now, hol, end, hol);
                if let Some(k) = back_up {
                    self.pipes[k].request(now, hol, end, hol);
                    self.sched.backed_up();
                }
                true
            }
        }
    }
}
