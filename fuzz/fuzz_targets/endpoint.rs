//! Fuzzes every protocol endpoint as a state machine: arbitrary datagrams
//! (from a peer or an attacker), host events, application reads and writes
//! and the passing of time, in any order. No input may panic an endpoint or
//! make it loop: every poll ends, and what an endpoint delivers never
//! exceeds what its reader asked for.
//!
//! The input is a script. Its first byte picks the endpoint; then each step
//! is an opcode byte and a length byte, followed (for datagrams and writes)
//! by that many bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use radial_core::cc::coupled::Coupling;
use radial_core::mptcp;
use radial_core::prism::{Imux, ImuxConfig, RpcMode, Scheduler};
use radial_core::ptcp::{PtcpConfig, PtcpReceiver, PtcpSender};
use radial_core::r2cp::{FlowControl, R2cpConfig, R2cpReceiver, Scheduling};
use radial_core::rcp::{Opener, RcpConfig, RcpReceiver, RcpSender, RcpVariant};
use radial_core::tcp::{TcpConfig, TcpReceiver, TcpSender, TcpVariant};
use radial_core::{Duration, Endpoint, HostEvent, Instant, PathId, RouteId};

/// Most datagrams drained after one step: far more than any window allows.
const MAX_OUTPUT: usize = 10_000;

/// The sender-side multipath engine as pTCP or as one of the MPTCPs.
fn sender_side(pick: u8) -> PtcpConfig {
    let coupling = [Coupling::Uncoupled, Coupling::Lia, Coupling::Olia][usize::from(pick) % 3];
    match pick % 4 {
        0 => PtcpConfig::ns2(),
        k => {
            let mut c = mptcp::config(coupling);
            if k == 3 {
                if let Some(m) = c.mptcp.as_mut() {
                    m.scheduler = mptcp::Scheduler::Ecf;
                }
            }
            c
        }
    }
}

