//! What a pipe shows the engine of its path's timing: its round-trip
//! estimate, how long the engine waits for its requests, and when, at the
//! pace it answers, it will bring a request it holds (R²CP §4.3.1's
//! `RTT_j`, and the engine's forecasts beyond the paper).

use super::Pipe;
use crate::time::{Duration, Instant};

impl Pipe {
    /// The pipe's round-trip estimate for ranking (§4.3.1 `RTT_j`): the
    /// smoothed RTT, or the handshake's before any data arrived.
    pub fn rtt_estimate(&self) -> Duration {
        self.rtt.srtt().unwrap_or(self.config.rtt.initial_rto)
    }

    /// The retransmission timeout without backoff.
    pub fn base_rto(&self) -> Duration {
        self.rtt.base_rto()
    }

    /// How long a request of this pipe may be outstanding before the engine
    /// stops waiting for it (and asks a quicker pipe for the head of line):
    /// its RTO, at most [`crate::r2cp::HOL_PATIENCE`], but never less than its
    /// path's shortest round trip (its propagation: a path that long is
    /// waited for). Not its smoothed round trip: on a path that slowed
    /// down, late answers raise that with every sample, and the engine
    /// would wait seconds for a request the path will not bring for
    /// minutes.
    pub fn patience(&self) -> Duration {
        let floor = self.min_rtt().unwrap_or_else(|| self.rtt_estimate());
        self.base_rto().min(crate::r2cp::HOL_PATIENCE).max(floor)
    }

    /// The shortest round trip seen on the pipe (its path's propagation),
    /// once sampled.
    pub fn min_rtt(&self) -> Option<Duration> {
        self.rtt.min_rtt()
    }

    /// The round trip a request sent now should take: what the pipe has
    /// outstanding, and this request, at the highest rate its path has
    /// delivered lately, but no less than the path's shortest round trip;
    /// the smoothed round trip before the rate is measured.
    ///
    /// Beyond the paper, whose rank takes the smoothed RTT. On a saturated
    /// path a request waits behind what the pipe has outstanding (Little's
    /// law: the flight over the rate is the round trip), so this follows a
    /// pipe's own queue as it grows or drains, where the smoothed RTT lags
    /// it by a round trip. It matters when the queue cap (see
    /// `R2cpReceiver::set_queue_caps`) drains a pipe's queue at once: a
    /// pipe that had the path to itself for a while and a new one joins;
    /// ranked by its smoothed RTT, the old pipe's segments were placed as
    /// if its queue were still there, arrived early, and delivery waited
    /// for the new pipe's.
    pub fn rtt_expected(&self) -> Duration {
        let rate = self.rate.max_rate();
        match self.rtt.min_rtt() {
            Some(min) if rate > 0 => {
                let bytes = u128::from(self.in_flight + self.config.mss);
                let drain = bytes * 1_000_000_000 / u128::from(rate);
                min.max(Duration::from_nanos(drain.min(u128::from(u64::MAX)) as u64))
            }
            _ => self.rtt_estimate(),
        }
    }

    /// The round trip the pipe shows now: what a request sent now should
    /// take ([`Pipe::rtt_expected`]), or, when its oldest outstanding
    /// request has waited longer, that wait. A path that slowed down or
    /// died looks so at once, not once late samples have moved the
    /// smoothed estimate.
    ///
    /// Requests given up on count too while they may still be queued on
    /// the path (see [`Pipe::queued_given_up`]): a path that slowed down
    /// answers them late, one by one, and a new request comes back after
    /// them, so then the pipe shows at least what they will take at the
    /// pace it answers.
    pub fn rtt_shown(&self, now: Instant) -> Duration {
        let queued = self.queued_given_up();
        // Local numbers go out in time order: the oldest request still
        // outstanding is the first.
        let oldest = self
            .outstanding
            .first_key_value()
            .map(|(_, r)| r.sent_at)
            .into_iter()
            .chain(queued.clone().next())
            .min()
            .map_or(Duration::ZERO, |t| now.saturating_since(t));
        let behind = match (queued.count(), self.answer_gap) {
            (0, _) | (_, None) => Duration::ZERO,
            (n, Some(gap)) => gap.saturating_mul((n + self.outstanding.len() + 1) as u64),
        };
        self.rtt_expected().max(oldest).max(behind)
    }

