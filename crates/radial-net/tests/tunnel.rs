//! The tunnel over loopback: SOCKS5 clients reach a TCP echo server
//! through a stream connection, each byte back whole; destinations outside
//! the policy, names, malformed requests and unlisted clients are refused.

mod common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{mpsc, Arc};
use std::thread;

use common::{file_bytes, loopback_paths, serve_opts, Fixture};
use radial_net::crypto::ClientKey;
use radial_net::stream::{connect, ConnectConfig, Connection};
use radial_net::tunnel::relay::{run_exit, run_front, Log};
use radial_net::tunnel::{Cidr, Destination, DestinationPolicy, Reply};
use radial_net::{GetError, ServerOptions, Trust};

fn quiet() -> Log {
    Arc::new(|_| {})
}

/// A TCP server on loopback that echoes every connection.
fn tcp_echo() -> SocketAddr {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    thread::spawn(move || {
        for c in l.incoming() {
            let Ok(mut c) = c else { return };
            thread::spawn(move || {
                let mut back = c.try_clone().unwrap();
                let _ = std::io::copy(&mut c, &mut back);
                let _ = back.shutdown(std::net::Shutdown::Write);
            });
        }
    });
    addr
}

/// A tunnel server admitting `client`, connecting within `policy`.
fn exit_server(name: &str, client: [u8; 32], policy: DestinationPolicy) -> Fixture {
    let (tx, rx) = mpsc::channel::<Connection>();
    let policy = Arc::new(policy);
    thread::spawn(move || {
        for conn in rx {
            let policy = policy.clone();
            thread::spawn(move || run_exit(conn, policy, quiet()));
        }
    });
    serve_opts(
        name,
        1,
        ServerOptions {
            streams: Some(tx),
            stream_clients: Some(vec![client]),
            ..ServerOptions::default()
        },
    )
}

/// A host's SOCKS front on loopback, tunnelling to `f` with `key`.
fn front(f: &Fixture, key: Arc<ClientKey>) -> Result<SocketAddr, GetError> {
    let mut cfg = ConnectConfig::new(&loopback_paths(f.server, 2), Trust::Any);
    cfg.key = Some(key);
    let conn = connect(&cfg)?;
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    thread::spawn(move || run_front(l, conn, quiet()));
    Ok(addr)
}

/// A SOCKS5 client's handshake through `front` to `dest`: the reply code
/// and the connection.
fn socks(front: SocketAddr, dest: &Destination) -> (u8, TcpStream) {
    let mut c = TcpStream::connect(front).unwrap();
    c.write_all(&[5, 1, 0]).unwrap();
    let mut sel = [0u8; 2];
    c.read_exact(&mut sel).unwrap();
    assert_eq!(sel, [5, 0]);
    c.write_all(&dest.connect_request().unwrap()).unwrap();
    let mut head = [0u8; 4];
    c.read_exact(&mut head).unwrap();
    let rest = if head[3] == 4 { 18 } else { 6 };
    let mut addr = vec![0u8; rest];
    c.read_exact(&mut addr).unwrap();
    (head[1], c)
}

fn loopback_policy() -> DestinationPolicy {
    DestinationPolicy::new(vec!["127.0.0.0/8".parse::<Cidr>().unwrap()])
}

#[test]
fn socks_clients_reach_a_tcp_server_through_the_tunnel_both_ways() {
    let key = Arc::new(ClientKey::ephemeral());
    let f = exit_server("tunnel-echo", key.public(), loopback_policy());
    let front = front(&f, key).unwrap();
    let echo = tcp_echo();
    let clients: Vec<_> = (0..6usize)
        .map(|k| {
            thread::spawn(move || {
                // By address, and by name (resolved at the server).
                let dest = if k % 2 == 0 {
                    Destination::Addr(echo)
                } else {
                    Destination::Domain {
                        host: "localhost".into(),
                        port: echo.port(),
                    }
                };
                let (code, mut c) = socks(front, &dest);
                assert_eq!(code, Reply::Succeeded as u8, "client {k}");
                let data = file_bytes(300_000 + k);
                let mut w = c.try_clone().unwrap();
                let sent = data.clone();
                let writer = thread::spawn(move || {
                    w.write_all(&sent).unwrap();
                    w.shutdown(std::net::Shutdown::Write).unwrap();
                });
                let mut back = Vec::new();
                c.read_to_end(&mut back).unwrap();
                writer.join().unwrap();
                assert!(
                    back == data,
                    "client {k}: {} of {} bytes",
                    back.len(),
                    data.len()
                );
            })
        })
        .collect();
    for c in clients {
        c.join().unwrap();
    }
}

#[test]
fn a_destination_outside_the_policy_is_refused_and_the_tunnel_goes_on() {
    let key = Arc::new(ClientKey::ephemeral());
    // The default policy: anything but the special ranges, loopback among
    // them.
    let f = exit_server("tunnel-policy", key.public(), DestinationPolicy::default());
    let front = front(&f, key).unwrap();
    let echo = tcp_echo();
    let (code, _) = socks(front, &Destination::Addr(echo));
    assert_eq!(code, Reply::NotAllowed as u8);
    let (code, _) = socks(
        front,
        &Destination::Domain {
            host: "localhost".into(),
            port: echo.port(),
        },
    );
    assert_eq!(
        code,
        Reply::NotAllowed as u8,
        "a name is judged by its addresses"
    );
    let (code, _) = socks(
        front,
        &Destination::Domain {
            host: "no-such-host.invalid".into(),
            port: 80,
        },
    );
    assert_eq!(code, Reply::HostUnreachable as u8);
}

#[test]
fn a_malformed_socks_request_is_answered_and_closed_and_others_still_pass() {
    let key = Arc::new(ClientKey::ephemeral());
    let f = exit_server("tunnel-malformed", key.public(), loopback_policy());
    let front = front(&f, key).unwrap();
    // A SOCKS4 request: no answer, the connection closed.
    let mut c = TcpStream::connect(front).unwrap();
    c.write_all(&[4, 1, 0, 80, 127, 0, 0, 1, 0]).unwrap();
    let mut got = Vec::new();
    c.read_to_end(&mut got).unwrap();
    assert!(got.is_empty(), "{got:?}");
    // A BIND request: refused with "command not supported".
    let mut c = TcpStream::connect(front).unwrap();
    c.write_all(&[5, 1, 0]).unwrap();
    let mut sel = [0u8; 2];
    c.read_exact(&mut sel).unwrap();
    c.write_all(&[5, 2, 0, 1, 127, 0, 0, 1, 0, 80]).unwrap();
    let mut got = Vec::new();
    c.read_to_end(&mut got).unwrap();
    assert_eq!(got.get(1), Some(&(Reply::CommandNotSupported as u8)));
    // The tunnel still works.
    let (code, _) = socks(front, &Destination::Addr(tcp_echo()));
    assert_eq!(code, Reply::Succeeded as u8);
}

#[test]
fn an_unlisted_client_gets_no_tunnel() {
    let listed = ClientKey::ephemeral();
    let f = exit_server("tunnel-unlisted", listed.public(), loopback_policy());
    match front(&f, Arc::new(ClientKey::ephemeral())) {
        Err(GetError::Refused(m)) => assert!(m.contains("not listed"), "{m}"),
        other => panic!("expected a refusal, got {other:?}"),
    }
}
