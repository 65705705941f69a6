//! Emulated paths around any program (Linux, root or `CAP_NET_ADMIN`): a
//! network namespace for the mobile host with one interface per path, one
//! for the servers, and between them the emulator's links, so that the
//! kernel's TCP, its MPTCP and Radial's own client all cross the same
//! rates, delays, queues, losses and handoffs.
//!
//! Each path is a pair of TUN devices, `pathI` in both namespaces, joined
//! in user space by the emulator ([`crate::emulator`]): this is the
//! simulator's link code driven by the wall clock, not a copy, and it needs
//! no `netem`. Addresses (IPv4):
//!
//! - path `i` on the host: [`host_address`]`(i)` = 10.0.i.2/24, on
//!   interface `pathI`; its peer in the servers' namespace is 10.0.i.1;
//! - the servers: [`SERVER`] = 10.255.0.1, reached by every path.
//!
//! The host routes to the servers by the best path first (highest rate,
//! then the first listed), and by each path for packets from that path's
//! address (one routing table per path, chosen by source address), as a
//! multi-homed host configured for MPTCP does; where the kernel has MPTCP,
//! every path's address is an MPTCP `subflow` endpoint.
//!
//! A path that goes down loses what it carries, and its interface in the
//! host's namespace goes down and loses its address, endpoint and routes,
//! all of which come back when it comes up: address watchers, path
//! managers and sockets see a real link change.

pub mod measure;
pub mod netns;
mod tun;

use std::io;
use std::net::Ipv4Addr;
use std::process::Command;

use crate::emulator::{EmuCommand, Emulator, PathCounters, PathModel};
pub use netns::Namespace;
pub use tun::device_name;

/// The servers' address in the servers' namespace, reached by every path.
pub const SERVER: Ipv4Addr = Ipv4Addr::new(10, 255, 0, 1);

/// At most this many paths (one /24 and one routing table each).
pub const MAX_PATHS: usize = 200;

/// The host's address on path `i`.
pub fn host_address(i: usize) -> Ipv4Addr {
    Ipv4Addr::new(10, 0, i as u8, 2)
}

/// The servers' side of path `i`.
pub fn peer_address(i: usize) -> Ipv4Addr {
    Ipv4Addr::new(10, 0, i as u8, 1)
}

/// The routing table of packets from path `i`'s address.
fn table(i: usize) -> usize {
    100 + i
}

/// An open shell: its namespaces and the emulator between them. Dropping it
/// stops the emulator and deletes the namespaces, with every interface,
/// address, route and rule in them.
pub struct Shell {
    // Fields drop in order: the emulator (and its devices) first.
    emulator: Emulator,
    host: Namespace,
    server: Namespace,
    /// Each path's rank among the host's routes to the servers (0 = best).
    ranks: Vec<usize>,
    up: Vec<bool>,
    mptcp: bool,
}

