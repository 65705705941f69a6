//! The pipe's unit tests: its timing (the answer-time model), its path
//! failing and coming back, its window under the engine's cap, and its
//! handshake.

use super::*;
use crate::rcp::RcpVariant;

impl Pipe {
    /// A pipe on path 0, established at 10 ms with a sender that holds
    /// `bytes` of the stream (the tests start from it).
    pub(super) fn established(bytes: u32) -> Pipe {
        let mut p = Pipe::new(RcpConfig::ns2(RcpVariant::Rcp), PathId(0), Rules::ALL);
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

    /// The answer to pull `id`, carrying the segment it asked for (or any,
    /// if it is no longer outstanding).
    fn answer(&mut self, now: Instant, id: u32) -> PipeReport {
        let start = u64::from(id)
            .checked_sub(1)
            .and_then(|l| self.requests.get(l))
            .map_or(u64::MAX, |r| r.start);
        self.on_data(now, id, start)
    }

    /// An established pipe, alone, whose window grew to `cwnd` bytes over
    /// answers 100 ms after their requests (of whole segments from 0,
    /// the first at 10 ms): the pipe, the next segment to ask for, and the
    /// time of the last answers (ms).
    pub(super) fn grown_to(cwnd: u64) -> (Pipe, u64, u64) {
        let at = |v: u64| Instant::from_millis(v);
        let mut p = Pipe::established(10_000_000);
        let seg = p.config.mss;
        let (mut next, mut t) = (0, 10);
        while p.cwnd() < cwnd {
            while p.can_request(at(t)) {
                p.request(at(t), next * seg, (next + 1) * seg, 0);
                next += 1;
            }
            t += 100;
            for l in p.locals() {
                p.answer(at(t), (l + 1) as u32);
            }
        }
        (p, next, t)
    }

    /// The local numbers of the outstanding requests, oldest first.
    fn locals(&self) -> Vec<u64> {
        self.requests.by_local().map(|(l, _)| l).collect()
    }
}

mod timing {
    use super::super::*;

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
        p.answer(ms(100), 1);
        p.answer(ms(110), 2);
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
            p.answer(ms(t), k);
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
        q.answer(ms(100), 1);
        q.request(ms(135), 2000, 3000, 0);
        q.answer(ms(140), 2);
        assert_eq!(q.turn_missed_at(ms(135)), None);
        // The fifth answered before the fourth: the fourth is lost, not
        // late; its loss is the window's business.
        p.answer(ms(130), 5);
        assert_eq!(p.turn_missed_at(ms(16)), None);
    }

    #[test]
    fn a_path_falls_silent_under_what_it_holds_when_its_oldest_request_misses_its_turn() {
        let mut p = pipe();
        for k in 0..4 {
            p.request(ms(10 + 2 * k), k * 1000, (k + 1) * 1000, 0);
        }
        for (k, t) in [(1, 100), (2, 110)] {
            p.answer(ms(t), k);
        }
        // The third, sent at 14 ms, is the oldest still out: its turn is
        // missed four answer intervals after the last answer.
        assert_eq!(p.stream_stopped_at(), Some(ms(150)));
        // Nothing out, nothing to miss.
        p.answer(ms(120), 3);
        p.answer(ms(130), 4);
        assert_eq!(p.stream_stopped_at(), None);
    }

    #[test]
    fn a_path_that_answered_nothing_since_its_oldest_request_left_is_silent_a_round_trip_and_its_slack_later(
    ) {
        let mut p = pipe();
        let srtt = p.srtt().unwrap();
        p.request(ms(10), 0, 1000, 0);
        p.request(ms(12), 1000, 2000, 0);
        let first = ms(10) + srtt + p.answers.slack();
        assert_eq!(p.unanswered_at(), Some(first));
        // An answer after the oldest request left: the path answers, its
        // stream tells the rest (`turn_missed_at`).
        p.answer(ms(40), 1);
        assert_eq!(p.unanswered_at(), None);
        // Requests an answer clocks leave at its instant: nothing has come
        // since they left.
        p.answer(ms(50), 2);
        p.request(ms(50), 2000, 3000, 0);
        assert_eq!(
            p.unanswered_at(),
            Some(ms(50) + p.srtt().unwrap() + p.answers.slack())
        );
        // Nothing out, nothing to wait for.
        p.answer(ms(80), 3);
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
            p.answer(ms(t), k);
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
        p.answer(ms(100), 2);
        p.answer(ms(110), 3);
        // The request sent at 10 ms was passed by two sent after it: lost
        // or reordered, not queued.
        assert_eq!(p.answer_expected(ms(110), ms(10)), None);
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
        p.answer(ms(20), 1);
        p.answer(ms(22), 2);
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
        p.answer(ms(100), 1);
        p.answer(ms(110), 2);
        // The path goes dark: the rest is given up at the timeout, and
        // nothing of it ever comes.
        p.handle_timeout(ms(2_000));
        // Nothing was answered late: what was given up is lost, not queued
        // behind a new request, and the pipe shows its estimate.
        let shown = p.rtt_shown(ms(5_000));
        assert!(shown < Duration::from_millis(200), "{shown:?}");
    }

