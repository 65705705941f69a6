//! The engine's decisions, as pure functions of what the pipes show.
//!
//! The engine (the shell, `r2cp/mod.rs` and `asking.rs`) reads each pipe
//! into a [`view::PipeView`] at the moment of a decision, asks a function
//! here what to do, and applies the answer: it binds segments in the
//! scheduler, sends requests, halves windows, times pipes out. Each rule
//! beyond the paper ([`crate::r2cp::Rules`]) is decided in one place here
//! and tested on hand-made views (`tests.rs`): in a view in which it acts,
//! and in the same view with its switch off, in which it does not.
//!
//! - `source`: where a pipe that may request gets its segment (the rank,
//!   or, for a pipe probing a silent path, a PROBE or the head of line
//!   redundantly);
//! - [`head`]: the head of line taken from a pipe that holds it up;
//! - [`rank`]: how the rank counts another pipe's requests;
//! - [`caps`]: how much each pipe may have outstanding;
//! - [`silence`]: a working path falling silent.

pub mod caps;
pub mod head;
pub mod rank;
pub mod silence;
pub mod view;

#[cfg(test)]
mod tests;

use crate::r2cp::Rules;
use view::PipeView;

/// Where a pipe that may request gets its segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The rank's segment (§4.3.1), or the lowest pending one (`r2cp-s`).
    Ranked,
    /// The head of line, without taking it from the pipe that holds it
    /// (rule `redundant_striping`).
    Redundant,
    /// Nothing: a PROBE of its silent path.
    Probe,
}

/// Where pipe `p`'s next request comes from: while another pipe works, a
/// pipe probing a path that fell silent takes nothing from the others
/// (rule `probe_silent`): a PROBE, or with redundant striping the head of
/// line the others ask for too. Only the last working path asks for data
/// on its own.
pub fn source(rules: Rules, p: &PipeView, others_live: bool) -> Source {
    if !(p.probing && others_live) {
        Source::Ranked
    } else if rules.redundant_striping {
        Source::Redundant
    } else {
        Source::Probe
    }
}

/// Whether a pipe that may not request now (its window full, or its pace
/// holding it back) may still ask for the head of line, one segment past
/// its window as a fast retransmit goes: it works, is not frozen, and its
/// next answer is not about to open a slot. A request past a window that is
/// just full while answers keep coming arrives right behind the window's
/// last request at a queue the window keeps full, and a drop-tail queue
/// drops it; the next answer opens a slot, and the head of line takes it.
pub fn past_window(live: bool, frozen: bool, slot_at_next_answer: bool) -> bool {
    live && !frozen && !slot_at_next_answer
}
