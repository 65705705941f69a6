//! The engine's rules beyond the R²CP paper, each a named switch.
//!
//! The paper's engine (RCP paper §4.3) ranks each request by when its
//! answer should arrive, re-assigns what a pipe loses, freezes pipes the
//! receive buffer cannot serve and leaves each pipe's congestion control
//! and timers to RCP. Everything the engine does beyond that is one of the
//! rules below: on in `r2cp` ([`Rules::ALL`]), off in `r2cp-paper`
//! ([`Rules::PAPER`]). `radial repro ablation` switches each off alone and
//! shows what it is worth.

/// Which rules beyond the paper the engine applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    /// The rank counts the requests a quicker pipe makes over several of
    /// its round trips while a slower pipe's request travels, at least what
    /// its window could ask for meanwhile, and none of a pipe's requests
    /// overdue past its patience (BLEST's estimate of what the fast subflow
    /// sends meanwhile: Ferlin et al., IFIP Networking 2016). Off: the
    /// paper's one generation of every outstanding request.
    pub look_ahead: bool,
    /// The rank and the head-of-line rules take the round trip a pipe
    /// shows now: its flight over its delivery rate (Little's law), the
    /// wait of its oldest request, its backlog of late answers. Off: its
    /// smoothed round trip (the paper's `RTT_j`).
    pub shown_rtt: bool,
    /// While two pipes or more work, each may have outstanding at most
    /// twice its path's bandwidth-delay product (BBR's `cwnd_gain`:
    /// Cardwell et al., ACM Queue 14(5), 2016) or its rate's share of half
    /// the buffer (MPTCP's proportional share: Raiciu et al., NSDI 2012,
    /// §4.2), its window growing and cut as Linux's does for a sender its
    /// window does not limit.
    pub queue_cap: bool,
    /// Requests leave at Linux's pacing rate (the window per round trip,
    /// ×2 in slow start, ×1.2 after) while a pipe shares the buffer, resumes
    /// a window, or is let ask again with room for more than a few.
    pub pacing: bool,
    /// The head of line, held by a slower pipe while a quicker one is
    /// blocked, or overdue past its holder's patience, is asked of the
    /// quicker pipe too (MPTCP's opportunistic retransmission: Raiciu et
    /// al., NSDI 2012, §4.2). Off: only a pipe's own loss detection
    /// re-assigns a segment (§4.3.5).
    pub reinject: bool,
    /// An overdue head of line re-requested on a quicker pipe is asked of
    /// a second working pipe too, its binding left where it is (redundant
    /// striping of one segment, pTCP §4.1 (3)). Acts with `reinject`.
    pub back_up_head: bool,
    /// A head of line no pipe holds (its request was lost, or its pipe
    /// went) is asked at once by the quickest working pipe, one segment
    /// past its window if need be, as a fast retransmit goes.
    pub take_head: bool,
    /// A pipe whose path stopped answering (its oldest request missed its
    /// turn in the stream of answers, or the pipe has answered nothing
    /// since its oldest request left) while it holds the head of line is
    /// timed out at once, not at its RTO. Acts with `reinject`.
    pub silent_holder: bool,
    /// A pipe whose RTO expired and that has heard nothing since probes
    /// its path (a PROBE, §5.2.2) about once per its shortest round trip
    /// while another pipe works, and takes nothing from the others
    /// (TCP-Probing's probe cycle). Off: it goes on requesting data, its
    /// timer backed off, as RCP does.
    pub probe_silent: bool,
    /// A probing pipe asks for the head of line without taking it from the
    /// pipe that holds it (pTCP §4.1 (3); R²CP §4.4.1 names it for
    /// handoffs). Acts with `probe_silent`.
    pub redundant_striping: bool,
    /// A pipe whose path returns after an outage, or whose link comes back,
    /// resumes the window and slow-start threshold it had, paced (as
    /// Freeze-TCP resumes: Goff et al., INFOCOM 2000). Off: it restarts
    /// from its timeout's loss window, or from its initial window after
    /// a link came back.
    pub resume_window: bool,
    /// When the last working path falls silent while other pipes probe
    /// theirs, it is timed out and every probing pipe is taken as back:
    /// it resumes its window and asks at once.
    pub take_back: bool,
    /// A pipe opening beside a working one sends its SYN every initial RTO
    /// without backoff, and at once when a working path falls silent.
    pub eager_syn: bool,
    /// A new pipe on a route an earlier pipe ran over (the host's interface
    /// back with a new address) starts from that pipe's round-trip
    /// estimator, and once established resumes its window, paced (TCP's
    /// temporal sharing of a control block: RFC 9040 §5, §8). Off: every
    /// pipe starts from the initial RTO and window.
    pub route_memory: bool,
    /// An answer to a request the pipe gave up on (timed out, or deemed
    /// lost) times its path: its id names the request, so the time is
    /// unambiguous, as TCP's timestamps make the acknowledgment of a
    /// retransmission (RFC 7323 §4). Until a request is answered in time
    /// the pipe shows the engine that round trip, so a path that slowed
    /// far past its timeout looks slow; its RTO estimator keeps Karn's
    /// rule (RFC 6298 §3). Off: such answers are not timed.
    pub late_samples: bool,
}