    /// A pipe answered in 100 ms whose next request is given up on at its
    /// timeout and answered 3 s after it left: what it shows at that
    /// answer, and after a request answered in time.
    fn answered_late(rule: bool) -> (Duration, Duration) {
        let mut p = pipe();
        p.rules.late_samples = rule;
        p.request(ms(10), 0, 1000, 0);
        p.answer(ms(110), 1);
        p.request(ms(110), 1000, 2000, 0);
        p.handle_timeout(ms(1_000));
        assert_eq!(p.in_flight(), 0, "given up on");
        p.on_data(ms(3_110), 2, 1000);
        let late = p.rtt_shown(ms(3_110));
        p.request(ms(3_110), 2000, 3000, 0);
        p.answer(ms(3_210), 3);
        (late, p.rtt_shown(ms(3_210)))
    }

    #[test]
    fn a_late_answer_shows_the_round_trip_until_a_request_is_answered_in_time() {
        let (late, after) = answered_late(true);
        assert!(late >= Duration::from_millis(3_000), "{late:?}");
        assert!(after < Duration::from_millis(1_000), "{after:?}");
        // Off (Karn): the late answer times nothing.
        let (late, _) = answered_late(false);
        assert!(late < Duration::from_millis(1_000), "{late:?}");
    }

    #[test]
    fn a_request_given_up_on_is_forgotten_once_a_later_one_is_answered_or_it_is_old() {
        let mut p = pipe();
        for k in 0..3 {
            p.request(ms(10 + k), k * 1000, (k + 1) * 1000, 0);
        }
        p.handle_timeout(ms(1_000));
        assert_eq!(p.requests.given_up_len(), 3);
        // The second is answered late: it and the first are forgotten.
        p.on_data(ms(1_100), 2, 1000);
        assert_eq!(p.requests.given_up_len(), 1);
        // An answer in time to a later request forgets the third.
        p.request(ms(1_100), 3000, 4000, 0);
        p.answer(ms(1_200), 4);
        assert_eq!(p.requests.given_up_len(), 0);
        // A request given up on more than the timeout's upper bound after
        // another lets that one go.
        p.request(ms(1_200), 4000, 5000, 0);
        p.handle_timeout(ms(2_000));
        let later = 1_200 + p.config.rtt.max_rto.as_millis() + 1;
        p.request(ms(later), 5000, 6000, 0);
        p.handle_timeout(ms(later + 60_000));
        assert_eq!(p.requests.given_up_len(), 1);
    }
}

mod outage {
    use crate::r2cp::pipe::Pipe;
    use crate::time::Instant;

    const MSS: u64 = 1000;

    fn ms(v: u64) -> Instant {
        Instant::from_nanos(v * 1_000_000)
    }

    /// An established pipe, alone (no cap, so unpaced), whose window grew
    /// to 40 segments over answers 100 ms after their requests.
    fn grown() -> (Pipe, u64, u64) {
        Pipe::grown_to(40 * MSS)
    }

    /// How many requests the pipe may send at `t` without time passing.
    fn burst(p: &mut Pipe, mut next: u64, t: u64) -> u64 {
        let mut n = 0;
        while p.can_request(ms(t)) && n < 1000 {
            p.request(ms(t), next * MSS, (next + 1) * MSS, 0);
            next += 1;
            n += 1;
        }
        n
    }

