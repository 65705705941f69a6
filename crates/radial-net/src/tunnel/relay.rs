//! The tunnel over real sockets, one stream per SOCKS connection: the
//! host's front ([`run_front`]) answers local programs' SOCKS5 handshakes
//! and passes each CONNECT request on at the start of a new stream; the
//! server's exit ([`run_exit`]) reads the request, resolves and checks the
//! destination against its policy, connects, answers with the SOCKS5
//! reply the host passes back, and from then on both copy bytes.

use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::time::Duration;

use super::socks::{parse_reply, Destination, Handshake, Progress, Reply};
use super::DestinationPolicy;
use crate::mux::reset_code;
use crate::stream::{Connection, RecvStream, SendStream};

/// How long the exit tries to connect to one address.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// A line about one tunnelled connection, for the operator's log.
pub type Log = Arc<dyn Fn(String) + Send + Sync>;

/// Accepts local programs' connections on `listener` and tunnels each
/// through `conn` until the listener fails or the connection ends.
pub fn run_front(listener: TcpListener, conn: Connection, log: Log) -> io::Result<()> {
    for tcp in listener.incoming() {
        let tcp = tcp?;
        if let Some(e) = conn.ended() {
            return Err(e.into());
        }
        let (conn, log) = (conn.clone(), log.clone());
        std::thread::spawn(move || {
            let peer = tcp.peer_addr().ok();
            if let Err(e) = front(tcp, &conn) {
                log(format!("socks client {peer:?}: {e}"));
            }
        });
    }
    Ok(())
}

/// Reads from `tcp` until `hs` comes to a CONNECT; what the program sent
/// past its request is returned with the destination. The handshake's
/// answers go back on `tcp`; `None` when the program went away.
fn socks_request(
    tcp: &mut TcpStream,
    hs: &mut Handshake,
) -> io::Result<Option<(Destination, Vec<u8>)>> {
    let mut buf = [0u8; 1024];
    loop {
        let n = tcp.read(&mut buf)?;
        if n == 0 {
            return Ok(None);
        }
        let step = hs.input(&buf[..n]);
        tcp.write_all(&hs.take_output())?;
        match step {
            Ok((Progress::Connect(d), used)) => return Ok(Some((d, buf[used..n].to_vec()))),
            // The handshake reads what it is given until it needs more.
            Ok((Progress::More, _)) => {}
            Err(e) => return Err(io::Error::new(io::ErrorKind::InvalidData, e)),
        }
    }
}

/// One local program's connection, through one stream.
fn front(mut tcp: TcpStream, conn: &Connection) -> io::Result<()> {
    let _ = tcp.set_nodelay(true);
    let mut hs = Handshake::new();
    let Some((dest, early)) = socks_request(&mut tcp, &mut hs)? else {
        return Ok(());
    };
    let request = dest
        .connect_request()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "a name SOCKS5 cannot carry"))?;
    let (mut r, mut w) = conn.open_stream()?.split();
    w.write_all(&request)?;
    w.write_all(&early)?;
    // The exit's reply goes to the program as it is.
    let mut got = Vec::new();
    let mut buf = [0u8; 1024];
    let (reply, len) = loop {
        match parse_reply(&got) {
            Ok(Some(x)) => break x,
            Ok(None) => {}
            Err(e) => {
                let _ = tcp.write_all(&Reply::GeneralFailure.encode(unspecified()));
                return Err(io::Error::new(io::ErrorKind::InvalidData, e));
            }
        }
        let n = r.read(&mut buf)?;
        if n == 0 {
            let _ = tcp.write_all(&Reply::GeneralFailure.encode(unspecified()));
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the tunnel's server ended the stream before it answered",
            ));
        }
        got.extend_from_slice(&buf[..n]);
    };
    tcp.write_all(&got[..len])?;
    if reply != Reply::Succeeded {
        return Err(io::Error::other(format!(
            "{dest}: the tunnel's server answered {reply:?}"
        )));
    }
    tcp.write_all(&got[len..])?;
    relay(tcp, r, w)
}

/// Serves the streams a client opens on `conn` as connections to the
/// destinations they name, within `policy`, until the connection ends.
pub fn run_exit(conn: Connection, policy: Arc<DestinationPolicy>, log: Log) {
    while let Ok(stream) = conn.accept_stream() {
        let (policy, log) = (policy.clone(), log.clone());
        std::thread::spawn(move || {
            let (r, w) = stream.split();
            if let Err(e) = exit(r, w, &policy, &log) {
                log(format!("tunnel stream: {e}"));
            }
        });
    }
}

