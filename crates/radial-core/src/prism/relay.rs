//! A community member's part: decapsulate what the proxy sent over the
//! member's WWAN link and pass it to the receiver over the WLAN (PRISM §II-B,
//! GRE indirection).

use super::Outbox;
use crate::endpoint::{AppEvent, Endpoint, EndpointStats, HostEvent, PathId};
use crate::time::Instant;

/// Forwards every datagram from path 0 (the proxy) to path 1 (the
/// receiver), and anything from path 1 back to path 0.
#[derive(Debug, Default)]
pub struct Relay {
    outbox: Outbox,
}

impl Relay {
    /// A relay with nothing queued.
    pub fn new() -> Self {
        Relay::default()
    }
}

impl Endpoint for Relay {
    fn handle_datagram(&mut self, _now: Instant, path: PathId, datagram: &[u8]) {
        let out = if path == PathId(0) {
            PathId(1)
        } else {
            PathId(0)
        };
        self.outbox.push(out, datagram.to_vec());
    }

    fn handle_event(&mut self, _now: Instant, _event: HostEvent) {}

    super::network_element!();

    fn stats(&self) -> EndpointStats {
        EndpointStats {
            datagrams_sent: self.outbox.sent,
            ..EndpointStats::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forwards_both_ways_in_order() {
        let mut r = Relay::new();
        let now = Instant::ZERO;
        r.handle_datagram(now, PathId(0), b"one");
        r.handle_datagram(now, PathId(1), b"ack");
        r.handle_datagram(now, PathId(0), b"two");
        let mut buf = Vec::new();
        let mut got = Vec::new();
        while let Some(p) = r.poll_transmit(now, &mut buf) {
            got.push((p, buf.clone()));
        }
        assert_eq!(
            got,
            [
                (PathId(1), b"one".to_vec()),
                (PathId(0), b"ack".to_vec()),
                (PathId(1), b"two".to_vec())
            ]
        );
        assert_eq!(r.stats().datagrams_sent, 3);
    }
}