    #[test]
    fn a_link_that_returns_resumes_the_window_paced() {
        let (mut p, next, t) = grown();
        let w = p.cwnd();
        p.suspend();
        p.link_up(ms(t + 1000));
        assert_eq!(p.cwnd(), w, "the window it had, not the initial one");
        // Paced: the first requests leave from the pacer's bucket, not the
        // whole window at once.
        let sent = burst(&mut p, next, t + 1000);
        assert!(
            sent < w / MSS / 2,
            "{sent} requests at once of a {w}-byte window"
        );
        // Once the window has left at its pace, the pipe is unpaced again.
        let mut now = t + 1000;
        let mut next = next + sent;
        while p.is_paced() {
            now += 1;
            next += burst(&mut p, next, now);
            assert!(now < t + 3000, "still paced after 2 s");
        }
    }

    /// Times the pipe out `n` times in a row, as a dead path does.
    fn time_out(p: &mut Pipe, n: usize, mut t: u64) -> u64 {
        p.request(ms(t), 0, MSS, 0);
        for _ in 0..n {
            let d = p.poll_timeout().expect("a timer runs");
            t = t.max(d.as_nanos() / 1_000_000 + 1);
            p.handle_timeout(ms(t));
            p.request(ms(t), 0, MSS, 0);
        }
        t
    }

    #[test]
    fn a_silent_path_is_probed_once_per_round_trip_and_resumes_in_slow_start() {
        let (mut p, _, t) = grown();
        let before = p.cc.window();
        assert!(before.cwnd < before.ssthresh, "still in slow start");
        let t = time_out(&mut p, 3, t);
        // Probed at the shortest interval, not at its RTO (200 ms or more):
        // its shortest round trip, the handshake's 10 ms, is below it.
        let next = p.poll_timeout().unwrap().as_nanos() / 1_000_000;
        assert_eq!(next - t, 50);
        p.heard(ms(t + 50));
        let w = p.cc.window();
        assert_eq!(w.cwnd, before.cwnd, "the window it had");
        assert!(w.ssthresh >= before.ssthresh, "still in slow start");
        // The request still out is timed by the RTO of a path that answers
        // now, not by the probe's round trip.
        let rearmed = p.poll_timeout().unwrap().as_nanos() / 1_000_000;
        assert!(
            rearmed >= t + 50 + 200,
            "timer at {rearmed} ms, heard at {} ms",
            t + 50
        );
    }

    #[test]
    fn a_pipe_taken_as_heard_gives_up_its_probe_and_resumes_its_window() {
        let (mut p, next, t) = grown();
        let before = p.cwnd();
        let t = time_out(&mut p, 3, t);
        assert!(p.probing());
        // One probe is out, sent into the silence.
        assert_eq!(p.in_flight(), MSS);
        let probe = p.locals()[0];
        let r = p.assume_heard(ms(t + 10));
        assert_eq!(r.lost, vec![0], "the probe's segment goes back");
        assert!(p.live() && !p.probing());
        assert_eq!(p.cwnd(), before, "the window it had");
        assert_eq!(p.in_flight(), 0);
        assert_eq!(p.poll_timeout(), None, "no timer for the probe");
        // Its requests now leave, paced, and are timed by the path's RTO,
        // not by the probe interval.
        let sent = burst(&mut p, next, t + 10);
        assert!(sent >= 1 && sent < before / MSS / 2, "{sent} requests");
        let timer = p.poll_timeout().unwrap().as_nanos() / 1_000_000;
        assert!(timer >= t + 10 + 200, "timer at {timer} ms");
        // The probe's answer, should it come, is a late one: no loss, no cut.
        let late = p.answer(ms(t + 20), probe as u32 + 1);
        assert!(late.lost.is_empty());
        assert_eq!(p.cwnd(), before);
    }

    #[test]
    fn a_pipe_let_ask_again_with_room_for_many_requests_sends_them_paced() {
        let (mut p, next, t) = grown();
        assert!(!p.is_paced(), "alone, unpaced");
        // Its window has room for a few requests (an answer, and slow
        // start's growth): they leave at once.
        let w = p.cwnd() / MSS;
        let mut next = next;
        next += burst(&mut p, next, t);
        let out: Vec<u64> = p.locals().into_iter().take(1).collect();
        for l in out {
            p.answer(ms(t + 100), (l + 1) as u32);
        }
        p.pace_opening();
        assert!(!p.is_paced());
        assert_eq!(burst(&mut p, next, t + 100), 2);
        // Room for the whole window, as when the head of line it waited
        // for came at last: paced, not all at once.
        let out: Vec<u64> = p.locals();
        for l in out {
            p.answer(ms(t + 200), (l + 1) as u32);
        }
        p.pace_opening();
        assert!(p.is_paced());
        let sent = burst(&mut p, next + 2, t + 200);
        assert!(sent < w / 2, "{sent} requests at once of {w}");
    }
}