/// One stream: its request, the connection out, then the copying.
fn exit(
    mut r: RecvStream,
    mut w: SendStream,
    policy: &DestinationPolicy,
    log: &Log,
) -> io::Result<()> {
    let mut hs = Handshake::at_request();
    let mut buf = [0u8; 1024];
    let (dest, early) = loop {
        let n = r.read(&mut buf)?;
        if n == 0 {
            return Ok(());
        }
        match hs.input(&buf[..n]) {
            Ok((Progress::Connect(d), used)) => break (d, buf[used..n].to_vec()),
            Ok((Progress::More, _)) => {}
            Err(e) => {
                w.write_all(&hs.take_output())?;
                return Err(io::Error::new(io::ErrorKind::InvalidData, e));
            }
        }
    };
    let tcp = match connect_out(&dest, policy) {
        Ok(tcp) => tcp,
        Err((reply, why)) => {
            log(format!("{dest}: refused ({why})"));
            w.write_all(&reply.encode(unspecified()))?;
            return Ok(());
        }
    };
    let bound = tcp.local_addr().unwrap_or_else(|_| unspecified());
    w.write_all(&Reply::Succeeded.encode(bound))?;
    let mut out = &tcp;
    out.write_all(&early)?;
    relay(tcp, r, w)
}

/// Resolves `dest`, keeps the addresses `policy` allows and connects to
/// the first that answers; otherwise the reply to send and why.
fn connect_out(
    dest: &Destination,
    policy: &DestinationPolicy,
) -> Result<TcpStream, (Reply, String)> {
    let addrs: Vec<SocketAddr> = match dest {
        Destination::Addr(a) => vec![*a],
        Destination::Domain { host, port } => (host.as_str(), *port)
            .to_socket_addrs()
            .map_err(|e| (Reply::HostUnreachable, format!("does not resolve: {e}")))?
            .collect(),
    };
    let mut last = (Reply::HostUnreachable, "no address".to_string());
    let mut allowed = 0;
    for a in addrs {
        if let Err(why) = policy.check(a.ip()) {
            last = (Reply::NotAllowed, format!("{} is {why}", a.ip()));
            continue;
        }
        allowed += 1;
        match TcpStream::connect_timeout(&a, CONNECT_TIMEOUT) {
            Ok(tcp) => {
                let _ = tcp.set_nodelay(true);
                return Ok(tcp);
            }
            Err(e) => {
                let reply = match e.kind() {
                    io::ErrorKind::ConnectionRefused => Reply::ConnectionRefused,
                    io::ErrorKind::TimedOut => Reply::TtlExpired,
                    io::ErrorKind::NetworkUnreachable => Reply::NetworkUnreachable,
                    io::ErrorKind::HostUnreachable => Reply::HostUnreachable,
                    _ => Reply::GeneralFailure,
                };
                last = (reply, format!("{a}: {e}"));
            }
        }
    }
    if allowed == 0 && last.0 != Reply::NotAllowed {
        last = (Reply::HostUnreachable, "no address".into());
    }
    Err(last)
}

/// Copies both ways between `tcp` and a stream until both ends finished:
/// the stream's end shuts the socket's sending half, the socket's end
/// finishes the stream. A failure either way abandons both: the stream is
/// reset (its peer must not take a cut-short upload for a whole one) and
/// the socket shut (its program must not wait for what will not come).
fn relay(tcp: TcpStream, mut r: RecvStream, mut w: SendStream) -> io::Result<()> {
    let mut down = tcp.try_clone()?;
    let back = std::thread::spawn(move || -> io::Result<()> {
        match io::copy(&mut r, &mut down) {
            Ok(_) => {
                let _ = down.shutdown(Shutdown::Write);
                Ok(())
            }
            Err(e) => {
                r.reset(reset_code::CANCELLED);
                let _ = down.shutdown(Shutdown::Both);
                Err(e)
            }
        }
    });
    let mut up = tcp;
    let sent = io::copy(&mut up, &mut w).and_then(|_| w.finish());
    if sent.is_err() {
        let _ = up.shutdown(Shutdown::Both);
        w.reset(reset_code::CANCELLED);
    }
    let got = back
        .join()
        .unwrap_or_else(|_| Err(io::Error::other("relay thread panicked")));
    sent.and(got)
}

fn unspecified() -> SocketAddr {
    SocketAddr::from(([0, 0, 0, 0], 0))
}
