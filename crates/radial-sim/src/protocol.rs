//! The protocol names of scenario files and results: one table, used by
//! the loader, by the resolved spec and by error messages.

use std::str::FromStr;

use radial_core::cc::coupled::Coupling;
use radial_core::mptcp;
use radial_core::r2cp::Scheduling;
use radial_core::rcp::RcpVariant;
use radial_core::tcp::TcpVariant;

/// A flow's protocol by name, before its parameters are resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// A TCP baseline or mobility scheme.
    Tcp(TcpVariant),
    /// RCP.
    Rcp(RcpVariant),
    /// R²CP with its assignment rule, its pipes' coupling, and whether it
    /// is the paper's engine (every rule beyond the paper off).
    R2cp(Scheduling, Coupling, bool),
    /// pTCP, and whether it is the paper's engine (every rule beyond the
    /// paper off).
    Ptcp(bool),
    /// MPTCP with its coupled increase.
    Mptcp(Coupling),
    /// Application striping over RCP connections.
    Apps,
    /// PRISM's proxy in front of this sender: TCP-PRISM (`prism`) or
    /// TCP-SACK (`prism-tcp`).
    Prism(TcpVariant),
    /// Unreliable datagrams.
    Udp,
}

const RCP: [RcpVariant; 3] = [RcpVariant::Rcp, RcpVariant::RcpEln, RcpVariant::RcpSat];
const COUPLINGS: [Coupling; 3] = [Coupling::Lia, Coupling::Olia, Coupling::Uncoupled];

impl Protocol {
    /// Every protocol, in the order the documentation lists them.
    pub fn all() -> Vec<Protocol> {
        let mut all: Vec<Protocol> = TcpVariant::ALL.into_iter().map(Protocol::Tcp).collect();
        all.extend(RCP.map(Protocol::Rcp));
        all.extend([
            Protocol::R2cp(Scheduling::Ranked, Coupling::Uncoupled, false),
            Protocol::R2cp(Scheduling::Fcfs, Coupling::Uncoupled, false),
            Protocol::R2cp(Scheduling::Ranked, Coupling::Lia, false),
            Protocol::R2cp(Scheduling::Ranked, Coupling::Uncoupled, true),
            Protocol::R2cp(Scheduling::Fcfs, Coupling::Uncoupled, true),
            Protocol::Ptcp(false),
            Protocol::Ptcp(true),
        ]);
        all.extend(COUPLINGS.map(Protocol::Mptcp));
        all.extend([
            Protocol::Prism(TcpVariant::Prism),
            Protocol::Prism(TcpVariant::Sack),
            Protocol::Apps,
            Protocol::Udp,
        ]);
        all
    }

    /// The name in scenario files and results.
    pub fn name(self) -> &'static str {
        match self {
            Protocol::Tcp(v) => v.name(),
            Protocol::Rcp(v) => v.name(),
            Protocol::R2cp(_, Coupling::Lia | Coupling::Olia, _) => "r2cp-coupled",
            Protocol::R2cp(Scheduling::Ranked, Coupling::Uncoupled, false) => "r2cp",
            Protocol::R2cp(Scheduling::Fcfs, Coupling::Uncoupled, false) => "r2cp-s",
            Protocol::R2cp(Scheduling::Ranked, Coupling::Uncoupled, true) => "r2cp-paper",
            Protocol::R2cp(Scheduling::Fcfs, Coupling::Uncoupled, true) => "r2cp-s-paper",
            Protocol::Ptcp(false) => "ptcp",
            Protocol::Ptcp(true) => "ptcp-paper",
            Protocol::Mptcp(c) => mptcp::protocol_name(c),
            Protocol::Apps => "apps",
            Protocol::Prism(TcpVariant::Prism) => "prism",
            Protocol::Prism(_) => "prism-tcp",
            Protocol::Udp => "udp",
        }
    }

    /// True for the protocols whose flows take `pipes`.
    pub fn multipath(self) -> bool {
        matches!(
            self,
            Protocol::R2cp(..)
                | Protocol::Ptcp(_)
                | Protocol::Mptcp(_)
                | Protocol::Apps
                | Protocol::Prism(_)
        )
    }
}

impl FromStr for Protocol {
    /// The message for an unknown name, listing the known ones.
    type Err = String;

    fn from_str(name: &str) -> Result<Self, String> {
        let all = Protocol::all();
        all.iter()
            .copied()
            .find(|p| p.name() == name)
            .ok_or_else(|| {
                let known: Vec<&str> = all.iter().map(|p| p.name()).collect();
                format!("unknown protocol `{name}` (known: {})", known.join(", "))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_parses_to_itself_and_names_are_unique() {
        let all = Protocol::all();
        for p in &all {
            assert_eq!(p.name().parse::<Protocol>(), Ok(*p));
        }
        let mut names: Vec<&str> = all.iter().map(|p| p.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), all.len());
    }

    #[test]
    fn an_unknown_name_lists_the_known_ones() {
        let e = "mptcp".parse::<Protocol>().unwrap_err();
        assert!(e.contains("`mptcp`") && e.contains("mptcp-lia") && e.contains("tcp-probing"));
    }
}