mod cap {
    use crate::r2cp::pipe::{Cap, Pipe};
    use crate::time::{Duration, Instant};

    const MSS: u64 = 1000;

    fn ms(v: u64) -> Instant {
        Instant::from_nanos(v * 1_000_000)
    }

    /// An established pipe whose sender holds 10,000 segments, capped at
    /// `cap` segments.
    fn capped(cap: u64) -> Pipe {
        let mut p = Pipe::established(10_000_000);
        p.cap = Cap(Some(cap * MSS));
        p
    }

    /// Every 10 ms, requests what the window and the pace allow and answers
    /// the oldest request, `rounds` times; returns the next segment and the
    /// time.
    fn run(p: &mut Pipe, mut next: u64, mut t: u64, rounds: u64) -> (u64, u64) {
        for _ in 0..rounds {
            t += 10;
            while p.can_request(ms(t)) {
                p.request(ms(t), next * MSS, (next + 1) * MSS, 0);
                next += 1;
            }
            if let Some(&oldest) = p.locals().first() {
                p.answer(ms(t), (oldest + 1) as u32);
            }
        }
        (next, t)
    }

    #[test]
    fn a_slow_start_the_cap_ends_grows_the_window_to_twice_the_cap_and_no_further() {
        let mut p = capped(10);
        run(&mut p, 0, 20, 200);
        assert_eq!(p.window(), 10 * MSS);
        assert_eq!(p.cwnd(), 20 * MSS);
    }

    #[test]
    fn the_first_loss_after_such_a_slow_start_leaves_the_pipe_at_its_cap() {
        let mut p = capped(10);
        let (next, t) = run(&mut p, 0, 20, 200);
        // The oldest outstanding request is lost: three later ones answer.
        let lost = p.locals()[0];
        for k in 1..=3 {
            p.answer(ms(t + k), (lost + 1 + k) as u32);
        }
        assert_eq!(p.recoveries, 1);
        assert_eq!(p.cwnd(), 10 * MSS, "halved from the window, not the cap");
        assert_eq!(p.window(), 10 * MSS);
        // In congestion avoidance at the cap the window no longer grows.
        run(&mut p, next, t + 10, 100);
        assert_eq!(p.cwnd(), 10 * MSS);
    }

    /// A path of 10 ms round trip (the handshake's) that answers ten
    /// segments a millisecond (a bandwidth-delay product of 100 segments),
    /// driven for `ms_total` ms from `t`: each millisecond the ten oldest
    /// requests answer if they left 10 ms ago, then the pipe asks what its
    /// window and pace allow.
    fn path(p: &mut Pipe, mut next: u64, t: u64, ms_total: u64) -> (u64, u64) {
        for now in t..t + ms_total {
            for _ in 0..10 {
                let oldest = p.requests.by_local().next().map(|(l, r)| (l, r.sent_at));
                match oldest {
                    Some((oldest, sent)) if sent + Duration::from_millis(10) <= ms(now) => {
                        p.answer(ms(now), (oldest + 1) as u32);
                    }
                    _ => break,
                }
            }
            while p.can_request(ms(now)) {
                p.request(ms(now), next * MSS, (next + 1) * MSS, 0);
                next += 1;
            }
        }
        (next, t + ms_total)
    }

    /// The pipe on that path with its congestion window set to `window`
    /// segments and its pace's bucket empty; then an answer arrives.
    /// Returns whether the pace lets a request leave at once.
    fn answer_when_paced(window: u64) -> bool {
        let mut p = capped(1000);
        let (_, t) = path(&mut p, 0, 20, 300);
        assert_eq!(p.bdp(), Some(100 * MSS), "the path's product");
        p.cc.restart(window * MSS, window * MSS);
        let now = ms(t);
        let shape = p.shape();
        let pace = p.pacing.pace(shape).expect("paced beside other pipes");
        p.pacing.spend(now, shape, pace.depth);
        assert!(!p.pacing.ready(now, shape), "the bucket is empty");
        let bdp = p.bdp();
        p.pacing.credit(now, p.shape(), MSS, bdp);
        assert!(p.is_paced(), "still paced");
        p.pacing.ready(now, p.shape())
    }

