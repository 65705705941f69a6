//! The WWAN link-state table and the schedulers that pick a link for each
//! data packet: ADAS (PRISM §IV) and the comparison schedulers of §VIII-C.

use crate::time::Duration;

/// How the proxy picks a link for a data packet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Scheduler {
    /// ADAS, Algorithm 1: retransmissions on the link with the least
    /// expected arrival time (Rule 1); new packets on the link with the
    /// least normalised number of in-flight packets `⌊N_i / W_i⌋` (Rule 2),
    /// ties broken by the least expected arrival time (Rule 3); link weights
    /// adjusted AIMD-like on RPC's loss reports (§IV-B.3).
    #[default]
    Adas,
    /// Weighted round robin: each link in turn takes as many consecutive
    /// packets as its weight.
    Wrr,
    /// Round robin: one packet per link in turn.
    RoundRobin,
    /// A link drawn uniformly at random.
    Random,
    /// The least expected arrival time only (§IV-B.2's "hRTT only").
    HrttOnly,
    /// The least `N_i / W_i` without flooring, ties to the lower index
    /// (§IV-B.2's "NIP only").
    NipOnly,
}

impl Scheduler {
    /// Every scheduler, in the order of the documentation.
    pub const ALL: [Scheduler; 6] = [
        Scheduler::Adas,
        Scheduler::Wrr,
        Scheduler::RoundRobin,
        Scheduler::Random,
        Scheduler::HrttOnly,
        Scheduler::NipOnly,
    ];

    /// Name as in scenario files.
    pub fn name(self) -> &'static str {
        match self {
            Scheduler::Adas => "adas",
            Scheduler::Wrr => "wrr",
            Scheduler::RoundRobin => "rr",
            Scheduler::Random => "random",
            Scheduler::HrttOnly => "hrtt",
            Scheduler::NipOnly => "nip",
        }
    }

    /// The scheduler called `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        Scheduler::ALL.into_iter().find(|s| s.name() == name)
    }

    /// True for the schedulers that follow the link weights RPC's loss
    /// reports adjust.
    fn uses_dynamic_weights(self) -> bool {
        matches!(self, Scheduler::Adas | Scheduler::NipOnly)
    }
}

/// One row of the link-state table (PRISM Figure 2: NIP_i, hRTT_i, W_i,
/// N_i).
#[derive(Clone, Debug)]
struct Link {
    /// The member is in the community and the link carries packets.
    active: bool,
    /// Nominal bandwidth in bit/s, given when the member joins.
    bandwidth: f64,
    /// The weight the member joined with (𝕎_i).
    base_weight: f64,
    /// The current weight W_i.
    weight: f64,
    /// Packets in flight N_i.
    in_flight: u32,
    /// Smoothed round trip from the proxy to the receiver over this link.
    srtt: Option<Duration>,
    /// Packets sent on this link.
    sent: u64,
}

impl Link {
    /// Expected arrival time: half the smoothed round trip; a link never
    /// measured counts as the fastest.
    fn hrtt(&self) -> Duration {
        self.srtt.map_or(Duration::ZERO, |s| s.div(2))
    }

    /// `N_i / W_i`.
    fn load(&self) -> f64 {
        f64::from(self.in_flight) / self.weight
    }
}

/// The proxy's table of its WWAN links and the scheduler over them.
#[derive(Clone, Debug)]
pub struct LinkTable {
    scheduler: Scheduler,
    links: Vec<Link>,
    /// Round robin's next link.
    rr_next: usize,
    /// Weighted round robin's current link and the packets it still takes
    /// this round.
    wrr: (usize, u32),
    /// The random scheduler's state (xorshift64*).
    rng: u64,
}

impl LinkTable {
    /// A table of links with these nominal bandwidths (bit/s), all inactive.
    ///
    /// A link's weight is its bandwidth over the slowest link's. The paper
    /// divides by "the least common denominator/factor of all links'
    /// bandwidths" (§IV-B.1), which is the same for its examples (1800 and
    /// 600 kbit/s: 3 and 1) but for arbitrary rates is a tiny common factor
    /// (10 kbit/s for 670, 2090 and 1930 kbit/s): every weight would be in
    /// the tens or hundreds, every `⌊N_i / W_i⌋` zero, and ADAS no more than
    /// its Rule 3.
    pub fn new(scheduler: Scheduler, bandwidths: &[f64], seed: u64) -> Self {
        let slowest = bandwidths
            .iter()
            .copied()
            .filter(|b| *b > 0.0)
            .fold(f64::INFINITY, f64::min);
        let links = bandwidths
            .iter()
            .map(|&b| {
                let w = if slowest.is_finite() && b > 0.0 {
                    b / slowest
                } else {
                    1.0
                };
                Link {
                    active: false,
                    bandwidth: b.max(0.0),
                    base_weight: w,
                    weight: w,
                    in_flight: 0,
                    srtt: None,
                    sent: 0,
                }
            })
            .collect();
        LinkTable {
            scheduler,
            links,
            rr_next: 0,
            wrr: (0, 0),
            rng: seed | 1,
        }
    }

