//! The aggregate connection's side of the engine: the receive buffer and
//! flow control (§4.3.4), data arrivals (§4.3.1 `recv()`), what a pipe
//! reports (`loss()`, `established()`), coupled increase, and pipes closing
//! and handing off (§4.3.2, §4.4.1).

use super::{FlowControl, Pipe, PipeReport, R2cpReceiver};
use crate::cc::coupled::{increase_scale, Coupling, SubflowView};
use crate::endpoint::{AppEvent, PathId, PathStats};
use crate::time::Instant;
use crate::wire::rcp::{RcpFlags, RcpHeader};

impl R2cpReceiver {
    /// One past the last byte the receive buffer could hold if everything
    /// from the application's read point on were in it.
    pub(super) fn span_end(&self) -> u64 {
        let consumed = self.buffer.next() - self.buffer.ready_bytes() as u64;
        consumed + self.config.rwnd_bytes()
    }

    /// One past the last byte a request may end at: the span's end when
    /// flow control is by span, anywhere when it is by reservation.
    pub(super) fn buffer_end(&self) -> u64 {
        match self.config.flow {
            FlowControl::Span => self.span_end(),
            FlowControl::Reserve => u64::MAX,
        }
    }

    /// What the receive buffer has committed (§3.3.4's "dummy" buffer per
    /// requested segment): the bytes the application has not read, those
    /// that arrived out of order, and a segment for every request
    /// outstanding or lost and not yet made again (a lost segment keeps its
    /// room: the stream cannot pass it).
    pub(super) fn reserved(&self) -> u64 {
        let held = self.buffer.ready_bytes() as u64 + self.buffer.pending_bytes();
        held + self.sched.reserved_segments() as u64 * self.config.pipe.mss
    }

    /// The room kept for the head of line: a segment while it holds none
    /// (no request for it was ever made), so that the stream can always
    /// move on once the application reads.
    fn kept_for_head(&self) -> u64 {
        let hol = self.buffer.next();
        let unreserved = !self.buffer.holds(hol) && !self.sched.is_reserved(hol);
        if unreserved {
            self.config.pipe.mss
        } else {
            0
        }
    }

    /// Bytes a segment not reserved yet may still reserve (§4.3.4: a pipe
    /// freezes when "the number of outstanding data is equal to the
    /// available buffer space"): for the head of line (`head`), what is
    /// left; for any other, that less the segment kept for the head of
    /// line. Unbounded when flow control is by span.
    pub(super) fn room(&self, head: bool) -> u64 {
        match self.config.flow {
            FlowControl::Span => u64::MAX,
            FlowControl::Reserve => {
                let keep = if head { 0 } else { self.kept_for_head() };
                self.config
                    .rwnd_bytes()
                    .saturating_sub(self.reserved() + keep)
            }
        }
    }

    /// True when `len` bytes at `start` lie within what was ever requested
    /// (below the scheduler's frontier) and within one segment and the
    /// receive buffer: only such data is stored, so whatever a sender sends
    /// the buffer holds at most its size.
    /// The stream's end is `fin`, if this datagram (or an earlier one)
    /// said so: a payload must be a whole segment as the requests cut the
    /// stream (§4.3.1: the receiver requests, and a sender answers, whole
    /// segments; only the stream's last is shorter), requested, and within
    /// the buffer. A sender that answers with part of a segment, or with
    /// bytes astride two, answers no request: its bytes are not stored.
    pub(super) fn asked_for(&self, start: u64, len: usize, fin: Option<u64>) -> bool {
        let end = start.saturating_add(len as u64);
        if !self.sched.is_segment(start, end, fin.or(self.fin)) {
            return false;
        }
        match self.config.flow {
            FlowControl::Span => end <= self.span_end(),
            // A requested segment has its room reserved; another (an
            // answer to a redundant request) is kept if there is room.
            FlowControl::Reserve => {
                let head = start == self.buffer.next();
                self.sched.is_reserved(start) || len as u64 <= self.room(head)
            }
        }
    }

    /// `resume()`: buffer space opened, every frozen pipe may ask again.
    pub(super) fn resume(&mut self) {
        for p in &mut self.pipes {
            if p.frozen {
                p.pace_opening();
            }
            p.frozen = false;
        }
    }

    pub(super) fn report(&mut self, now: Instant, i: usize, r: PipeReport) {
        if r.established {
            // A new pipe tells its sender at once where the connection
            // stands (SEG.DEQ), so a replica joining midway skips what is
            // held already (§4.4.2) and answers with what it has.
            let deq = self.buffer.next();
            self.pipes[i].probe(deq);
            if self.established {
                // Joining a transfer under way: its sender serves the same
                // content, so the pipe asks at once, right behind the PROBE,
                // for what the buffer can take (the sender serves a pull once
                // its application, seeking to SEG.DEQ, has written it). Its
                // first data thus comes one round trip after the handshake.
                let end = self.span_end();
                let p = &mut self.pipes[i];
                p.avail = p.avail.max(end);
            }
            if !self.established {
                // §4.3.2: established when the first pipe is.
                self.established = true;
                if let Some(t) = self.tokens.as_mut() {
                    t.start(now);
                }
                self.events.push_back(AppEvent::Established);
            }
        }
        let path = self.pipes[i].path;
        if !r.lost.is_empty() {
            // A segment went back to pending, below the buffer's end, and one
            // fewer request ranks: a frozen pipe may take it.
            self.resume();
        }
        for start in r.lost {
            let held = self.buffer.holds(start);
            if held {
                self.pipes[i].repaired(start);
            }
            self.sched.loss(start, path, held);
        }
    }

