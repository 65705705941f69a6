//! Protocol parameters for real networks (the simulator keeps ns-2's).

use radial_core::r2cp::{FlowControl, R2cpConfig, Scheduling};
use radial_core::rcp::{Opener, RcpConfig, RcpVariant};
use radial_core::Duration;

/// Payload bytes per segment: 1200, so a datagram fits any path's MTU
/// (as QUIC assumes) with the RCP header and IP/UDP headers.
pub const MSS: u64 = 1200;

/// RCP parameters for real paths: 1200-byte segments, a 4 MB receive
/// buffer, an initial window of 10 segments (RFC 6928), a 1 ms timer
/// granularity, a 200 ms minimum and 1 s initial RTO (RFC 6298).
pub fn rcp_config(conn_id: u32) -> RcpConfig {
    let mut c = RcpConfig::ns2(RcpVariant::Rcp);
    c.mss = MSS;
    c.window = 3500;
    c.cc.mss = MSS;
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
    R2cpConfig {
        pipe: rcp_config(u32::from(conn)),
        scheduling: Scheduling::Ranked,
        rules: radial_core::r2cp::Rules::ALL,
        target: None,
        coupling: radial_core::cc::coupled::Coupling::Uncoupled,
        flow: FlowControl::default(),
        eln_paths: 0,
        pacing_quantum: radial_core::r2cp::PACING_QUANTUM,
    }
}