    /// Number of links (active or not).
    pub fn len(&self) -> usize {
        self.links.len()
    }

    /// True when the table has no links.
    pub fn is_empty(&self) -> bool {
        self.links.is_empty()
    }

    /// The member of link `i` joins (or its link is back).
    pub fn activate(&mut self, i: usize) {
        if let Some(l) = self.links.get_mut(i) {
            l.active = true;
        }
    }

    /// The member of link `i` leaves (or its link is gone).
    pub fn deactivate(&mut self, i: usize) {
        if let Some(l) = self.links.get_mut(i) {
            l.active = false;
        }
    }

    /// True when link `i` is in use.
    pub fn is_active(&self, i: usize) -> bool {
        self.links.get(i).is_some_and(|l| l.active)
    }

    /// Packets in flight on link `i`.
    pub fn in_flight(&self, i: usize) -> u32 {
        self.links[i].in_flight
    }

    /// Link `i`'s current weight.
    pub fn weight(&self, i: usize) -> f64 {
        self.links[i].weight
    }

    /// Packets sent on link `i`.
    pub fn sent(&self, i: usize) -> u64 {
        self.links[i].sent
    }

    /// Link `i`'s expected arrival time.
    pub fn hrtt(&self, i: usize) -> Duration {
        self.links[i].hrtt()
    }

    /// The share of its window a sender keeps when link `i` is congested
    /// (PRISM §VI-B.1): `p = 1 − B_i / (2 Σ B_j)` over the active links.
    pub fn keep_share(&self, i: usize) -> f64 {
        let total: f64 = self
            .links
            .iter()
            .enumerate()
            .filter(|(j, l)| l.active || *j == i)
            .map(|(_, l)| l.bandwidth)
            .sum();
        if total <= 0.0 {
            return 0.5;
        }
        1.0 - self.links[i].bandwidth / (2.0 * total)
    }

    fn active(&self) -> impl Iterator<Item = (usize, &Link)> {
        self.links.iter().enumerate().filter(|(_, l)| l.active)
    }

    /// The active link with the least expected arrival time among those
    /// `keep` accepts, ties to the lower index.
    fn fastest_where(&self, keep: impl Fn(usize, &Link) -> bool) -> Option<usize> {
        self.active()
            .filter(|(i, l)| keep(*i, l))
            .min_by_key(|(i, l)| (l.hrtt(), *i))
            .map(|(i, _)| i)
    }

    /// The link for a retransmission (ADAS Rule 1: the least expected
    /// arrival time), or for a control segment.
    pub fn fastest(&self) -> Option<usize> {
        self.fastest_where(|_, _| true)
    }

    /// The link for a retransmission: ADAS's Rule 1 (the least expected
    /// arrival time); the other schedulers treat it as any packet.
    pub fn pick_retransmission(&mut self) -> Option<usize> {
        match self.scheduler {
            Scheduler::Adas => self.fastest(),
            _ => self.pick(),
        }
    }

    /// The link for a new data packet, by the table's scheduler; `None`
    /// when no link is active. The caller records the send with
    /// [`LinkTable::on_send`].
    pub fn pick(&mut self) -> Option<usize> {
        match self.scheduler {
            Scheduler::Adas => {
                // Rule 2: the least ⌊N_i / W_i⌋; Rule 3 among equals: the
                // least hRTT.
                let least = self.active().map(|(_, l)| l.load().floor() as u64).min()?;
                self.fastest_where(|_, l| l.load().floor() as u64 == least)
            }
            Scheduler::NipOnly => self
                .active()
                .min_by(|(i, a), (j, b)| a.load().total_cmp(&b.load()).then(i.cmp(j)))
                .map(|(i, _)| i),
            Scheduler::HrttOnly => self.fastest(),
            Scheduler::RoundRobin => {
                let i = self.next_active_from(self.rr_next)?;
                self.rr_next = i + 1;
                Some(i)
            }
            Scheduler::Wrr => {
                let (current, left) = self.wrr;
                if left > 0 && self.is_active(current) {
                    self.wrr = (current, left - 1);
                    return Some(current);
                }
                let next = self.next_active_from(current + 1)?;
                let quantum = (self.links[next].base_weight.round() as u32).max(1);
                self.wrr = (next, quantum - 1);
                Some(next)
            }
            Scheduler::Random => {
                let active: Vec<usize> = self.active().map(|(i, _)| i).collect();
                if active.is_empty() {
                    return None;
                }
                let r = self.next_random();
                Some(active[(r % active.len() as u64) as usize])
            }
        }
    }