    pub(super) fn on_data(&mut self, now: Instant, i: usize, h: &RcpHeader, payload: &[u8]) {
        let next = self.buffer.next();
        let start = self.pipes[i].offset_of(h.seq, next);
        let fin = h
            .flags
            .contains(RcpFlags::FIN)
            .then(|| self.pipes[i].offset_of(h.deq, next));
        if !payload.is_empty() && !self.asked_for(start, payload.len(), fin) {
            self.stats.unsolicited += 1;
            return;
        }
        let avail = self.pipes[i].avail;
        self.pipes[i].learn(h, next);
        if self.pipes[i].avail > avail {
            self.pipes[i].frozen = false;
        }
        if let Some(f) = self.pipes[i].fin {
            self.fin = Some(self.fin.map_or(f, |g| g.min(f)));
        }
        if !payload.is_empty() {
            self.stats.data_arrivals += 1;
            let held = self.buffer.ready_bytes() as u64 + self.buffer.pending_bytes();
            if 4 * held >= 3 * self.config.rwnd_bytes() {
                self.stats.arrivals_buffer_75 += 1;
            }
            let new = self.buffer.insert(start, payload);
            for p in &mut self.pipes {
                p.repaired(start);
            }
            self.pipes[i].delivered += new;
            self.stats.duplicate_bytes += payload.len() as u64 - new;
            let answered = self.sched.recv(start).is_some();
            self.couple(i);
            let r = self.pipes[i].on_data(now, h.id, start);
            self.report(now, i, r);
            if self.buffer.next() > next {
                self.sched.delivered_to(self.buffer.next());
            }
            if answered || self.buffer.next() > next {
                // The buffer moved on, or one fewer request is outstanding:
                // the rank that froze a pipe may now put its segment inside
                // the buffer (with none outstanding it is the lowest pending
                // one, which always fits), so every frozen pipe asks again.
                self.resume();
            }
        }
        if self.fin.is_some_and(|f| self.buffer.next() >= f) && !self.delivered_all {
            self.delivered_all = true;
            self.events.push_back(AppEvent::Closed);
            let deq = self.buffer.next();
            for p in &mut self.pipes {
                p.close(deq);
            }
        }
    }

    /// The coupled increase (LIA, RFC 6356 §3) of pipe `i`, from every
    /// open pipe's window and smoothed round trip as the receiver measures
    /// them, set before `i` takes an arrival. R²CP's pipes run at the
    /// receiver, so the same equations apply with the receiver's estimates
    /// in place of the sender's.
    pub(super) fn couple(&mut self, i: usize) {
        if self.config.coupling == Coupling::Uncoupled {
            return;
        }
        let views: Vec<SubflowView> = self
            .pipes
            .iter()
            .map(|p| SubflowView {
                cwnd: p.cwnd(),
                rtt: p.srtt(),
                interval: p.delivered_since_loss(),
            })
            .collect();
        let scale = increase_scale(self.config.coupling, &views, i);
        self.pipes[i].set_increase_scale(scale);
    }

    /// Deletes pipe `i` (§4.3.2 `close()`): what it had outstanding goes back
    /// to pending (§4.3.5) and its sender is told with a FIN request.
    pub(super) fn remove_pipe(&mut self, i: usize) {
        let path = self.pipes[i].path;
        let buffer = &self.buffer;
        self.sched.unbind_path(path, |s| buffer.holds(s));
        let mut p = self.pipes.remove(i);
        if let (Some(route), Some(memory)) = (p.route, p.memory()) {
            self.routes.remember(route, memory);
        }
        self.closed_pipes.push(PathStats {
            path,
            delivered: p.delivered,
            cwnd: 0,
            handshake: p.handshake(),
        });
        self.timeouts_closed += p.timeouts;
        self.recoveries_closed += p.recoveries;
        p.close(self.buffer.next());
        self.farewell.extend(p.poll_header().map(|h| (path, h)));
        self.resume();
    }

    /// Carries out the handoffs whose new pipe is ready: the old pipe is
    /// retired (§4.4.1, "close the old pipe once the new one leaves slow
    /// start").
    pub(super) fn check_handoffs(&mut self) {
        let pipes = &self.pipes;
        let ready: Vec<PathId> = self
            .handoffs
            .iter()
            .filter(|(from, to)| {
                let old = pipes.iter().find(|p| p.path == *from);
                let new = pipes.iter().find(|p| p.path == *to);
                match (old, new) {
                    (Some(o), Some(n)) => n.ready_to_take_over(o.in_flight()),
                    // The old pipe is gone already.
                    (None, _) => true,
                    (Some(_), None) => false,
                }
            })
            .map(|(from, _)| *from)
            .collect();
        self.handoffs.retain(|(from, _)| !ready.contains(from));
        for from in ready {
            if let Some(i) = self.index(from) {
                self.pipes[i].retire();
            }
        }
    }

    /// Closes the retiring pipes that have nothing outstanding.
    pub(super) fn retire_drained(&mut self) {
        while let Some(i) = self.pipes.iter().position(Pipe::drained) {
            self.remove_pipe(i);
        }
    }

    pub(super) fn index(&self, path: PathId) -> Option<usize> {
        self.pipes.iter().position(|p| p.path == path)
    }
}
