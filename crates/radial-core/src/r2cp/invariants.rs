//! What holds of the engine after every input, whatever its pipes and
//! paths do. Checked with `debug_assert!` after each input in debug builds,
//! and by the property test that drives the engine with random pipe events.
//!
//! - Every bound segment is bound to a pipe that exists and has that request
//!   outstanding; a pipe whose link is down holds none. (A pipe probing a
//!   silent path takes nothing from the others while another works — its
//!   requests are PROBEs or redundant requests that bind nothing — which
//!   `plan::source` decides.)
//! - What is held or requested never exceeds the receive buffer (flow
//!   control by reservation, §3.3.4, §4.3.4); by span, no request reaches
//!   past the read point plus the buffer.
//! - The head of line, unless it arrived or the stream is done, is bound
//!   to a pipe or waits for one: it is never forgotten.
//! - A suspended pipe has nothing outstanding; each pipe's count of bytes
//!   in flight is the sum of its outstanding requests.

use super::{FlowControl, R2cpReceiver};

impl R2cpReceiver {
    /// Checks the invariants; the first that fails, said.
    pub fn check_invariants(&self) -> Result<(), String> {
        for (start, b) in self.sched.bindings() {
            let Some(p) = self.pipe(b.path) else {
                return Err(format!(
                    "segment {start} bound to path {:?}, which has no pipe",
                    b.path
                ));
            };
            if !p.holds_request(b.local) {
                return Err(format!(
                    "segment {start} bound to request {} of path {:?}, which is not outstanding",
                    b.local, b.path
                ));
            }
            if p.suspended() {
                return Err(format!(
                    "segment {start} bound to path {:?}, which is {:?}",
                    b.path,
                    p.state()
                ));
            }
        }
        let (reserved, rwnd) = (self.reserved(), self.config.rwnd_bytes());
        if self.config.flow == FlowControl::Reserve && reserved > rwnd {
            return Err(format!(
                "{reserved} bytes held or requested, past the receive buffer's {rwnd}"
            ));
        }
        let end = self.buffer_end();
        for p in &self.pipes {
            if let Some(e) = p.requested_end().filter(|&e| e > end) {
                return Err(format!(
                    "path {:?} asked up to {e}, past the receive buffer's end {end}",
                    p.path
                ));
            }
            if p.suspended() && p.in_flight() > 0 {
                return Err(format!("suspended path {:?} has requests out", p.path));
            }
            if !p.consistent() {
                return Err(format!("path {:?} miscounts what it has in flight", p.path));
            }
        }
        let hol = self.buffer.next();
        let done = self.delivered_all || self.fin.is_some_and(|f| hol >= f);
        if !done
            && hol < self.sched.frontier()
            && self.sched.binding(hol).is_none()
            && !self.sched.is_pending(hol)
        {
            return Err(format!(
                "the head of line {hol} is neither bound nor pending"
            ));
        }
        Ok(())
    }

    /// In debug builds, panics if an invariant fails.
    pub(super) fn debug_check(&self) {
        #[cfg(debug_assertions)]
        if let Err(e) = self.check_invariants() {
            panic!("R²CP invariant: {e}");
        }
    }
}
