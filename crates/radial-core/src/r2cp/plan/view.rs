//! What the planner sees of a pipe: a few numbers the engine reads off it
//! at the moment of a decision, under the engine's rules.

use crate::endpoint::PathId;
use crate::time::{Duration, Instant};

/// One pipe, as the planner sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PipeView {
    /// Its index among the engine's pipes.
    pub index: usize,
    /// Its path.
    pub path: PathId,
    /// It can be counted on (it works).
    pub live: bool,
    /// It probes a path that fell silent.
    pub probing: bool,
    /// Frozen for want of receive buffer.
    pub frozen: bool,
    /// The round trip it counts with: what it shows now (rule
    /// `shown_rtt`), or its smoothed round trip.
    pub rtt: Duration,
    /// How long the engine waits for one of its requests.
    pub patience: Duration,
    /// What it may have outstanding, and what it has.
    pub window: u64,
    /// Bytes outstanding.
    pub in_flight: u64,
    /// Its requests are paced.
    pub paced: bool,
    /// Its window is full but its next answer, due soon, opens a slot.
    pub slot_at_next_answer: bool,
}

/// The pipe holding the head of line, and when it should bring it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Holder {
    /// The holder.
    pub pipe: PipeView,
    /// When its request for the head of line left.
    pub sent_at: Instant,
    /// When its path counts as silent under that request, if known (rule
    /// `silent_holder`: the request missed its turn in the stream of
    /// answers, or the pipe answered nothing since its oldest request
    /// left).
    pub silent_at: Option<Instant>,
    /// Whether it has answered nothing sent then or later for its slack.
    pub fell_silent: bool,
    /// When, at the pace it answers now, it should bring the head of line.
    pub expected: Option<Instant>,
}