/// One rule: its name, what it does in a line, and its switch.
#[derive(Clone, Copy, Debug)]
pub struct Rule {
    /// The rule's name (as on the ablation page).
    pub name: &'static str,
    /// What it does, in a line.
    pub about: &'static str,
    /// Its switch in [`Rules`].
    pub switch: fn(&mut Rules) -> &mut bool,
}

impl Rules {
    /// Every rule on: the engine of `r2cp`.
    pub const ALL: Rules = Rules {
        look_ahead: true,
        shown_rtt: true,
        queue_cap: true,
        pacing: true,
        reinject: true,
        back_up_head: true,
        take_head: true,
        silent_holder: true,
        probe_silent: true,
        redundant_striping: true,
        resume_window: true,
        take_back: true,
        eager_syn: true,
        route_memory: true,
        late_samples: true,
    };

    /// Every rule off: the paper's engine (`r2cp-paper`).
    pub const PAPER: Rules = Rules {
        look_ahead: false,
        shown_rtt: false,
        queue_cap: false,
        pacing: false,
        reinject: false,
        back_up_head: false,
        take_head: false,
        silent_holder: false,
        probe_silent: false,
        redundant_striping: false,
        resume_window: false,
        take_back: false,
        eager_syn: false,
        route_memory: false,
        late_samples: false,
    };

    /// Every rule, in the order the documentation lists them.
    pub const LIST: [Rule; 15] = [
        Rule {
            name: "look_ahead",
            about:
                "the rank counts a quicker pipe's requests over several of its round trips (BLEST)",
            switch: |r| &mut r.look_ahead,
        },
        Rule {
            name: "shown_rtt",
            about: "decisions take the round trip a pipe shows now, not its smoothed RTT",
            switch: |r| &mut r.shown_rtt,
        },
        Rule {
            name: "queue_cap",
            about: "each pipe holds at most 2 × its BDP or its rate's share of half the buffer",
            switch: |r| &mut r.queue_cap,
        },
        Rule {
            name: "pacing",
            about: "requests leave at Linux's pacing rate while pipes share the buffer",
            switch: |r| &mut r.pacing,
        },
        Rule {
            name: "reinject",
            about: "a quicker pipe asks for the head of line a slower one holds (MPTCP)",
            switch: |r| &mut r.reinject,
        },
        Rule {
            name: "back_up_head",
            about: "an overdue head of line is asked of a second working pipe too",
            switch: |r| &mut r.back_up_head,
        },
        Rule {
            name: "take_head",
            about: "a head of line no pipe holds is asked at once by the quickest pipe",
            switch: |r| &mut r.take_head,
        },
        Rule {
            name: "silent_holder",
            about: "a holder whose path stopped answering is timed out at once",
            switch: |r| &mut r.silent_holder,
        },
        Rule {
            name: "probe_silent",
            about: "a timed-out pipe probes its path instead of taking data",
            switch: |r| &mut r.probe_silent,
        },
        Rule {
            name: "redundant_striping",
            about: "a probing pipe asks for the head of line without taking it (pTCP)",
            switch: |r| &mut r.redundant_striping,
        },
        Rule {
            name: "resume_window",
            about: "a path back from an outage resumes its window, paced (Freeze-TCP)",
            switch: |r| &mut r.resume_window,
        },
        Rule {
            name: "take_back",
            about: "when the last working path falls silent, probing pipes are taken as back",
            switch: |r| &mut r.take_back,
        },
        Rule {
            name: "eager_syn",
            about: "SYNs beside a working pipe are not backed off, and go at once on its silence",
            switch: |r| &mut r.eager_syn,
        },
        Rule {
            name: "route_memory",
            about:
                "a new pipe on an earlier pipe's route starts from its RTT and window (RFC 9040)",
            switch: |r| &mut r.route_memory,
        },
        Rule {
            name: "late_samples",
            about: "an answer to a request given up on still times the path (RFC 7323)",
            switch: |r| &mut r.late_samples,
        },
    ];

    /// Every rule on but the one named `name`; `None` for an unknown name.
    pub fn without(name: &str) -> Option<Rules> {
        let rule = Self::LIST.iter().find(|r| r.name == name)?;
        let mut rules = Rules::ALL;
        *(rule.switch)(&mut rules) = false;
        Some(rules)
    }

    /// The names of the rules that are on.
    pub fn on(&self) -> Vec<&'static str> {
        let mut copy = *self;
        Self::LIST
            .iter()
            .filter(|r| *(r.switch)(&mut copy))
            .map(|r| r.name)
            .collect()
    }
}

impl Default for Rules {
    fn default() -> Self {
        Rules::ALL
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_names_every_switch_once() {
        let mut names: Vec<&str> = Rules::LIST.iter().map(|r| r.name).collect();
        assert_eq!(Rules::ALL.on(), names);
        assert!(Rules::PAPER.on().is_empty());
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Rules::LIST.len());
        // Each switch is its own field: turning one off leaves the others.
        for r in &Rules::LIST {
            let w = Rules::without(r.name).unwrap();
            assert_eq!(w.on().len(), Rules::LIST.len() - 1, "{}", r.name);
            assert!(!w.on().contains(&r.name));
        }
        assert_eq!(Rules::without("nonsense"), None);
    }
}