    /// When the requests given up on that may still be queued on the path
    /// were sent, oldest first: while the path answers such requests late,
    /// those sent after the latest request answered (the path returns
    /// requests in the order they left, and local numbers go out in that
    /// order; those sent before it are lost, not queued). None once the path answers requests still outstanding: a
    /// path that lost what it was asked (a blackout) has no backlog.
    fn queued_given_up(&self) -> impl Iterator<Item = Instant> + Clone + '_ {
        let first = match self.answered_local {
            Some(l) if self.answered_late => l + 1,
            _ => u64::MAX,
        };
        self.given_up.range(first..).map(|(_, &t)| t)
    }

    /// Whether the pipe's path fell silent: it has answered nothing it was
    /// asked at `asked` or later, and nothing at all for four of its usual
    /// intervals between answers and a quarter of its round trip. A path
    /// that answers, however slowly, or lost only some requests, is not
    /// silent; one whose link went away is, well before its RTO.
    pub fn fell_silent(&self, now: Instant, asked: Instant) -> bool {
        let Some((at, latest_asked)) = self.last_answer else {
            return true;
        };
        latest_asked < asked && now.saturating_since(at) >= self.silence_slack()
    }

    /// When the pipe's request sent at `asked` has missed its turn, its
    /// path fallen silent under it: the path answers in the order it was
    /// asked, one request per usual interval between answers, and this
    /// request left at least the path's shortest round trip before its
    /// latest answer, so it was already in that stream, next after those
    /// sent before it. Its turn is missed once nothing has come for four of
    /// those intervals, or a quarter of the path's shortest round trip if
    /// longer, or twice the longest pause its stream made lately while it
    /// held requests (a jittery radio link's), after the latest answer and
    /// the turns of the requests ahead of it. `None` when that is not
    /// known: the pipe has answered a request sent after it (it is lost,
    /// not late) or none at all, or the request had not had its round trip
    /// by the latest answer (a flight in slow start, or a request sent
    /// after an idle spell, comes a round trip after it left, not in the
    /// stream).
    ///
    /// A link that went away under a queue of requests stops the stream at
    /// once, where the pipe's RTO and the engine's patience count from when
    /// a request left, half a second or more before on a queued path (see
    /// `R2cpReceiver::reinject`). The slack is the path's propagation, not
    /// its queue ([`Pipe::silence_slack`] takes a quarter of the smoothed
    /// round trip): a queue delays the stream, it does not pause it.
    pub fn turn_missed_at(&self, asked: Instant) -> Option<Instant> {
        let (at, latest_asked) = self.last_answer?;
        let gap = self.answer_gap?;
        let min_rtt = self.rtt.min_rtt()?;
        if latest_asked >= asked || asked + min_rtt > at {
            return None;
        }
        let ahead = self
            .outstanding
            .values()
            .take_while(|r| r.sent_at < asked)
            .count() as u64;
        let jitter = self.longest_gap.get().saturating_mul(2);
        let slack = gap.saturating_mul(4).max(min_rtt.div(4)).max(jitter);
        Some(at + slack + gap.saturating_mul(ahead))
    }

    /// When the pipe's path counts as silent since its oldest outstanding
    /// request left, if nothing has arrived since: that request's round
    /// trip (the smoothed one, the handshake's or a probe's if it has
    /// answered no data yet) and the path's silence slack after it. `None`
    /// once anything arrived after it left (then [`Pipe::turn_missed_at`]
    /// knows better), or with nothing outstanding.
    ///
    /// [`Pipe::turn_missed_at`] needs a stream of answers the request was
    /// in; a pipe that opened, or was taken as back, and lost its link
    /// before its first answers has none, and the head of line it holds
    /// waited for the engine's patience, its RTO: in a handoff storm of
    /// 1 s turns, a 0.5 Mbit/s WWAN of 530 ms round trip opened in its
    /// first turn, asked for the head of line and lost its link with it,
    /// and the returning 5 Mbit/s WLAN waited 0.44 s for it (265 kB in
    /// that turn against 468 now).
    pub fn unanswered_at(&self) -> Option<Instant> {
        let oldest = self.outstanding.values().next()?.sent_at;
        if self.last_answer.is_some_and(|(at, _)| at > oldest) {
            return None;
        }
        let srtt = self.rtt.srtt()?;
        Some(oldest + srtt + self.silence_slack())
    }

    /// When the pipe's path counts as fallen silent under what it holds:
    /// its oldest outstanding request missed its turn in the stream of
    /// answers ([`Pipe::turn_missed_at`]). `None` while that is not known.
    pub fn stream_stopped_at(&self) -> Option<Instant> {
        let oldest = self.outstanding.values().next()?.sent_at;
        self.turn_missed_at(oldest)
    }

    /// How long a working path may answer nothing before it counts as
    /// silent: four of its usual intervals between answers, or a quarter of
    /// its round trip if longer.
    pub(super) fn silence_slack(&self) -> Duration {
        let srtt = self.rtt.srtt().unwrap_or(Duration::ZERO);
        let gap = self.answer_gap.unwrap_or(Duration::ZERO);
        gap.saturating_mul(4).max(srtt.div(4))
    }

    /// When, at the pace this pipe answers now, its request sent at `asked`
    /// should come back: its path returns requests in the order they left,
    /// one per smoothed answer gap (or per the silence since the last
    /// answer, if longer), so after every request sent no later than it,
    /// those given up on that may still be queued included. `None` when
    /// that is not known: no pace yet, the request is no longer
    /// outstanding, or the pipe has answered one sent after it (then it is
    /// lost or reordered, not queued).
    pub fn answer_expected(&self, now: Instant, asked: Instant) -> Option<Instant> {
        let (at, latest_asked) = self.last_answer?;
        if latest_asked > asked {
            return None;
        }
        // In time order (local numbers): those sent no later come first.
        let outstanding = self
            .outstanding
            .values()
            .take_while(|r| r.sent_at <= asked)
            .count() as u64;
        if outstanding == 0 {
            return None;
        }
        let queued = self.queued_given_up().take_while(|&t| t <= asked).count() as u64;
        let gap = self.answer_gap?.max(now.saturating_since(at));
        Some(now + gap.saturating_mul(outstanding + queued))
    }

    /// Whether the pipe's window is full but its next answer, due soon,
    /// opens a slot in it: no more than its window is outstanding, and its
    /// answers keep coming at their pace (the last one at most two of its
    /// smoothed intervals between answers ago). Not a pipe whose answers
    /// come in flights a round trip apart, as in slow start or through a
    /// queue another pipe keeps full: its next answer may be a round trip
    /// away.
    pub fn slot_at_next_answer(&self, now: Instant) -> bool {
        let answering = match (self.last_answer, self.answer_gap) {
            (Some((at, _)), Some(gap)) => now.saturating_since(at) <= gap.saturating_mul(2),
            _ => false,
        };
        answering
            && !self.window_has_room()
            && !self.outstanding.is_empty()
            && self.in_flight <= self.window()
    }

    /// Request `local`, sent at `asked`, was answered at `now`.
    pub(super) fn note_answer(&mut self, now: Instant, asked: Instant, local: u64) {
        self.answered_local = Some(self.answered_local.map_or(local, |l| l.max(local)));
        if let Some((at, latest_asked)) = self.last_answer {
            let gap = now.saturating_since(at);
            // Only a request that was in the stream at the previous answer
            // (sent a shortest round trip before it) shows a pause of the
            // path; one sent later shows the pipe's own pause in asking.
            let in_stream = self.rtt.min_rtt().is_some_and(|m| asked + m <= at);
            if in_stream {
                let horizon = self.rtt.srtt().unwrap_or(Duration::ZERO).saturating_mul(10);
                self.longest_gap.note(now, gap, horizon);
            }
            self.answer_gap = Some(match self.answer_gap {
                Some(g) => (g.saturating_mul(7) + gap).div(8),
                None => gap,
            });
            self.last_answer = Some((now, latest_asked.max(asked)));
        } else {
            self.last_answer = Some((now, asked));
        }
    }
}

