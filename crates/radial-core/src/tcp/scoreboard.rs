//! The SACK scoreboard of ns-2's `Agent/TCP/Sack1` (`ScoreBoardRQ`): the
//! blocks the receiver reported above the cumulative acknowledgment, and a
//! retransmission pointer that walks the holes below the highest SACKed byte
//! once per recovery episode.

/// SACKed byte ranges above the cumulative acknowledgment.
#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    /// Disjoint, sorted, merged `[start, end)` ranges.
    blocks: Vec<(u64, u64)>,
    /// Next byte the retransmission walk may resend (ns-2 `h_seqno_`).
    next_retran: u64,
    sacked: u64,
}

impl Scoreboard {
    /// An empty scoreboard.
    pub fn new() -> Self {
        Self::default()
    }

    /// Forgets everything (ns-2 `ClearScoreBoard`).
    pub fn clear(&mut self) {
        self.blocks.clear();
        self.next_retran = 0;
        self.sacked = 0;
    }

    /// Records the cumulative point `ack` and the SACK blocks of one
    /// acknowledgment. Returns true if the scoreboard changed (ns-2
    /// `CheckUpdate`: only such duplicate ACKs count).
    pub fn update(&mut self, ack: u64, blocks: impl Iterator<Item = (u64, u64)>) -> bool {
        let before = (self.sacked, self.blocks.first().map(|b| b.0));
        self.blocks.retain_mut(|b| {
            b.0 = b.0.max(ack);
            b.1 > b.0
        });
        for (s, e) in blocks {
            let s = s.max(ack);
            if e > s {
                self.insert(s, e);
            }
        }
        self.sacked = self.blocks.iter().map(|b| b.1 - b.0).sum();
        (self.sacked, self.blocks.first().map(|b| b.0)) != before
    }

    fn insert(&mut self, s: u64, e: u64) {
        let i = self.blocks.partition_point(|b| b.1 < s);
        let mut j = i;
        let (mut ns, mut ne) = (s, e);
        while j < self.blocks.len() && self.blocks[j].0 <= e {
            ns = ns.min(self.blocks[j].0);
            ne = ne.max(self.blocks[j].1);
            j += 1;
        }
        self.blocks.splice(i..j, [(ns, ne)]);
    }

    /// The next hole to retransmit at or after the walk pointer and `ack`, as
    /// `(start, length limit)`, if a SACKed block lies above it (ns-2
    /// `GetNextRetran`).
    pub fn next_retransmission(&self, ack: u64) -> Option<(u64, u64)> {
        let mut x = self.next_retran.max(ack);
        for &(s, e) in &self.blocks {
            if x < s {
                return Some((x, s - x));
            }
            if x <= e {
                x = e;
            }
        }
        None
    }

    /// A retransmission of `[start, end)` was sent: the walk moves past it
    /// (ns-2 `MarkRetran`).
    pub fn mark_retransmitted(&mut self, end: u64) {
        self.next_retran = self.next_retran.max(end);
    }

    /// Bytes SACKed.
    pub fn sacked_bytes(&self) -> u64 {
        self.sacked
    }

    /// True when `[start, end)` is wholly SACKed.
    pub fn is_sacked(&self, start: u64, end: u64) -> bool {
        self.blocks.iter().any(|&(s, e)| s <= start && end <= e)
    }

    /// One past the highest byte SACKed, if any is.
    pub fn highest(&self) -> Option<u64> {
        self.blocks.last().map(|b| b.1)
    }

    /// True when nothing is SACKed.
    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_holes_below_the_highest_block_once() {
        let mut sb = Scoreboard::new();
        // Segments of 10 bytes; 0 and 20 lost, 10 and 30..50 SACKed.
        assert!(sb.update(0, [(10, 20)].into_iter()));
        assert!(sb.update(0, [(30, 50), (10, 20)].into_iter()));
        assert!(!sb.update(0, [(30, 50)].into_iter()), "no new information");
        assert_eq!(sb.next_retransmission(0), Some((0, 10)));
        sb.mark_retransmitted(10);
        assert_eq!(sb.next_retransmission(0), Some((20, 10)));
        sb.mark_retransmitted(30);
        assert_eq!(
            sb.next_retransmission(0),
            None,
            "nothing above 50 is SACKed"
        );
        assert_eq!(sb.sacked_bytes(), 30);
    }

    #[test]
    fn cumulative_ack_trims_blocks() {
        let mut sb = Scoreboard::new();
        sb.update(0, [(10, 20), (30, 40)].into_iter());
        sb.update(25, std::iter::empty());
        assert_eq!(sb.sacked_bytes(), 10);
        assert!(sb.is_sacked(30, 40));
        assert_eq!(sb.next_retransmission(25), Some((25, 5)));
    }
}
