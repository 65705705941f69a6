//! Each rule on hand-made views: a view in which it acts, and the same view
//! with its switch off, in which it does not.

use super::caps::{caps, CapInput};
use super::head::{held, unheld, HeadStep};
use super::rank::ahead;
use super::silence::{last_path_silent_at, syn_deadline, syns_again, SilenceView};
use super::view::{Holder, PipeView};
use super::{past_window, source, Source};
use crate::endpoint::PathId;
use crate::r2cp::Rules;
use crate::time::{Duration, Instant};

fn ms(v: u64) -> Instant {
    Instant::from_millis(v)
}

fn dur(v: u64) -> Duration {
    Duration::from_millis(v)
}

/// A working pipe `index` counting round trip `rtt_ms`, patient for 1 s.
fn pipe(index: usize, rtt_ms: u64) -> PipeView {
    PipeView {
        index,
        path: PathId(index as u16),
        live: true,
        probing: false,
        frozen: false,
        rtt: dur(rtt_ms),
        patience: dur(1_000),
        window: 20_000,
        in_flight: 10_000,
        paced: false,
        slot_at_next_answer: false,
    }
}

fn without(name: &str) -> Rules {
    Rules::without(name).unwrap()
}

/// Pipe 1 (200 ms) holds the head of line, asked at 1 s; pipe 0 (20 ms)
/// asks.
fn holder(sent_ms: u64) -> Holder {
    Holder {
        pipe: pipe(1, 200),
        sent_at: ms(sent_ms),
        silent_at: None,
        fell_silent: false,
        expected: None,
    }
}

#[test]
fn a_probing_pipe_probes_or_stripes_redundantly_only_beside_a_working_one() {
    let mut p = pipe(0, 50);
    assert_eq!(source(Rules::ALL, &p, true), Source::Ranked);
    p.probing = true;
    assert_eq!(source(Rules::ALL, &p, true), Source::Redundant);
    assert_eq!(
        source(without("redundant_striping"), &p, true),
        Source::Probe
    );
    // The last path asks for data on its own.
    assert_eq!(source(Rules::ALL, &p, false), Source::Ranked);
}

#[test]
fn a_full_window_asks_past_itself_only_when_no_slot_opens_soon() {
    assert!(past_window(true, false, false));
    assert!(
        !past_window(true, false, true),
        "its next answer opens a slot"
    );
    assert!(!past_window(true, true, false), "frozen");
    assert!(!past_window(false, false, false), "not working");
}

#[test]
fn take_head_gives_an_unheld_head_of_line_to_the_quickest_working_pipe() {
    let views = [pipe(0, 20), pipe(1, 200)];
    assert_eq!(unheld(Rules::ALL, &views[0], &views), HeadStep::Take);
    // A slower pipe leaves it to the quicker one.
    assert!(matches!(
        unheld(Rules::ALL, &views[1], &views),
        HeadStep::Leave { .. }
    ));
    assert!(matches!(
        unheld(without("take_head"), &views[0], &views),
        HeadStep::Leave { .. }
    ));
}

#[test]
fn reinject_lets_a_blocked_quicker_pipe_ask_for_the_head_of_line_before_it_is_due() {
    let views = [pipe(0, 20), pipe(1, 200)];
    // Asked at 1 s, due at 1.2 s: pipe 0 brings it by 1.07 s.
    let h = holder(1_000);
    let step = held(Rules::ALL, ms(1_050), &views[0], &h, &views, true);
    assert_eq!(
        step,
        HeadStep::Reinject {
            time_out_holder: false,
            back_up: None
        }
    );
    // Not blocked and not overdue: left alone, the engine woken at the
    // holder's patience.
    let step = held(Rules::ALL, ms(1_050), &views[0], &h, &views, false);
    assert_eq!(
        step,
        HeadStep::Leave {
            wake: Some(ms(2_000))
        }
    );
    // Switched off: nothing, however blocked.
    assert_eq!(
        held(without("reinject"), ms(1_050), &views[0], &h, &views, true),
        HeadStep::Leave { wake: None }
    );
}

#[test]
fn an_overdue_head_of_line_goes_to_the_quickest_pipe_and_is_backed_up_on_another() {
    let views = [pipe(0, 20), pipe(1, 200), pipe(2, 40)];
    // Past the holder's patience (asked at 0, now 1.1 s).
    let h = holder(0);
    let step = held(Rules::ALL, ms(1_100), &views[0], &h, &views, false);
    assert_eq!(
        step,
        HeadStep::Reinject {
            time_out_holder: false,
            back_up: Some(2)
        }
    );
    let step = held(
        without("back_up_head"),
        ms(1_100),
        &views[0],
        &h,
        &views,
        false,
    );
    assert!(matches!(step, HeadStep::Reinject { back_up: None, .. }));
    // Pipe 2 asking leaves it to the quicker pipe 0.
    let step = held(Rules::ALL, ms(1_100), &views[2], &h, &views, false);
    assert!(matches!(step, HeadStep::Leave { .. }));
}