    /// The first active link at or after `from`, cyclically.
    fn next_active_from(&self, from: usize) -> Option<usize> {
        let n = self.links.len();
        (0..n)
            .map(|k| (from + k) % n)
            .find(|&i| self.links[i].active)
    }

    fn next_random(&mut self) -> u64 {
        let mut x = self.rng;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.rng = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A packet went out on link `i`.
    pub fn on_send(&mut self, i: usize) {
        let l = &mut self.links[i];
        l.in_flight += 1;
        l.sent += 1;
    }

    /// A packet sent on link `i` left it without arriving (lost, or sent
    /// again elsewhere before it was heard of).
    pub fn on_gone(&mut self, i: usize) {
        if let Some(l) = self.links.get_mut(i) {
            l.in_flight = l.in_flight.saturating_sub(1);
        }
    }

    /// A packet sent on link `i` arrived, `rtt` after the proxy sent it
    /// (`None` for a retransmission, Karn); RPC identified it from an
    /// acknowledgment. The weight grows by `1 / W_i` up to the weight the
    /// member joined with (§IV-B.3 (ii)).
    pub fn on_arrival(&mut self, i: usize, rtt: Option<Duration>) {
        let dynamic = self.scheduler.uses_dynamic_weights();
        let Some(l) = self.links.get_mut(i) else {
            return;
        };
        l.in_flight = l.in_flight.saturating_sub(1);
        if let Some(rtt) = rtt {
            l.srtt = Some(match l.srtt {
                None => rtt,
                Some(s) => (s.saturating_mul(7) + rtt).div(8),
            });
        }
        if dynamic {
            l.weight = (l.weight + 1.0 / l.weight).min(l.base_weight);
        }
    }

    /// RPC detected a loss on link `i`: its weight halves, to no less than
    /// one (§IV-B.3 (i)).
    pub fn on_loss(&mut self, i: usize) {
        if let Some(l) = self
            .links
            .get_mut(i)
            .filter(|_| self.scheduler.uses_dynamic_weights())
        {
            l.weight = (l.weight / 2.0).max(1.0_f64.min(l.base_weight));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(s: Scheduler, bw: &[f64]) -> LinkTable {
        let mut t = LinkTable::new(s, bw, 7);
        for i in 0..bw.len() {
            t.activate(i);
        }
        t
    }

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn rule_2_fills_links_in_proportion_to_their_weights() {
        // Weights 3 : 1 (1800 and 600 kbit/s), nothing acknowledged: the
        // floor of N/W keeps the fast link's NIP at 0 for three packets.
        let mut t = table(Scheduler::Adas, &[1.8e6, 0.6e6]);
        t.on_arrival(0, Some(ms(100)));
        t.on_arrival(1, Some(ms(100)));
        let picks: Vec<usize> = (0..8)
            .map(|_| {
                let i = t.pick().unwrap();
                t.on_send(i);
                i
            })
            .collect();
        assert_eq!(picks, [0, 0, 0, 1, 0, 0, 0, 1]);
    }

    #[test]
    fn rule_3_breaks_ties_by_expected_arrival() {
        let mut t = table(Scheduler::Adas, &[1e6, 1e6]);
        t.on_arrival(0, Some(ms(400)));
        t.on_arrival(1, Some(ms(200)));
        // Equal NIP: the link that delivers sooner.
        assert_eq!(t.pick(), Some(1));
        t.on_send(1);
        // NIP of link 1 is now 1: link 0 despite its longer delay (Rule 2).
        assert_eq!(t.pick(), Some(0));
    }

    #[test]
    fn rule_1_sends_retransmissions_on_the_fastest_link() {
        let mut t = table(Scheduler::Adas, &[1e6, 1e6, 1e6]);
        t.on_arrival(0, Some(ms(300)));
        t.on_arrival(1, Some(ms(100)));
        t.on_arrival(2, Some(ms(200)));
        for _ in 0..5 {
            t.on_send(1);
        }
        assert_eq!(t.fastest(), Some(1));
        assert_ne!(t.pick(), Some(1));
    }

    #[test]
    fn weights_are_bandwidths_over_the_slowest_links() {
        let t = table(Scheduler::Adas, &[2.1e6, 1.4e6, 0.7e6]);
        assert_eq!([t.weight(0), t.weight(1), t.weight(2)], [3.0, 2.0, 1.0]);
        let t = table(Scheduler::Adas, &[1.8e6, 0.6e6]);
        assert_eq!([t.weight(0), t.weight(1)], [3.0, 1.0]);
    }

    #[test]
    fn a_loss_halves_the_weight_and_acknowledgments_restore_it() {
        let mut t = table(Scheduler::Adas, &[4e6, 1e6]);
        assert_eq!(t.weight(0), 4.0);
        t.on_loss(0);
        assert_eq!(t.weight(0), 2.0);
        t.on_loss(0);
        t.on_loss(0);
        assert_eq!(t.weight(0), 1.0, "never below one");
        // +1/W per acknowledged packet: 1 → 2 → 2.5 → ... capped at 4.
        t.on_arrival(0, Some(ms(100)));
        assert_eq!(t.weight(0), 2.0);
        t.on_arrival(0, Some(ms(100)));
        assert_eq!(t.weight(0), 2.5);
        for _ in 0..50 {
            t.on_arrival(0, Some(ms(100)));
        }
        assert_eq!(t.weight(0), 4.0);
    }

    #[test]
    fn round_robins_cycle_and_skip_inactive_links() {
        let mut rr = table(Scheduler::RoundRobin, &[1e6, 2e6, 3e6]);
        rr.deactivate(1);
        let picks: Vec<_> = (0..4).map(|_| rr.pick().unwrap()).collect();
        assert_eq!(picks, [0, 2, 0, 2]);
        let mut wrr = table(Scheduler::Wrr, &[1e6, 2e6]);
        let picks: Vec<_> = (0..6).map(|_| wrr.pick().unwrap()).collect();
        assert_eq!(picks, [1, 1, 0, 1, 1, 0]);
    }

    #[test]
    fn hrtt_only_ignores_load_and_nip_only_ignores_delay() {
        let mut h = table(Scheduler::HrttOnly, &[1e6, 1e6]);
        h.on_arrival(0, Some(ms(100)));
        h.on_arrival(1, Some(ms(300)));
        for _ in 0..10 {
            assert_eq!(h.pick(), Some(0));
            h.on_send(0);
        }
        let mut n = table(Scheduler::NipOnly, &[1e6, 1e6]);
        n.on_arrival(0, Some(ms(300)));
        n.on_arrival(1, Some(ms(100)));
        assert_eq!(n.pick(), Some(0), "ties go to the lower index");
    }

    #[test]
    fn random_draws_every_active_link_and_no_inactive_one() {
        let mut t = table(Scheduler::Random, &[1e6; 4]);
        t.deactivate(2);
        let mut seen = [0u32; 4];
        for _ in 0..400 {
            seen[t.pick().unwrap()] += 1;
        }
        assert_eq!(seen[2], 0);
        assert!(seen.iter().enumerate().all(|(i, &n)| i == 2 || n > 80));
    }

    #[test]
    fn the_kept_share_follows_the_congested_links_bandwidth() {
        let t = table(Scheduler::Adas, &[1.8e6, 0.6e6]);
        assert!((t.keep_share(0) - (1.0 - 1.8 / 4.8)).abs() < 1e-12);
        assert!((t.keep_share(1) - (1.0 - 0.6 / 4.8)).abs() < 1e-12);
        // One link alone: TCP's halving.
        let one = table(Scheduler::Adas, &[1e6]);
        assert_eq!(one.keep_share(0), 0.5);
    }

    #[test]
    fn no_active_link_no_pick() {
        let mut t = LinkTable::new(Scheduler::Adas, &[1e6, 1e6], 1);
        for s in Scheduler::ALL {
            t.scheduler = s;
            assert_eq!(t.pick(), None, "{}", s.name());
        }
        assert_eq!(t.fastest(), None);
    }
}