/// The longest pause of a path's stream of answers lately: a windowed
/// maximum kept in two halves, the current one and the one before, each
/// at least a horizon long (ten round trips), so a pause is remembered for
/// one to two horizons.
#[derive(Debug, Default, Clone)]
pub(super) struct LongestGap {
    /// When the current half began.
    since: Option<Instant>,
    current: Duration,
    previous: Duration,
}

impl LongestGap {
    /// A pause of `gap` seen at `now`.
    pub(super) fn note(&mut self, now: Instant, gap: Duration, horizon: Duration) {
        let age = self.since.map(|t| now.saturating_since(t));
        if age.is_none_or(|a| a >= horizon) {
            // A half older than two horizons is forgotten as well.
            let stale = age.is_none_or(|a| a >= horizon.saturating_mul(2));
            self.previous = if stale { Duration::ZERO } else { self.current };
            self.current = Duration::ZERO;
            self.since = Some(now);
        }
        self.current = self.current.max(gap);
    }

    /// The longest pause remembered.
    pub(super) fn get(&self) -> Duration {
        self.current.max(self.previous)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Instant {
        Instant::from_nanos(v * 1_000_000)
    }

    /// An established pipe whose sender holds 100 segments.
    fn pipe() -> Pipe {
        Pipe::established(100_000)
    }

    #[test]
    fn an_answer_is_expected_after_the_requests_sent_before_it_at_the_answer_pace() {
        let mut p = pipe();
        // Five requests at 10 ms; the first two answered 10 ms apart.
        for k in 0..5 {
            p.request(ms(10), k * 1000, (k + 1) * 1000, 0);
        }
        assert_eq!(p.answer_expected(ms(60), ms(10)), None, "no pace yet");
        p.on_data(ms(100), 1);
        p.on_data(ms(110), 2);
        // Three requests left, all sent no later than the last: at one
        // answer per 10 ms it comes back in 30 ms.
        assert_eq!(p.answer_expected(ms(110), ms(10)), Some(ms(140)));
        // Silent for 50 ms: the pace is that silence, not the old gap.
        assert_eq!(p.answer_expected(ms(160), ms(10)), Some(ms(160 + 3 * 50)));
    }

    #[test]
    fn a_request_in_the_stream_of_answers_misses_its_turn_when_the_stream_stops() {
        let mut p = pipe();
        // Ten requests 2 ms apart from 10 ms; the first three answered
        // 10 ms apart from 100 ms, behind a queue (the handshake took the
        // path's shortest round trip, 10 ms).
        for k in 0..10 {
            p.request(ms(10 + 2 * k), k * 1000, (k + 1) * 1000, 0);
        }
        for (k, t) in [(1, 100), (2, 110), (3, 120)] {
            p.on_data(ms(t), k);
        }
        // The fourth, sent at 16 ms, is next in the stream: its turn is
        // missed four answer intervals (40 ms, more than a quarter of the
        // shortest round trip) after the last answer. The sixth has two
        // turns ahead of it.
        assert_eq!(p.turn_missed_at(ms(16)), Some(ms(160)));
        assert_eq!(p.turn_missed_at(ms(20)), Some(ms(180)));
        // A request sent less than the shortest round trip before the last
        // answer is not in the stream yet.
        let mut q = pipe();
        q.request(ms(10), 0, 1000, 0);
        q.request(ms(50), 1000, 2000, 0);
        q.on_data(ms(100), 1);
        q.request(ms(135), 2000, 3000, 0);
        q.on_data(ms(140), 2);
        assert_eq!(q.turn_missed_at(ms(135)), None);
        // The fifth answered before the fourth: the fourth is lost, not
        // late; its loss is the window's business.
        p.on_data(ms(130), 5);
        assert_eq!(p.turn_missed_at(ms(16)), None);
    }

    #[test]
    fn a_path_falls_silent_under_what_it_holds_when_its_oldest_request_misses_its_turn() {
        let mut p = pipe();
        for k in 0..4 {
            p.request(ms(10 + 2 * k), k * 1000, (k + 1) * 1000, 0);
        }
        for (k, t) in [(1, 100), (2, 110)] {
            p.on_data(ms(t), k);
        }
        // The third, sent at 14 ms, is the oldest still out: its turn is
        // missed four answer intervals after the last answer.
        assert_eq!(p.stream_stopped_at(), Some(ms(150)));
        // Nothing out, nothing to miss.
        p.on_data(ms(120), 3);
        p.on_data(ms(130), 4);
        assert_eq!(p.stream_stopped_at(), None);
    }

    #[test]
    fn a_path_that_answered_nothing_since_its_oldest_request_left_is_silent_a_round_trip_and_its_slack_later(
    ) {
        let mut p = pipe();
        let srtt = p.rtt.srtt().unwrap();
        p.request(ms(10), 0, 1000, 0);
        p.request(ms(12), 1000, 2000, 0);
        let first = ms(10) + srtt + p.silence_slack();
        assert_eq!(p.unanswered_at(), Some(first));
        // An answer after the oldest request left: the path answers, its
        // stream tells the rest (`turn_missed_at`).
        p.on_data(ms(40), 1);
        assert_eq!(p.unanswered_at(), None);
        // Requests an answer clocks leave at its instant: nothing has come
        // since they left.
        p.on_data(ms(50), 2);
        p.request(ms(50), 2000, 3000, 0);
        assert_eq!(
            p.unanswered_at(),
            Some(ms(50) + p.rtt.srtt().unwrap() + p.silence_slack())
        );
        // Nothing out, nothing to wait for.
        p.on_data(ms(80), 3);
        assert_eq!(p.unanswered_at(), None);
    }

    #[test]
    fn a_stream_that_paused_before_is_given_twice_that_pause() {
        let mut p = pipe();
        for k in 0..20 {
            p.request(ms(10 + 2 * k), k * 1000, (k + 1) * 1000, 0);
        }
        // Answers 10 ms apart but for one pause of 60 ms (a radio link's
        // stall) while the requests were in the stream.
        for (k, t) in [(1, 100), (2, 110), (3, 120), (4, 180), (5, 190), (6, 200)] {
            p.on_data(ms(t), k);
        }
        // The seventh (sent at 22 ms) misses its turn only after twice
        // that pause, not four answer intervals.
        assert_eq!(p.turn_missed_at(ms(22)), Some(ms(200 + 120)));
    }

    #[test]
    fn a_request_overtaken_by_a_later_answer_has_no_forecast() {
        let mut p = pipe();
        p.request(ms(10), 0, 1000, 0);
        p.request(ms(20), 1000, 2000, 0);
        p.request(ms(30), 2000, 3000, 0);
        p.on_data(ms(100), 2);
        p.on_data(ms(110), 3);
        // The request sent at 10 ms was passed by two sent after it: lost
        // or reordered, not queued.
        assert_eq!(p.answer_expected(ms(110), ms(10)), None);
    }

    #[test]
    fn a_path_answering_what_was_given_up_shows_the_backlog_behind_a_new_request() {
        let mut p = pipe();
        // Ten requests at 10 ms; the path slows down and the timer gives
        // them up at 1 s. Then the first two come back, 400 ms apart.
        for k in 0..10 {
            p.request(ms(10), k * 1000, (k + 1) * 1000, 0);
        }
        p.handle_timeout(ms(1_010));
        assert_eq!(p.in_flight(), 0);
        p.on_data(ms(1_100), 1);
        p.on_data(ms(1_500), 2);
        // Eight still queued, sent 1.49 s ago: the oldest's wait, and at
        // 400 ms an answer, eight ahead of a new request and the new one.
        assert_eq!(p.rtt_shown(ms(1_500)), Duration::from_millis(9 * 400));
        // A request sent now comes back after the eight.
        p.request(ms(1_500), 10_000, 11_000, 0);
        assert_eq!(
            p.answer_expected(ms(1_500), ms(1_500)),
            Some(ms(1_500 + 9 * 400))
        );
    }

    #[test]
    fn a_full_window_waits_for_its_next_answer_only_while_answers_keep_coming() {
        let mut p = pipe();
        let fill = |p: &mut Pipe, now: Instant| {
            while p.can_request(now) {
                let k = p.next_local();
                p.request(now, k * 1000, (k + 1) * 1000, 0);
            }
        };
        // The window full; no answer yet, so none is known to be coming.
        fill(&mut p, ms(10));
        assert!(!p.slot_at_next_answer(ms(10)));
        // Two answers 2 ms apart over the handshake's 10 ms round trip;
        // the window is filled again.
        p.on_data(ms(20), 1);
        p.on_data(ms(22), 2);
        fill(&mut p, ms(22));
        assert!(p.in_flight() > 0 && p.in_flight() <= p.window());
        // Answering at its pace: the next answer opens a slot.
        assert!(p.slot_at_next_answer(ms(25)));
        // Silent for longer than two of its intervals: the next answer may
        // be a flight, a round trip, away.
        assert!(!p.slot_at_next_answer(ms(27)));
    }

    #[test]
    fn requests_given_up_in_a_blackout_are_no_backlog() {
        let mut p = pipe();
        for k in 0..10 {
            p.request(ms(10), k * 1000, (k + 1) * 1000, 0);
        }
        p.on_data(ms(100), 1);
        p.on_data(ms(110), 2);
        // The path goes dark: the rest is given up at the timeout, and
        // nothing of it ever comes.
        p.handle_timeout(ms(2_000));
        // Nothing was answered late: what was given up is lost, not queued
        // behind a new request, and the pipe shows its estimate.
        let shown = p.rtt_shown(ms(5_000));
        assert!(shown < Duration::from_millis(200), "{shown:?}");
    }
}
