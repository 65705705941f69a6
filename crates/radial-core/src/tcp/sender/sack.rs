//! SACK loss recovery, ns-2.35's `Agent/TCP/Sack1`: a duplicate ACK counts
//! only if it changes the scoreboard; at the threshold the sender enters
//! recovery with ns-2's pipe estimate and resends every hole below the
//! highest SACKed byte once per episode.

use super::*;

impl TcpSender {
    /// ns-2 `Sack1TcpAgent::recv`.
    pub(super) fn on_ack_sack(&mut self, now: Instant, ack: u64, sack: &[(u64, u64)]) {
        self.measure_reordering(ack, sack);
        if !self.fast_recovery {
            if ack > self.last_ack {
                let acked = ack - self.last_ack;
                self.new_ack(now, ack);
                self.cc.on_ack(now, acked);
                self.after_timeout = false;
                self.scoreboard.clear();
            } else if ack == self.last_ack && !self.after_timeout {
                let changed = self
                    .scoreboard
                    .update(self.highest_ack, sack.iter().copied());
                if changed {
                    self.dupacks += 1;
                    if self.dupacks == self.dupthresh() {
                        self.sack_dupack_action(now);
                    } else if self.dupacks < self.dupthresh() {
                        self.send_one(now);
                    }
                }
            }
            // ns-2 sends after every ACK (aggressive_maxburst_) when no
            // duplicate ACKs are pending.
            if self.dupacks == 0 {
                self.send_much(now, self.config.max_burst);
            }
        } else {
            self.pipe -= 1;
            if self.recover.is_some_and(|r| ack >= r) {
                // Full acknowledgment: recovery ends; no window growth on
                // this ACK (ns-2 calls newack, not opencwnd).
                self.recover = None;
                self.fast_recovery = false;
                self.new_ack(now, ack);
                self.after_timeout = false;
                self.scoreboard.clear();
            } else if ack > self.highest_ack {
                // Partial acknowledgment: highest_ack moves, last_ack stays.
                self.highest_ack = ack;
                self.buffer.ack_to(ack);
                self.scoreboard.update(ack, sack.iter().copied());
                self.pipe -= 1;
                self.new_timer(now, ack);
                self.rtt.reset_backoff();
            } else if !self.after_timeout {
                let changed = self
                    .scoreboard
                    .update(self.highest_ack, sack.iter().copied());
                if changed && self.dupacks > 0 {
                    self.dupacks += 1;
                }
            }
            self.send_much(now, self.config.max_burst);
        }
    }

    /// ns-2 `Sack1TcpAgent::dupack_action`.
    fn sack_dupack_action(&mut self, now: Instant) {
        if !self.may_fast_retransmit() {
            return;
        }
        let mss = self.mss();
        self.recover = Some(self.max_seq);
        self.pipe = ((self.max_seq - self.highest_ack) / mss) as i64 - i64::from(self.dupthresh());
        self.restart_timer(now, false);
        self.fast_recovery = true;
        self.last_action = LastAction::DupAck;
        self.stats.fast_recoveries += 1;
        self.prism.notice_recovery = false;
        self.loss_response(now, LossCause::Congestion);
        let x = self.last_ack;
        self.scoreboard.mark_retransmitted(x + self.segment_len(x));
        self.output(now, x);
    }
}
