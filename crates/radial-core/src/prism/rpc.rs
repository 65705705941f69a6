//! The Reverse Path Controller (PRISM §V): what each acknowledgment from the
//! receiver means, which acknowledgments to hold back and re-sequence, and
//! which packets each link lost.
//!
//! RPC keeps a meta-state of the receiver's buffer: every data segment the
//! proxy forwarded, the link it took and whether the receiver holds it. An
//! acknowledgment is *identified* (§V-B.1) by the segments it newly covers,
//! through its SACK blocks (A.1) and the advance of its cumulative number
//! (A.2). Each link delivers in order, so a segment identified on a link
//! while an earlier one sent on that link is still missing means the
//! earlier one was lost (§V-B.3, a threshold of one).
//!
//! A duplicate acknowledgment caused by striping alone is held (§V-B.2).
//! When the cumulative number moves, the held ones are released, re-written
//! as the in-order acknowledgments they would have been, one per segment,
//! so the sender sees neither duplicates nor bursts. Once a loss is
//! detected (Figure 5's LOSS state) the loss is reported to the sender and
//! duplicates pass in their original form, each telling the sender that a
//! packet left the network, until every lost segment has arrived.

use std::collections::{BTreeMap, VecDeque};

use crate::time::{Duration, Instant};

/// How much of RPC runs (PRISM §VIII-D.1 compares the three).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RpcMode {
    /// Acknowledgments pass unchanged (RPC disabled); the link table still
    /// learns from them.
    Off,
    /// Acknowledgment re-sequencing only: spurious duplicates are held, no
    /// loss is detected, so recovery waits for the sender's timeout
    /// ("partial RPC").
    Resequence,
    /// Re-sequencing, per-link loss detection and loss notices.
    #[default]
    Full,
}

impl RpcMode {
    /// Every mode, in the order of the documentation.
    pub const ALL: [RpcMode; 3] = [RpcMode::Off, RpcMode::Resequence, RpcMode::Full];

    /// Name as in scenario files.
    pub fn name(self) -> &'static str {
        match self {
            RpcMode::Off => "off",
            RpcMode::Resequence => "resequence",
            RpcMode::Full => "full",
        }
    }

    /// The mode called `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        RpcMode::ALL.into_iter().find(|m| m.name() == name)
    }
}

/// Where a forwarded segment stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// On its link.
    InFlight,
    /// Detected lost on its link.
    Lost,
    /// The receiver holds it; `told` once an acknowledgment standing for it
    /// went to the sender.
    Arrived { told: bool },
}

/// One forwarded segment, keyed by its first byte.
#[derive(Clone, Copy, Debug)]
struct Segment {
    len: u64,
    link: u16,
    /// Which transmission of this range the record is (links' queues name
    /// transmissions by it).
    tx: u32,
    sent: Instant,
    /// Sent more than once: its arrival gives no round-trip sample (Karn).
    resent: bool,
    /// A retransmission of a segment detected lost: the loss is repaired
    /// only when it arrives.
    repairs: bool,
    state: State,
}

impl Segment {
    /// Lost, or resent after a loss and not yet arrived.
    fn unrepaired(&self) -> bool {
        self.state == State::Lost || (self.state == State::InFlight && self.repairs)
    }
}

/// What the proxy sends to the sender for one acknowledgment from the
/// receiver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Emit {
    /// The acknowledgment as it came (its cumulative number and SACK
    /// blocks), with a loss notice for the segment at this offset lost on
    /// this link, if any.
    Original {
        /// The lost segment's first byte and its link.
        notice: Option<(u64, u16)>,
    },
    /// A released acknowledgment re-written as in order: this cumulative
    /// number and no SACK blocks.
    Corrected {
        /// Cumulative acknowledgment offset.
        cum: u64,
    },
}

/// What one acknowledgment taught the proxy about its links.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Identified {
    /// Segments that arrived: the link, and the round trip if it was a
    /// first transmission.
    pub arrivals: Vec<(u16, Option<Duration>)>,
    /// Segments found lost: first byte and link.
    pub losses: Vec<(u64, u16)>,
}

