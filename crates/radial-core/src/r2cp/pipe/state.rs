//! Where a pipe's path stands: one state, and the events that move it
//! (docs/protocols.md has the table).
//!
//! | from | event | to |
//! |---|---|---|
//! | (new) | the engine opens the pipe | `Opening` |
//! | `Opening` | SYN+ACK | `Working` |
//! | `Working` | retransmission timeout (or the engine times the pipe out) | `Silent` |
//! | `Silent` | anything arrives, or the engine takes the path as back | `Working` |
//! | `Opening` | the host says the link is down | `Suspended` (not established) |
//! | `Working`, `Silent` | the host says the link is down | `Suspended` (established) |
//! | `Suspended` | the link is up | `Opening` or `Working` |
//! | any | the pipe retires (closed, or a handoff completed) | `Draining` |
//!
//! A pipe whose path the host says is gone (`PathDown`) is removed by the
//! engine from any state, as is a `Draining` pipe with nothing outstanding.
//! Flow control is another axis: a pipe in any state may be frozen for want
//! of receive buffer (`Pipe::frozen`).

/// Where a pipe's path stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathState {
    /// Its SYN is out (or about to be): no requests yet.
    Opening,
    /// Established, and its path answers.
    Working,
    /// Established; its retransmission timer expired and nothing has
    /// arrived since (the path may be blacked out).
    Silent,
    /// The host says its interface has no link: no requests, no timers.
    Suspended {
        /// Whether the pipe had been established.
        established: bool,
    },
    /// Retiring: no new requests; removed once nothing is outstanding.
    Draining {
        /// Whether the pipe had been established.
        established: bool,
    },
}

impl PathState {
    /// True once the handshake completed (in any state since).
    pub fn established(self) -> bool {
        match self {
            PathState::Opening => false,
            PathState::Working | PathState::Silent => true,
            PathState::Suspended { established } | PathState::Draining { established } => {
                established
            }
        }
    }

    /// The SYN+ACK arrived.
    pub(super) fn on_established(self) -> PathState {
        match self {
            PathState::Opening => PathState::Working,
            PathState::Suspended { .. } => PathState::Suspended { established: true },
            PathState::Draining { .. } => PathState::Draining { established: true },
            s => s,
        }
    }

    /// The retransmission timer expired.
    pub(super) fn on_timeout(self) -> PathState {
        match self {
            PathState::Working => PathState::Silent,
            s => s,
        }
    }

    /// Something arrived (or the engine takes the path as back).
    pub(super) fn on_heard(self) -> PathState {
        match self {
            PathState::Silent => PathState::Working,
            s => s,
        }
    }

    /// The host says the link is down.
    pub(super) fn on_link_down(self) -> PathState {
        match self {
            PathState::Opening | PathState::Working | PathState::Silent => PathState::Suspended {
                established: self.established(),
            },
            s => s,
        }
    }

    /// The host says the link is up.
    pub(super) fn on_link_up(self) -> PathState {
        match self {
            PathState::Suspended { established: false } => PathState::Opening,
            PathState::Suspended { established: true } => PathState::Working,
            s => s,
        }
    }

    /// The pipe retires.
    pub(super) fn on_retire(self) -> PathState {
        PathState::Draining {
            established: self.established(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::PathState::*;

    #[test]
    fn the_transitions_are_the_table_s() {
        assert_eq!(Opening.on_established(), Working);
        assert_eq!(Working.on_timeout(), Silent);
        assert_eq!(Silent.on_timeout(), Silent);
        assert_eq!(Silent.on_heard(), Working);
        assert_eq!(Opening.on_heard(), Opening);
        assert_eq!(Opening.on_link_down(), Suspended { established: false });
        assert_eq!(Silent.on_link_down(), Suspended { established: true });
        assert_eq!(Suspended { established: false }.on_link_up(), Opening);
        assert_eq!(Suspended { established: true }.on_link_up(), Working);
        // A SYN+ACK in flight when the link went down still establishes.
        assert_eq!(
            Suspended { established: false }.on_established(),
            Suspended { established: true }
        );
        for s in [Opening, Working, Silent, Suspended { established: true }] {
            let d = s.on_retire();
            assert_eq!(d.established(), s.established());
            // Draining is for good.
            assert_eq!(d.on_link_up().on_heard().on_timeout().on_link_down(), d);
        }
    }
}