fn endpoint(kind: u8) -> Box<dyn Endpoint> {
    let path = PathId(0);
    let rcp = RcpConfig::ns2(RcpVariant::Rcp);
    match kind % 8 {
        0 => Box::new(RcpSender::new(rcp, path)),
        1 => Box::new(RcpReceiver::new(rcp, path)),
        2 => Box::new(RcpSender::new(
            RcpConfig {
                opener: Opener::Sender,
                ..rcp
            },
            path,
        )),
        3 => {
            // Uncoupled or coupled (LIA, OLIA) pipes.
            let coupling = [Coupling::Uncoupled, Coupling::Lia, Coupling::Olia]
                [usize::from(kind / 8) % 3];
            let mut r = R2cpReceiver::new(R2cpConfig {
                pipe: rcp,
                scheduling: Scheduling::Ranked,
                rules: radial_core::r2cp::Rules::ALL,
                target: None,
                coupling,
                // The second pipe is RCP-ELN: wireless-loss reports reach it.
                flow: FlowControl::default(),
                eln_paths: 0b10,
                // The runtime's pacing quantum, or the simulator's none.
                pacing_quantum: if kind & 0x80 != 0 {
                    radial_core::r2cp::PACING_QUANTUM
                } else {
                    radial_core::Duration::ZERO
                },
            });
            for p in 0..2 {
                r.handle_event(
                    Instant::ZERO,
                    HostEvent::PathUp {
                        path: PathId(p),
                        controller: None,
                        route: Some(RouteId(u64::from(p % 2))),
                    },
                );
            }
            Box::new(r)
        }
        // pTCP, or MPTCP with each coupling and scheduler.
        6 => Box::new(PtcpSender::new(sender_side(kind / 8))),
        // PRISM's proxy with one member link (path 0; the sender is path
        // 1), each scheduler and RPC mode.
        7 if (kind / 8) % 2 == 1 => {
            let pick = usize::from(kind / 16);
            let mut imux = Imux::new(ImuxConfig {
                scheduler: Scheduler::ALL[pick % Scheduler::ALL.len()],
                rpc: RpcMode::ALL[pick % RpcMode::ALL.len()],
                ..ImuxConfig::new(&[1e6])
            });
            imux.handle_event(
                Instant::ZERO,
                HostEvent::PathUp {
                    path: PathId(0),
                    controller: None,
                    route: Some(RouteId(0)),
                },
            );
            Box::new(imux)
        }
        7 => {
            let mut r = PtcpReceiver::new(PtcpConfig::ns2());
            for p in 0..2 {
                r.handle_event(
                    Instant::ZERO,
                    HostEvent::PathUp {
                        path: PathId(p),
                        controller: None,
                        route: Some(RouteId(u64::from(p % 2))),
                    },
                );
            }
            Box::new(r)
        }
        // Every TCP variant, the mobility schemes' state machines and
        // TCP-PRISM included.
        k => {
            let variants: Vec<TcpVariant> = TcpVariant::ALL
                .into_iter()
                .chain([TcpVariant::Prism])
                .collect();
            let variant = variants[usize::from(kind / 8) % variants.len()];
            let config = TcpConfig::ns2(variant);
            if k == 4 {
                Box::new(TcpSender::new(config, path))
            } else {
                Box::new(TcpReceiver::new(config, path))
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&kind, mut script)) = data.split_first() else {
        return;
    };
    let mut ep = endpoint(kind);
    let mut now = Instant::ZERO;
    let mut out = Vec::new();
    let mut read_buf = vec![0u8; 64 * 1024];
    while let [op, len, rest @ ..] = script {
        let len = usize::from(*len);
        script = rest;
        match op % 8 {
            0 | 1 => {
                let take = len.min(script.len());
                let (d, rest) = script.split_at(take);
                script = rest;
                ep.handle_datagram(now, PathId(u16::from(*op >> 7)), d);
            }
            2 => {
                now = now + Duration::from_millis(len as u64 * 10);
                if ep.poll_timeout().is_some_and(|t| t <= now) {
                    ep.handle_timeout(now);
                }
            }
            3 => {
                let want = len * 256 + 1;
                let n = ep.read(&mut read_buf[..want]);
                assert!(n <= want);
            }
            4 => {
                let take = len.min(script.len());
                let (d, rest) = script.split_at(take);
                script = rest;
                let n = ep.write(d);
                assert!(n <= d.len());
            }
            5 => {
                let path = PathId(u16::from(len as u8 & 3));
                let event = match len >> 2 {
                    0 => HostEvent::PathUp {
                        path,
                        controller: None,
                        route: Some(RouteId(u64::from(path.0 % 2))),
                    },
                    1 => HostEvent::PathClose { path },
                    2 => HostEvent::PathDown { path },
                    3 => HostEvent::PathHandoff {
                        from: path,
                        to: PathId((path.0 + 1) & 3),
                    },
                    4 => HostEvent::InterfaceAsleep { path },
                    5 => HostEvent::InterfaceAwake { path },
                    6 => HostEvent::LinkDown { path },
                    7 => HostEvent::LinkUp { path },
                    8 => HostEvent::LinkWarning { path },
                    9 => HostEvent::HandoffHint {
                        path,
                        bandwidth: radial_core::BitRate::from_kbps(u64::from(len as u8) * 100),
                    },
                    _ => HostEvent::WirelessLoss {
                        path,
                        datagram: script.iter().take(64).copied().collect(),
                    },
                };
                ep.handle_event(now, event);
            }
            6 => ep.close(),
            _ => {
                let _ = ep.stats();
                let _ = ep.path_stats();
            }
        }
        let mut sent = 0;
        while ep.poll_transmit(now, &mut out).is_some() {
            sent += 1;
            assert!(sent < MAX_OUTPUT, "poll_transmit does not end");
        }
        while ep.poll_app_event().is_some() {}
    }
});