/// Whether a forwarded segment is tracked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tracking {
    /// Tracked on its link; `replaced` names the link of an earlier copy
    /// still counted in flight, which no longer is.
    Tracked {
        /// The earlier copy's link.
        replaced: Option<u16>,
    },
    /// The receiver holds it already (a needless retransmission).
    Untracked,
}

/// The controller's state.
#[derive(Clone, Debug)]
pub struct Rpc {
    mode: RpcMode,
    segments: BTreeMap<u64, Segment>,
    /// Each link's transmissions in the order sent: (first byte, tx).
    queues: Vec<VecDeque<(u64, u32)>>,
    /// The receiver's cumulative acknowledgment, as last seen.
    cum: u64,
    next_tx: u32,
    /// Largest distance seen between the cumulative point and the highest
    /// byte the receiver holds (the re-sequencing buffer, Figure 14).
    pub max_span: u64,
    /// That distance as the last acknowledgment left it.
    pub span: u64,
    /// Acknowledgments held and later released re-written.
    pub corrected: u64,
    /// Loss notices sent.
    pub notices: u64,
}

impl Rpc {
    /// A controller for `links` links.
    pub fn new(mode: RpcMode, links: usize) -> Self {
        Rpc {
            mode,
            segments: BTreeMap::new(),
            queues: vec![VecDeque::new(); links],
            cum: 0,
            next_tx: 0,
            max_span: 0,
            span: 0,
            corrected: 0,
            notices: 0,
        }
    }

    /// The receiver's cumulative point as last seen.
    pub fn cum(&self) -> u64 {
        self.cum
    }

    /// True while a detected loss is not yet repaired (Figure 5's LOSS).
    fn in_loss(&self) -> bool {
        self.mode == RpcMode::Full && self.segments.values().any(Segment::unrepaired)
    }

    /// The proxy forwarded `[offset, offset + len)` on `link` at `now`.
    pub fn on_forward(&mut self, now: Instant, offset: u64, len: u64, link: u16) -> Tracking {
        if offset + len <= self.cum {
            return Tracking::Untracked;
        }
        let earlier = self.segments.get(&offset).copied();
        if matches!(earlier, Some(s) if matches!(s.state, State::Arrived { .. })) {
            return Tracking::Untracked;
        }
        self.next_tx = self.next_tx.wrapping_add(1);
        let tx = self.next_tx;
        self.segments.insert(
            offset,
            Segment {
                len,
                link,
                tx,
                sent: now,
                resent: earlier.is_some(),
                repairs: earlier.is_some_and(|s| s.unrepaired()),
                state: State::InFlight,
            },
        );
        if let Some(q) = self.queues.get_mut(usize::from(link)) {
            q.push_back((offset, tx));
        }
        let replaced = earlier
            .filter(|s| s.state == State::InFlight)
            .map(|s| s.link);
        Tracking::Tracked { replaced }
    }

    /// Every segment in flight on `link` is lost (its member left the
    /// community or its interface went down); returns their first bytes.
    pub fn on_link_down(&mut self, link: u16) -> Vec<u64> {
        let mut lost = Vec::new();
        let Some(q) = self.queues.get_mut(usize::from(link)) else {
            return lost;
        };
        for (offset, tx) in q.drain(..) {
            if let Some(s) = self.segments.get_mut(&offset) {
                if s.tx == tx && s.state == State::InFlight {
                    s.state = State::Lost;
                    lost.push(offset);
                }
            }
        }
        lost
    }