    #[test]
    fn below_its_path_s_product_an_answer_lets_the_request_it_clocks_go_at_once() {
        assert!(answer_when_paced(60));
    }

    #[test]
    fn above_its_path_s_product_the_pace_holds_every_request() {
        assert!(!answer_when_paced(300));
    }

    #[test]
    fn below_its_cap_the_window_keeps_its_own_rules() {
        let mut p = capped(1000);
        let before = p.cwnd();
        run(&mut p, 0, 20, 8);
        assert_eq!(
            p.cwnd(),
            before + 8 * MSS,
            "slow start: a segment per arrival"
        );
        assert!(p.window() < 1000 * MSS);
    }
}

mod handshake {
    use crate::endpoint::PathId;
    use crate::r2cp::pipe::Pipe;
    use crate::rcp::{RcpConfig, RcpVariant};
    use crate::seq::SeqNum;
    use crate::time::{Duration, Instant};
    use crate::wire::rcp::{RcpFlags, RcpHeader};

    fn ms(v: u64) -> Instant {
        Instant::from_millis(v)
    }

    fn opening() -> Pipe {
        let mut config = RcpConfig::ns2(RcpVariant::Rcp);
        config.rtt.initial_rto = Duration::from_secs(1);
        let mut p = Pipe::new(config, PathId(1), crate::r2cp::Rules::ALL);
        p.open(ms(0));
        p
    }

    /// A SYN+ACK answering SYN number `id` (0: not said).
    fn synack(id: u32) -> RcpHeader {
        RcpHeader::new(
            RcpFlags::SYN | RcpFlags::ACK,
            0,
            SeqNum(0),
            SeqNum(1000),
            id,
        )
    }

    #[test]
    fn a_syn_sent_again_without_backoff_keeps_the_initial_interval() {
        let mut p = opening();
        assert!(!p.handshake_due(ms(999)));
        assert!(p.handshake_due(ms(1_000)));
        // Backed off, the next SYN would wait 2 s; sent again, 1 s.
        p.open_again(ms(1_000));
        assert_eq!(p.syn_sent_at(), Some(ms(1_000)));
        assert_eq!(p.poll_timeout(), Some(ms(2_000)));
        p.handle_timeout(ms(2_000));
        assert_eq!(p.poll_timeout(), Some(ms(4_000)), "a lone pipe backs off");
    }

    #[test]
    fn the_answer_to_a_syn_sent_twice_is_timed_from_the_syn_it_names() {
        // Answers the first SYN, 1.2 s on: 200 ms after the second.
        let mut p = opening();
        p.open_again(ms(1_000));
        p.on_synack(ms(1_200), &synack(1));
        assert_eq!(p.srtt(), Some(Duration::from_millis(1_200)));
        // Naming the second.
        let mut p = opening();
        p.open_again(ms(1_000));
        p.on_synack(ms(1_200), &synack(2));
        assert_eq!(p.srtt(), Some(Duration::from_millis(200)));
        // Naming none: ambiguous after two SYNs (Karn), a sample after one.
        let mut p = opening();
        p.open_again(ms(1_000));
        p.on_synack(ms(1_200), &synack(0));
        assert_eq!(p.srtt(), None);
        let mut q = opening();
        q.on_synack(ms(300), &synack(0));
        assert_eq!(q.srtt(), Some(Duration::from_millis(300)));
    }

    #[test]
    fn a_working_pipe_counts_as_silent_once_its_oldest_request_is_overdue() {
        let mut p = Pipe::established(100_000);
        assert_eq!(p.silent_at(), None, "nothing outstanding");
        for k in 0..6 {
            p.request(ms(20), k * 1000, (k + 1) * 1000, 0);
        }
        // Answers 100 ms after asking, 5 ms apart.
        for k in 1..=4 {
            p.answer(ms(115 + 5 * u64::from(k)), k);
        }
        let srtt = p.srtt().unwrap();
        let slack = Duration::from_millis(20).max(srtt.div(4));
        let (at, last) = p.silent_at().unwrap();
        assert_eq!(last, ms(135));
        assert_eq!(at, (ms(135) + slack).max(ms(20) + srtt + slack));
        // A new flight, asked at the last answer, moves the time on by a
        // round trip only once the older requests are answered.
        p.request(ms(135), 6000, 7000, 0);
        assert_eq!(p.silent_at().unwrap().0, at);
        p.answer(ms(140), 5);
        p.answer(ms(145), 6);
        let (later, _) = p.silent_at().unwrap();
        assert!(later > at && later >= ms(135) + p.srtt().unwrap());
    }
}