impl Shell {
    /// Opens a shell whose paths are `models` (`up` is the host's way to
    /// the servers); `seed` drives the loss draws. Namespaces that shells
    /// killed before they could clean up left behind are removed first.
    pub fn open(models: &[PathModel], seed: u64) -> io::Result<Self> {
        if models.is_empty() || models.len() > MAX_PATHS {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("a shell has 1 to {MAX_PATHS} paths, not {}", models.len()),
            ));
        }
        netns::remove_stale();
        let host = Namespace::create("host")?;
        let server = Namespace::create("servers")?;
        let hosts = tun::create(&host, models.len())?;
        let servers = tun::create(&server, models.len())?;
        let mut order: Vec<usize> = (0..models.len()).collect();
        order.sort_by_key(|&i| (std::cmp::Reverse(models[i].down.rate_bps), i));
        let mut ranks = vec![0; models.len()];
        for (rank, &i) in order.iter().enumerate() {
            ranks[i] = rank;
        }
        let ports = tun::TunPorts {
            pairs: hosts.into_iter().zip(servers).collect(),
            scratch: Vec::new(),
        };
        let emulator = Emulator::spawn(ports, models, seed, Vec::new());
        let mut shell = Shell {
            emulator,
            host,
            server,
            ranks,
            up: vec![true; models.len()],
            mptcp: false,
        };
        shell.configure()?;
        Ok(shell)
    }

    /// Addresses, routes and rules of both namespaces, and MPTCP where the
    /// kernel has it.
    fn configure(&mut self) -> io::Result<()> {
        let mut servers = format!("address add {SERVER}/32 dev lo\n");
        let mut rules = String::new();
        for i in 0..self.up.len() {
            let dev = device_name(i);
            // A long queue between the kernel and the emulator, so that a
            // moment's wait for the CPU drops nothing the model did not.
            servers += &format!(
                "link set {dev} txqueuelen 10000\nlink set {dev} up\naddress add {}/24 dev {dev}\n",
                peer_address(i)
            );
            rules += &format!(
                "rule add from {} table {} pref {}\n",
                host_address(i),
                table(i),
                1000 + i
            );
        }
        self.server.batch(&servers)?;
        self.host.batch(&rules)?;
        self.mptcp = [&self.host, &self.server].iter().all(|ns| {
            ns.batch("mptcp limits set subflow 8 add_addr_accepted 8\n")
                .is_ok()
        });
        for i in 0..self.up.len() {
            self.host.batch(&self.path_up(i))?;
        }
        Ok(())
    }

    /// The host's commands that bring path `i` up.
    fn path_up(&self, i: usize) -> String {
        let (dev, addr) = (device_name(i), host_address(i));
        let mut c = format!(
            "link set {dev} txqueuelen 10000\n\
             link set {dev} up\n\
             address add {addr}/24 dev {dev}\n\
             route add {SERVER}/32 dev {dev} src {addr} table {}\n\
             route add {SERVER}/32 dev {dev} src {addr} metric {}\n",
            table(i),
            10 + self.ranks[i]
        );
        if self.mptcp {
            c += &format!("mptcp endpoint add {addr} dev {dev} id {} subflow\n", i + 1);
        }
        c
    }

    /// The host's commands that take path `i` down.
    fn path_down(&self, i: usize) -> String {
        let dev = device_name(i);
        let mut c = String::new();
        if self.mptcp {
            c += &format!("mptcp endpoint delete id {}\n", i + 1);
        }
        c + &format!("address flush dev {dev}\nlink set {dev} down\n")
    }

    /// How many paths.
    pub fn paths(&self) -> usize {
        self.up.len()
    }

    /// Whether the host's paths are MPTCP endpoints.
    pub fn mptcp(&self) -> bool {
        self.mptcp
    }

    /// Whether the emulator stopped on an error of its own (what it was is
    /// in [`Shell::close`]'s result).
    pub fn failed(&self) -> bool {
        self.emulator.failed()
    }

    /// The mobile host's namespace.
    pub fn host(&self) -> &Namespace {
        &self.host
    }

    /// The servers' namespace.
    pub fn server(&self) -> &Namespace {
        &self.server
    }

    /// Applies a change: a path going down loses what it carries and its
    /// interface, address and routes on the host; coming up, it gets them
    /// back. A path already in the state asked for is left alone.
    pub fn apply(&mut self, c: EmuCommand) -> io::Result<()> {
        if let EmuCommand::SetUp(i, up) = c {
            if i >= self.up.len() || self.up[i] == up {
                return Ok(());
            }
            self.up[i] = up;
            self.emulator.command(c);
            let commands = if up {
                self.path_up(i)
            } else {
                self.path_down(i)
            };
            return self.host.batch(&commands);
        }
        self.emulator.command(c);
        Ok(())
    }

    /// A command that runs `argv` in the host's namespace.
    pub fn host_command<S: AsRef<std::ffi::OsStr>>(
        &self,
        argv: impl IntoIterator<Item = S>,
    ) -> Command {
        self.host.exec(argv)
    }

    /// A command that runs `argv` in the servers' namespace.
    pub fn server_command<S: AsRef<std::ffi::OsStr>>(
        &self,
        argv: impl IntoIterator<Item = S>,
    ) -> Command {
        self.server.exec(argv)
    }

    /// Closes the shell and returns each path's counters.
    pub fn close(self) -> io::Result<Vec<PathCounters>> {
        let Shell {
            emulator,
            host,
            server,
            ..
        } = self;
        let counters = emulator.stop();
        drop((host, server));
        counters
    }
}