    /// An acknowledgment with cumulative offset `cum` and SACK blocks
    /// `blocks` (offsets) arrived at `now`: what it means for the links,
    /// and what to send to the sender in its place.
    pub fn on_ack(
        &mut self,
        now: Instant,
        cum: u64,
        blocks: &[(u64, u64)],
    ) -> (Identified, Vec<Emit>) {
        let old = self.cum;
        let cum = cum.max(old);
        let was_in_loss = self.in_loss();
        let mut found = Identified::default();
        // A.2: the cumulative number scans [old, cum); A.1: SACK blocks.
        let mut newly: Vec<u64> = Vec::new();
        let ranges =
            std::iter::once((old, cum)).chain(blocks.iter().map(|&(a, b)| (a.max(cum), b)));
        for (a, b) in ranges {
            if a >= b {
                continue;
            }
            for (&o, s) in self.segments.range_mut(a..b) {
                if o + s.len <= b && !matches!(s.state, State::Arrived { .. }) {
                    s.state = State::Arrived { told: false };
                    newly.push(o);
                    let rtt = (!s.resent).then(|| now.saturating_since(s.sent));
                    found.arrivals.push((s.link, rtt));
                }
            }
        }
        // §V-B.3: an arrival on a link means what was sent before it on
        // that link and is still missing was lost.
        for &o in &newly {
            let s = self.segments[&o];
            let Some(q) = self.queues.get_mut(usize::from(s.link)) else {
                continue;
            };
            let Some(at) = q.iter().position(|&e| e == (o, s.tx)) else {
                continue;
            };
            for (before, tx) in q.drain(..=at) {
                if let Some(b) = self.segments.get_mut(&before) {
                    if b.tx == tx && b.state == State::InFlight {
                        b.state = State::Lost;
                        found.losses.push((before, b.link));
                    }
                }
            }
        }
        self.span = self
            .segments
            .range(cum..)
            .rev()
            .find(|(_, s)| matches!(s.state, State::Arrived { .. }))
            .map_or(0, |(&o, s)| o + s.len - cum);
        self.max_span = self.max_span.max(self.span);
        let overtaken = self.overtaken(cum, &newly);
        let emits = self.decide(old, cum, was_in_loss, overtaken, &found.losses);
        self.cum = cum;
        self.segments = self.segments.split_off(&cum);
        (found, emits)
    }

    /// True when the duplicate acknowledgment for the segments `newly` is
    /// striping's doing: the segment at the receiver's cumulative point is
    /// on its way (not lost, not a repair) and every segment the
    /// acknowledgment reports was sent after it, so it overtook it on a
    /// faster link. A segment sent before it means the hole is a loss the
    /// proxy did not see (upstream of it, §V-B.3's "No Data") or a repair
    /// in flight: then the sender needs the duplicate. Re-sequencing alone
    /// (no loss detection) holds for a lost hole too, as the paper's
    /// partial RPC.
    fn overtaken(&self, cum: u64, newly: &[u64]) -> bool {
        let Some(hole) = self.segments.get(&cum) else {
            return false;
        };
        let waiting = match self.mode {
            RpcMode::Resequence => matches!(hole.state, State::InFlight | State::Lost),
            _ => hole.state == State::InFlight,
        };
        waiting
            && !hole.resent
            && !newly.is_empty()
            && newly.iter().all(|o| self.segments[o].sent >= hole.sent)
    }