mod route_memory {
    use crate::endpoint::PathId;
    use crate::r2cp::pipe::Pipe;
    use crate::r2cp::Rules;
    use crate::rcp::{RcpConfig, RcpVariant};
    use crate::seq::SeqNum;
    use crate::time::Instant;
    use crate::wire::rcp::{RcpFlags, RcpHeader};

    const MSS: u64 = 1000;

    fn ms(v: u64) -> Instant {
        Instant::from_millis(v)
    }

    /// An established pipe whose window grew to 30 segments over answers
    /// 100 ms after their requests; the time of its last answer.
    fn grown() -> (Pipe, u64) {
        let (p, _, t) = Pipe::grown_to(30 * MSS);
        (p, t)
    }

    #[test]
    fn a_pipe_leaves_its_round_trips_its_window_and_when_it_last_heard_its_path() {
        let (p, t) = grown();
        let m = p.memory().expect("its path answered");
        assert_eq!(m.heard, ms(t));
        assert_eq!(m.rtt.srtt(), p.srtt());
        let w = p.cc.window();
        assert_eq!(m.window, Some((p.window(), w.ssthresh)));
    }

    #[test]
    fn a_pipe_in_an_outage_leaves_the_window_it_had_before_it() {
        let (mut p, _) = grown();
        let before = (p.window(), p.cc.window().ssthresh);
        p.suspend();
        assert_eq!(p.memory().unwrap().window, Some(before));
    }

    #[test]
    fn a_pipe_whose_path_never_answered_leaves_nothing() {
        let mut p = Pipe::new(RcpConfig::ns2(RcpVariant::Rcp), PathId(0), Rules::ALL);
        p.open(ms(0));
        assert!(p.memory().is_none());
    }

    #[test]
    fn a_pipe_that_recalls_a_route_times_its_syn_by_it_and_resumes_its_window_paced() {
        let (old, t) = grown();
        let m = old.memory().unwrap();
        let (window, rto) = (m.window.unwrap().0, old.answers.base_rto());
        let config = RcpConfig::ns2(RcpVariant::Rcp);
        assert!(rto < config.rtt.initial_rto);
        let mut p = Pipe::new(config, PathId(1), Rules::ALL);
        p.recall(m);
        p.open(ms(t));
        assert_eq!(p.poll_timeout(), Some(ms(t) + rto), "the SYN's timer");
        let synack = RcpHeader::new(
            RcpFlags::SYN | RcpFlags::ACK,
            0,
            SeqNum(0),
            SeqNum(0) + 1u32 + 10_000_000u32,
            1,
        );
        p.on_synack(ms(t + 100), &synack);
        assert_eq!(p.cwnd(), window);
        // Paced: not the whole window at once.
        let mut sent = 0;
        while p.can_request(ms(t + 100)) && sent < 1000 {
            p.request(ms(t + 100), sent * MSS, (sent + 1) * MSS, 0);
            sent += 1;
        }
        assert!(sent < window / MSS / 2, "{sent} of {}", window / MSS);
    }
}

mod growth {
    use super::super::*;

    #[test]
    fn a_window_doubles_each_round_trip_in_slow_start_and_grows_a_segment_after() {
        let (p, _, _) = Pipe::grown_to(4_000);
        let w = p.cc.window();
        assert!(w.cwnd < w.ssthresh, "in slow start");
        let rtt = Duration::from_millis(100);
        assert_eq!(p.window_within(Duration::ZERO, rtt), w.cwnd);
        assert_eq!(p.window_within(rtt.saturating_mul(2), rtt), 4 * w.cwnd);
        // Never past the receive buffer.
        let rwnd = p.config.rwnd_bytes();
        assert_eq!(p.window_within(rtt.saturating_mul(60), rtt), rwnd);
        // In congestion avoidance, a segment per round trip.
        let mut q = p;
        q.cc.on_loss(Instant::from_millis(10_000), LossCause::Congestion, 8_000);
        let w = q.cc.window();
        assert!(w.cwnd >= w.ssthresh, "after the cut");
        let grown = q.window_within(rtt.saturating_mul(3), rtt);
        assert_eq!(grown, q.cap.window(w.cwnd + 3 * q.config.mss));
    }
}
