//! Loopback UDP relays as an emulator's ends: path `i`'s client end is a
//! socket the client sends to (its front), its server end a socket of its
//! own that talks to the server.

use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use mio::net::UdpSocket;
use mio::{Interest, Registry, Token};

use super::driver::Ports;
use super::engine::Way;

/// Bytes of IP and UDP headers a datagram occupies on a link beyond its own.
const FRAMING: u32 = 28;

struct Relay {
    front: UdpSocket,
    back: UdpSocket,
    /// The client's address: the last one heard from on the front (a
    /// client may ask from one socket and then open its pipe from another).
    client: Option<SocketAddr>,
}

/// One relay per path towards one server.
pub(super) struct UdpPorts {
    server: SocketAddr,
    relays: Vec<Relay>,
}

impl UdpPorts {
    /// Relays whose fronts are bound to `fronts` (port 0: any), towards
    /// `server`.
    pub(super) fn bind(server: SocketAddr, fronts: &[SocketAddr]) -> io::Result<Self> {
        let back_ip: IpAddr = if server.is_ipv4() {
            Ipv4Addr::LOCALHOST.into()
        } else {
            Ipv6Addr::LOCALHOST.into()
        };
        let relays = fronts
            .iter()
            .map(|f| {
                Ok(Relay {
                    front: UdpSocket::bind(*f)?,
                    back: UdpSocket::bind(SocketAddr::new(back_ip, 0))?,
                    client: None,
                })
            })
            .collect::<io::Result<_>>()?;
        Ok(UdpPorts { server, relays })
    }

    /// The fronts' addresses.
    pub(super) fn fronts(&self) -> io::Result<Vec<SocketAddr>> {
        self.relays.iter().map(|r| r.front.local_addr()).collect()
    }
}

impl Ports for UdpPorts {
    fn register(&mut self, registry: &Registry) -> io::Result<()> {
        for (i, r) in self.relays.iter_mut().enumerate() {
            registry.register(&mut r.front, Token(2 * i), Interest::READABLE)?;
            registry.register(&mut r.back, Token(2 * i + 1), Interest::READABLE)?;
        }
        Ok(())
    }

    fn receive(&mut self, path: usize, way: Way, buf: &mut [u8]) -> Option<(usize, u32)> {
        let r = &mut self.relays[path];
        loop {
            let sock = if way == Way::Up { &r.front } else { &r.back };
            let (n, from) = sock.recv_from(buf).ok()?;
            match way {
                Way::Up => r.client = Some(from),
                Way::Down if from != self.server => continue,
                Way::Down => {}
            }
            return Some((n, n as u32 + FRAMING));
        }
    }

    fn send(&mut self, path: usize, way: Way, data: &[u8]) -> bool {
        let r = &self.relays[path];
        let sent = match way {
            Way::Up => Some(r.back.send_to(data, self.server)),
            Way::Down => r.client.map(|c| r.front.send_to(data, c)),
        };
        matches!(sent, Some(Ok(_)))
    }
}
