//! Protocol parameters for real networks (the simulator keeps ns-2's).

use radial_core::r2cp::{FlowControl, R2cpConfig, Scheduling};
use radial_core::rcp::{Opener, RcpConfig, RcpVariant};
use radial_core::Duration;

/// Payload bytes per segment: 1200, so a datagram fits any path's MTU
/// (as QUIC assumes) with the RCP header and IP/UDP headers.
pub const MSS: u64 = 1200;

/// Payload bytes per segment for a connection over the loopback device
/// (`radial get --segment`, `ConnectConfig::segment`), whose MTU is 64 KiB:
/// there a segment need not fit an Ethernet frame, as the kernel's TCP
/// uses 64 KB segments there, and per-segment work (one request, one AEAD
/// operation, the engine's bookkeeping) weighs on far fewer bytes. The
/// runtime does not discover path MTUs, so a connection takes larger
/// segments only when told to. 16,000 bytes: the fastest and cheapest of
/// the sizes `tools/bench/segments.sh` measures (docs/performance.md,
/// "Segment size"); larger ones measured slower.
pub const LOOPBACK_SEGMENT: u64 = 16_000;

/// The largest segment a connection may ask for (a server refuses more):
/// a datagram of it, with its headers, fits one UDP datagram on IPv4.
pub const MAX_SEGMENT: u64 = 60_000;

/// Bytes of a connection's receive buffer (3,500 segments of [`MSS`]).
pub const RECEIVE_BUFFER: u64 = 3500 * MSS;

/// Whether a connection may use `segment` bytes per segment: from [`MSS`]
/// to [`MAX_SEGMENT`].
pub fn segment_allowed(segment: u64) -> bool {
    (MSS..=MAX_SEGMENT).contains(&segment)
}

/// RCP parameters for real paths: 1200-byte segments, a 4 MB receive
/// buffer, an initial window of 10 segments (RFC 6928), a 1 ms timer
/// granularity, a 200 ms minimum and 1 s initial RTO (RFC 6298).
pub fn rcp_config(conn_id: u32) -> RcpConfig {
    rcp_config_for(conn_id, MSS)
}

/// [`rcp_config`] with `segment` payload bytes per segment; the receive
/// buffer keeps its size in bytes.
pub fn rcp_config_for(conn_id: u32, segment: u64) -> RcpConfig {
    let mut c = RcpConfig::ns2(RcpVariant::Rcp);
    c.mss = segment;
    c.window = (RECEIVE_BUFFER / segment).max(4);
    c.cc.mss = segment;
    c.cc.initial_window = 10;
    c.cc.initial_ssthresh = u64::MAX;
    c.rtt.tick = Duration::from_millis(1);
    c.rtt.initial_rto = Duration::from_secs(1);
    c.send_buffer = 8 << 20;
    c.unsent_limit = 8 << 20;
    c.opener = Opener::Receiver;
    c.conn_id = conn_id;
    c
}

/// The R²CP receiver's parameters for connection number `conn`.
pub fn r2cp_config(conn: u16) -> R2cpConfig {
    r2cp_config_for(conn, MSS)
}

/// [`r2cp_config`] with `segment` payload bytes per segment.
pub fn r2cp_config_for(conn: u16, segment: u64) -> R2cpConfig {
    R2cpConfig {
        pipe: rcp_config_for(u32::from(conn), segment),
        scheduling: Scheduling::Ranked,
        rules: radial_core::r2cp::Rules::ALL,
        target: None,
        coupling: radial_core::cc::coupled::Coupling::Uncoupled,
        flow: FlowControl::default(),
        eln_paths: 0,
        pacing_quantum: radial_core::r2cp::PACING_QUANTUM,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_run_from_the_mss_to_the_largest_datagram() {
        assert!(segment_allowed(MSS) && segment_allowed(LOOPBACK_SEGMENT));
        assert!(!segment_allowed(MSS - 1) && !segment_allowed(MAX_SEGMENT + 1));
    }

    #[test]
    fn the_receive_buffer_keeps_its_bytes_whatever_the_segment() {
        assert_eq!(rcp_config(1).window, 3500);
        assert_eq!(rcp_config(1).rwnd_bytes(), RECEIVE_BUFFER);
        let big = rcp_config_for(1, LOOPBACK_SEGMENT);
        assert_eq!(big.mss, LOOPBACK_SEGMENT);
        assert!(big.rwnd_bytes() <= RECEIVE_BUFFER);
        assert!(big.rwnd_bytes() > RECEIVE_BUFFER - LOOPBACK_SEGMENT);
    }
}