#[test]
fn silent_holder_times_out_a_holder_whose_stream_stopped_before_its_patience() {
    let views = [pipe(0, 20), pipe(1, 200)];
    // Asked at 1 s; its path counts as silent under it at 1.3 s, long
    // before its patience (2 s).
    let h = Holder {
        silent_at: Some(ms(1_300)),
        fell_silent: true,
        ..holder(1_000)
    };
    let step = held(Rules::ALL, ms(1_350), &views[0], &h, &views, false);
    assert_eq!(
        step,
        HeadStep::Reinject {
            time_out_holder: true,
            back_up: None
        }
    );
    // Without the rule the request is not overdue before the patience.
    let step = held(
        without("silent_holder"),
        ms(1_350),
        &views[0],
        &h,
        &views,
        false,
    );
    assert_eq!(
        step,
        HeadStep::Leave {
            wake: Some(ms(2_000))
        }
    );
}

#[test]
fn a_holder_that_still_brings_the_head_of_line_in_time_is_waited_for() {
    let views = [pipe(0, 20), pipe(1, 200)];
    // Overdue, but at its pace it brings it 10 ms from now.
    let h = Holder {
        expected: Some(ms(1_110)),
        ..holder(0)
    };
    let step = held(Rules::ALL, ms(1_100), &views[0], &h, &views, true);
    assert_eq!(
        step,
        HeadStep::Leave {
            wake: Some(ms(1_120))
        }
    );
}

#[test]
fn look_ahead_counts_a_quicker_pipe_s_generations_and_window() {
    let q = pipe(1, 20);
    // A 200 ms pipe asks: ten of q's round trips, and what q's 20 kB
    // window asks in the 180 ms beyond one of them (nine windows), and
    // its 10 kB unused: 190 kB, 190 segments of 1000 bytes.
    let a = ahead(dur(200), &q, ms(5_000), 1 << 20, 1000);
    assert_eq!(a.generations, 10);
    assert_eq!(a.could, 190);
    assert_eq!(a.given_up_before, Some(ms(4_000)));
    // Paced, its unused window does not leave at once.
    let paced = PipeView { paced: true, ..q };
    assert_eq!(ahead(dur(200), &paced, ms(5_000), 1 << 20, 1000).could, 180);
    // A slower pipe is counted one generation, nothing more.
    let slow = ahead(dur(20), &pipe(1, 200), ms(5_000), 1 << 20, 1000);
    assert_eq!((slow.generations, slow.could), (0, 0));
}

#[test]
fn queue_cap_holds_each_of_several_working_pipes_to_twice_its_product_or_its_share() {
    let fast = CapInput {
        live: true,
        rate: 2_500_000,
        bdp: Some(50_000),
    };
    let slow = CapInput {
        live: true,
        rate: 500_000,
        bdp: Some(30_000),
    };
    // A 1.2 MB buffer: half of it shared 5:1.
    let c = caps(&[fast, slow], 1_200_000, 1000);
    assert_eq!(c, vec![Some(500_000), Some(100_000)]);
    // A small buffer: twice the product.
    let c = caps(&[fast, slow], 60_000, 1000);
    assert_eq!(c, vec![Some(100_000), Some(60_000)]);
    // Alone, or unmeasured: no cap.
    let alone = CapInput {
        live: false,
        ..slow
    };
    assert_eq!(caps(&[fast, alone], 60_000, 1000), vec![None, None]);
    let unmeasured = CapInput { bdp: None, ..slow };
    assert_eq!(caps(&[fast, unmeasured], 60_000, 1000)[1], None);
}

#[test]
fn a_syn_goes_again_once_a_working_path_falls_silent_after_it_left() {
    let working = SilenceView {
        live: true,
        silent_at: Some((ms(500), ms(400))),
        ..SilenceView::default()
    };
    let opening = SilenceView {
        syn_sent_at: Some(ms(300)),
        ..SilenceView::default()
    };
    let pipes = [working, opening];
    assert_eq!(syn_deadline(&pipes), Some(ms(500)));
    assert!(syns_again(ms(499), &pipes).is_empty());
    assert_eq!(syns_again(ms(500), &pipes), vec![1]);
    // A SYN sent after the path last answered is not sent again.
    let late = SilenceView {
        syn_sent_at: Some(ms(450)),
        ..SilenceView::default()
    };
    assert_eq!(syn_deadline(&[working, late]), None);
    assert!(syns_again(ms(600), &[working, late]).is_empty());
}

#[test]
fn the_last_working_path_s_silence_counts_only_while_others_probe() {
    let last = SilenceView {
        live: true,
        stream_stopped_at: Some(ms(700)),
        ..SilenceView::default()
    };
    let probing = SilenceView {
        probing: true,
        ..SilenceView::default()
    };
    assert_eq!(last_path_silent_at(&[last, probing]), Some(ms(700)));
    assert_eq!(last_path_silent_at(&[last]), None, "none probes");
    assert_eq!(
        last_path_silent_at(&[last, last, probing]),
        None,
        "two work"
    );
}