    /// §V-B.2 and Figure 5: hold, release or re-write.
    fn decide(
        &mut self,
        old: u64,
        cum: u64,
        was_in_loss: bool,
        overtaken: bool,
        losses: &[(u64, u16)],
    ) -> Vec<Emit> {
        let mut emits = Vec::new();
        if self.mode == RpcMode::Off {
            emits.push(Emit::Original { notice: None });
            return emits;
        }
        let notices: Vec<(u64, u16)> = if self.mode == RpcMode::Full {
            losses.to_vec()
        } else {
            Vec::new()
        };
        if cum > old {
            // Release: one in-order acknowledgment per segment not yet
            // acknowledged to the sender, the last one the real one.
            let untold: Vec<u64> = self
                .segments
                .range_mut(old..cum)
                .filter(|(_, s)| s.state == State::Arrived { told: false })
                .map(|(&o, s)| {
                    s.state = State::Arrived { told: true };
                    (o + s.len).min(cum)
                })
                .collect();
            if let Some((_, before_last)) = untold.split_last() {
                self.corrected += before_last.len() as u64;
                emits.extend(before_last.iter().map(|&c| Emit::Corrected { cum: c }));
            }
            emits.push(Emit::Original { notice: None });
        } else {
            if overtaken && !was_in_loss && notices.is_empty() {
                return emits;
            }
            // Release every held acknowledgment in its original form, this
            // one among them.
            for s in self.segments.range_mut(cum..).map(|(_, s)| s) {
                if s.state == (State::Arrived { told: false }) {
                    s.state = State::Arrived { told: true };
                    emits.push(Emit::Original { notice: None });
                }
            }
            if emits.is_empty() {
                emits.push(Emit::Original { notice: None });
            }
        }
        // The loss information rides on the first acknowledgments released
        // (§VI-B.1), with copies added when there are more losses.
        for (k, n) in notices.into_iter().enumerate() {
            self.notices += 1;
            match emits.get_mut(k) {
                Some(Emit::Original { notice }) => *notice = Some(n),
                _ => emits.push(Emit::Original { notice: Some(n) }),
            }
        }
        emits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn t(ms: u64) -> Instant {
        Instant::from_nanos(ms * 1_000_000)
    }

    /// Forwards segments `0..n` on the links given, at time 0.
    fn forwarded(mode: RpcMode, links: &[u16]) -> Rpc {
        let mut r = Rpc::new(mode, 4);
        for (k, &l) in links.iter().enumerate() {
            r.on_forward(t(0), k as u64 * MSS, MSS, l);
        }
        r
    }

    fn seg(k: u64) -> (u64, u64) {
        (k * MSS, (k + 1) * MSS)
    }

    #[test]
    fn in_order_acknowledgments_pass_one_for_one() {
        let mut r = forwarded(RpcMode::Full, &[0, 1, 0]);
        let (found, emits) = r.on_ack(t(100), MSS, &[]);
        assert_eq!(found.arrivals, [(0, Some(Duration::from_millis(100)))]);
        assert_eq!(emits, [Emit::Original { notice: None }]);
    }

    #[test]
    fn striping_duplicates_are_held_then_released_in_order() {
        // 0 on the slow link 1; 1 and 2 on link 0 arrive first.
        let mut r = forwarded(RpcMode::Full, &[1, 0, 0]);
        let (f, e) = r.on_ack(t(50), 0, &[seg(1)]);
        assert_eq!((f.losses.len(), e.len()), (0, 0), "held: {e:?}");
        let (_, e) = r.on_ack(t(60), 0, &[(MSS, 3 * MSS)]);
        assert!(e.is_empty());
        // Segment 0 arrives: three in-order acknowledgments.
        let (f, e) = r.on_ack(t(200), 3 * MSS, &[]);
        assert_eq!(f.arrivals.len(), 1);
        assert_eq!(
            e,
            [
                Emit::Corrected { cum: MSS },
                Emit::Corrected { cum: 2 * MSS },
                Emit::Original { notice: None }
            ]
        );
        assert_eq!(r.max_span, 3 * MSS);
    }

    #[test]
    fn a_hole_on_a_link_is_a_loss_and_is_reported_at_once() {
        // Link 0 carries 0, 2; link 1 carries 1. Segment 0 is lost: 2's
        // arrival on the same link shows it.
        let mut r = forwarded(RpcMode::Full, &[0, 1, 0]);
        let (f, e) = r.on_ack(t(50), 0, &[seg(1)]);
        assert!(f.losses.is_empty() && e.is_empty(), "striping alone: held");
        let (f, e) = r.on_ack(t(60), 0, &[(MSS, 3 * MSS)]);
        assert_eq!(f.losses, [(0, 0)]);
        // The notice on the first released acknowledgment; the held one
        // follows as a duplicate.
        assert_eq!(
            e,
            [
                Emit::Original {
                    notice: Some((0, 0))
                },
                Emit::Original { notice: None }
            ]
        );
        assert_eq!(r.notices, 1);
        // In LOSS, duplicates pass until the retransmission arrives.
        r.on_forward(t(70), 3 * MSS, MSS, 1);
        let (_, e) = r.on_ack(t(80), 0, &[(MSS, 4 * MSS)]);
        assert_eq!(e, [Emit::Original { notice: None }]);
        assert_eq!(
            r.on_forward(t(90), 0, MSS, 1),
            Tracking::Tracked { replaced: None }
        );
        // Still in LOSS while the retransmission is on its way.
        r.on_forward(t(95), 4 * MSS, MSS, 0);
        let (_, e) = r.on_ack(t(100), 0, &[(MSS, 5 * MSS)]);
        assert_eq!(e, [Emit::Original { notice: None }]);
        let (f, e) = r.on_ack(t(150), 5 * MSS, &[]);
        assert_eq!(
            f.arrivals,
            [(1, None)],
            "a retransmission gives no RTT sample"
        );
        assert_eq!(e, [Emit::Original { notice: None }]);
        // Back to NORMAL: striping duplicates are held again.
        r.on_forward(t(160), 5 * MSS, MSS, 1);
        r.on_forward(t(160), 6 * MSS, MSS, 0);
        let (_, e) = r.on_ack(t(170), 5 * MSS, &[seg(6)]);
        assert!(e.is_empty());
    }

    #[test]
    fn resequencing_alone_never_reports_losses() {
        let mut r = forwarded(RpcMode::Resequence, &[0, 1, 0]);
        r.on_ack(t(50), 0, &[seg(1)]);
        let (f, e) = r.on_ack(t(60), 0, &[(MSS, 3 * MSS)]);
        assert_eq!(f.losses, [(0, 0)], "the link table still learns");
        assert!(e.is_empty(), "held until the sender's timeout repairs it");
    }

    #[test]
    fn with_rpc_off_every_acknowledgment_passes() {
        let mut r = forwarded(RpcMode::Off, &[1, 0, 0]);
        for k in 1..3 {
            let (_, e) = r.on_ack(t(50), 0, &[(MSS, (k + 1) * MSS)]);
            assert_eq!(e, [Emit::Original { notice: None }]);
        }
    }

    #[test]
    fn a_lost_link_loses_what_it_carried() {
        let mut r = forwarded(RpcMode::Full, &[0, 1, 0, 1]);
        assert_eq!(r.on_link_down(1), [MSS, 3 * MSS]);
        // A copy sent elsewhere is tracked afresh; the earlier copy was
        // already counted gone.
        assert_eq!(
            r.on_forward(t(10), MSS, MSS, 0),
            Tracking::Tracked { replaced: None }
        );
        // A spurious resend of a segment in flight replaces it.
        assert_eq!(
            r.on_forward(t(10), 2 * MSS, MSS, 2),
            Tracking::Tracked { replaced: Some(0) }
        );
        // Nothing below the cumulative point, or already held, is tracked.
        r.on_ack(t(20), MSS, &[seg(3)]);
        assert_eq!(r.on_forward(t(30), 0, MSS, 0), Tracking::Untracked);
    }

    #[test]
    fn many_losses_on_one_acknowledgment_each_get_a_notice() {
        let mut r = forwarded(RpcMode::Full, &[0, 0, 0, 1]);
        r.on_ack(t(10), 0, &[seg(3)]);
        let (f, e) = r.on_ack(t(20), 0, &[seg(2), seg(3)]);
        assert_eq!(f.losses, [(0, 0), (MSS, 0)]);
        let notices: Vec<_> = e
            .iter()
            .filter_map(|e| match e {
                Emit::Original { notice } => *notice,
                Emit::Corrected { .. } => None,
            })
            .collect();
        assert_eq!(notices, [(0, 0), (MSS, 0)]);
    }

    #[test]
    fn duplicates_that_are_not_striping_pass_at_once() {
        // Segment 0 never reached the proxy (lost upstream: "No Data").
        let mut r = Rpc::new(RpcMode::Full, 2);
        r.on_forward(t(0), MSS, MSS, 0);
        let (_, e) = r.on_ack(t(50), 0, &[seg(1)]);
        assert_eq!(e, [Emit::Original { notice: None }]);
        // The hole's repair is in flight behind segments sent before it.
        let mut r = forwarded(RpcMode::Full, &[0, 0, 0]);
        r.on_forward(t(10), 0, MSS, 1);
        let (_, e) = r.on_ack(t(50), 0, &[seg(1)]);
        assert_eq!(e, [Emit::Original { notice: None }]);
        // A segment sent before the hole's only copy: not overtaking.
        let mut r = Rpc::new(RpcMode::Full, 2);
        r.on_forward(t(0), MSS, MSS, 0);
        r.on_forward(t(5), 0, MSS, 1);
        let (_, e) = r.on_ack(t(50), 0, &[seg(1)]);
        assert_eq!(e, [Emit::Original { notice: None }]);
    }

    /// A receiver that acknowledges every arrival at once, with up to three
    /// SACK blocks, the first holding the arrival (RFC 2018): its
    /// cumulative point and blocks, in stream offsets.
    fn receiver_ack(held: &std::collections::BTreeSet<u64>, got: u64) -> (u64, Vec<(u64, u64)>) {
        let mut cum = 0;
        while held.contains(&cum) {
            cum += 1;
        }
        let mut blocks: Vec<(u64, u64)> = Vec::new();
        let mut k = cum;
        let max = held.iter().next_back().copied().unwrap_or(0);
        while k <= max {
            if held.contains(&k) {
                let start = k;
                while held.contains(&k) {
                    k += 1;
                }
                blocks.push((start * MSS, k * MSS));
            }
            k += 1;
        }
        let first = blocks
            .iter()
            .position(|&(a, b)| a <= got * MSS && got * MSS < b);
        let head = first.map(|i| blocks[i]);
        let mut out: Vec<(u64, u64)> = head.into_iter().collect();
        out.extend(blocks.iter().rev().filter(|b| Some(**b) != head).take(2));
        (cum * MSS, out)
    }

    proptest::proptest! {
        /// Striping over three links, arrivals in any order that keeps each
        /// link's order, some segments lost: the sender is never told of
        /// bytes the receiver lacks, its cumulative acknowledgments never
        /// go back, and every reported loss is a real one.
        #[test]
        fn what_the_sender_hears_is_true(
            plan in proptest::collection::vec((0u16..3, proptest::bool::weighted(0.05)), 1..80),
            order in proptest::collection::vec(0usize..3, 0..240),
        ) {
            let mut r = Rpc::new(RpcMode::Full, 3);
            for (k, &(link, _)) in plan.iter().enumerate() {
                r.on_forward(t(k as u64), k as u64 * MSS, MSS, link);
            }
            let mut queues: Vec<std::collections::VecDeque<usize>> = vec![Default::default(); 3];
            for (k, &(link, _)) in plan.iter().enumerate() {
                queues[usize::from(link)].push_back(k);
            }
            let mut pick = order.into_iter().chain(std::iter::repeat(0));
            let mut held = std::collections::BTreeSet::new();
            let mut told = 0u64;
            let mut now = 1000;
            while queues.iter().any(|q| !q.is_empty()) {
                let mut l = pick.next().unwrap_or(0) % 3;
                while queues[l].is_empty() {
                    l = (l + 1) % 3;
                }
                let k = queues[l].pop_front().unwrap();
                if plan[k].1 {
                    continue;
                }
                held.insert(k as u64);
                now += 1;
                let (cum, blocks) = receiver_ack(&held, k as u64);
                let (found, emits) = r.on_ack(t(now), cum, &blocks);
                for (lost, _) in found.losses {
                    proptest::prop_assert!(plan[(lost / MSS) as usize].1, "false loss at {}", lost);
                }
                for e in emits {
                    let c = match e {
                        Emit::Original { .. } => cum,
                        Emit::Corrected { cum } => cum,
                    };
                    proptest::prop_assert!(c <= cum && c >= told, "told {} then {} (real {})", told, c, cum);
                    told = c;
                }
            }
            if plan.iter().all(|p| !p.1) {
                proptest::prop_assert_eq!(told, plan.len() as u64 * MSS);
            }
        }
    }
}
