//! Opening a connection to one server: the handshake that authenticates
//! it ([`crate::crypto`]), the check of its key against what the client
//! trusts, and the GET that learns the file's size and SHA-256. Both run
//! from a short-lived socket on the first path's local address, on the
//! connection's control path.

use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use mio::net::UdpSocket;
use mio::{Events, Poll};

use super::{bind, GetError};
use crate::crypto::{hex, unhex, ClientHandshake, ClientKey, Keys, HEADER_LEN};
use crate::session::{is_session, ErrorCode, Message};

/// How long the client waits for an answer, per try.
pub const RETRY: std::time::Duration = std::time::Duration::from_millis(300);
/// Tries of the handshake, and of the GET.
pub const TRIES: u32 = 10;
/// How long the client keeps asking a server that says it is preparing
/// the file (hashing it the first time).
const PREPARE_WAIT: std::time::Duration = std::time::Duration::from_secs(600);
/// The path number of the connection's control messages (the GET); pipes
/// use 0, 1, ….
pub const CONTROL: u16 = u16::MAX;
/// The poll token of the short-lived socket (path sockets use their index).
const ASK_TOKEN: usize = usize::MAX / 2;

/// Which server keys the client accepts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Trust {
    /// Any key: the transfer is encrypted, but the server is not checked.
    Any,
    /// Only this key, for every server of the transfer.
    Key([u8; 32]),
    /// The key recorded for the server's address in this file (lines of
    /// `ADDRESS HEXKEY`); a server met for the first time is recorded
    /// there (trust on first use, as SSH's known hosts).
    KnownServers(PathBuf),
}

/// What a server offers, and the connection to it.
pub struct Offered {
    /// File size.
    pub size: u64,
    /// The file's SHA-256.
    pub sha256: [u8; 32],
    /// The connection's keys.
    pub keys: Arc<Keys>,
    /// The server's key, when it was recorded as trusted just now.
    pub first_contact: Option<[u8; 32]>,
}

/// Checks `key`, the key server `to` proved it holds, against `trust`;
/// `Some(key)` when it was recorded just now.
fn check_key(trust: &Trust, to: SocketAddr, key: [u8; 32]) -> Result<Option<[u8; 32]>, GetError> {
    let mismatch = |expected: [u8; 32]| GetError::ServerKey {
        server: to,
        expected: hex(&expected),
        got: hex(&key),
    };
    match trust {
        Trust::Any => Ok(None),
        Trust::Key(k) if *k == key => Ok(None),
        Trust::Key(k) => Err(mismatch(*k)),
        Trust::KnownServers(file) => {
            let text = match std::fs::read_to_string(file) {
                Ok(t) => t,
                Err(e) if e.kind() == io::ErrorKind::NotFound => String::new(),
                Err(e) => return Err(GetError::Io(e)),
            };
            let name = to.to_string();
            let known = text.lines().find_map(|l| {
                let mut w = l.split_whitespace();
                (w.next() == Some(name.as_str()))
                    .then(|| w.next().and_then(unhex))
                    .flatten()
            });
            match known {
                Some(k) if k == key => Ok(None),
                Some(k) => Err(mismatch(k)),
                None => {
                    if let Some(dir) = file.parent() {
                        std::fs::create_dir_all(dir)?;
                    }
                    use std::io::Write;
                    let mut f = std::fs::OpenOptions::new()
                        .create(true)
                        .append(true)
                        .open(file)?;
                    writeln!(f, "{name} {}", hex(&key))?;
                    Ok(Some(key))
                }
            }
        }
    }
}

/// Sends `msg` until `answer` accepts a datagram from `to`, or the tries
/// run out (`None`). `answer` may ask for more time (returning
/// `Err(true)`) or just go on (`Err(false)`).
fn exchange<T>(
    sock: &UdpSocket,
    poll: &mut Poll,
    to: SocketAddr,
    mut msg: impl FnMut() -> Vec<u8>,
    mut answer: impl FnMut(&mut [u8]) -> Result<T, bool>,
) -> Result<Option<T>, GetError> {
    let mut events = Events::with_capacity(8);
    let mut buf = vec![0u8; 65536];
    let started = std::time::Instant::now();
    let mut unanswered = 0;
    let mut patient = false;
    while unanswered < TRIES || (patient && started.elapsed() < PREPARE_WAIT) {
        sock.send_to(&msg(), to)?;
        unanswered += 1;
        let deadline = std::time::Instant::now() + RETRY;
        while let Some(wait) = deadline.checked_duration_since(std::time::Instant::now()) {
            poll.poll(&mut events, Some(wait))?;
            loop {
                let (n, from) = match sock.recv_from(&mut buf) {
                    Ok(x) => x,
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                    Err(e) => return Err(e.into()),
                };
                if from != to {
                    continue;
                }
                match answer(&mut buf[..n]) {
                    Ok(t) => return Ok(Some(t)),
                    Err(true) => {
                        patient = true;
                        unanswered = 0;
                    }
                    Err(false) => {}
                }
            }
        }
    }
    Ok(None)
}

/// Connects to `to` from a socket of its own on `via` and asks for `path`
/// on connection number `conn`.
pub fn ask(
    via: SocketAddr,
    to: SocketAddr,
    poll: &mut Poll,
    (conn, segment, path): (u16, u16, &str),
    trust: &Trust,
    insecure: bool,
) -> Result<Offered, GetError> {
    on_own_socket(via, poll, |s, poll| {
        ask_on(s, to, poll, (conn, segment, path), trust, insecure)
    })
}

/// Runs `f` on a short-lived socket of its own bound to `via`.
fn on_own_socket<T>(
    via: SocketAddr,
    poll: &mut Poll,
    f: impl FnOnce(&UdpSocket, &mut Poll) -> Result<T, GetError>,
) -> Result<T, GetError> {
    let mut s = bind(via, poll, ASK_TOKEN)?;
    let r = f(&s, poll);
    let _ = poll.registry().deregister(&mut s);
    r
}

/// What a server answered an OPEN with: the connection's keys.
pub struct Opened {
    /// The connection's keys.
    pub keys: Arc<Keys>,
    /// The server's key, when it was recorded as trusted just now.
    pub first_contact: Option<[u8; 32]>,
}

/// Connects to `to` from a socket of its own on `via` and opens a stream
/// connection numbered `conn` whose segments carry `segment` bytes.
pub fn open(
    via: SocketAddr,
    to: SocketAddr,
    poll: &mut Poll,
    (conn, segment): (u16, u16),
    (trust, insecure): (&Trust, bool),
    client: Option<&ClientKey>,
) -> Result<Opened, GetError> {
    on_own_socket(via, poll, |s, poll| {
        open_on(s, to, poll, (conn, segment), (trust, insecure), client)
    })
}

fn open_on(
    sock: &UdpSocket,
    to: SocketAddr,
    poll: &mut Poll,
    (conn, segment): (u16, u16),
    (trust, insecure): (&Trust, bool),
    client: Option<&ClientKey>,
) -> Result<Opened, GetError> {
    let started = std::time::Instant::now();
    let (keys, first_contact) = shake(sock, to, poll, trust, insecure, started)?;
    let open = Message::Open {
        conn,
        segment,
        client: client.map(|k| k.prove(&keys.binding, conn)),
    };
    let answer = request(sock, to, poll, &keys, &open, |m| match m {
        Message::Opened { conn: c } if c == conn => Ok(Ok(())),
        Message::Error {
            conn: c, message, ..
        } if c == conn => Ok(Err(GetError::Refused(message))),
        _ => Err(false),
    })?;
    match answer {
        Some(Ok(())) => Ok(Opened {
            keys,
            first_contact,
        }),
        Some(Err(e)) => Err(e),
        None => Err(no_answer(sock, to, started)),
    }
}

fn no_answer(sock: &UdpSocket, to: SocketAddr, started: std::time::Instant) -> GetError {
    GetError::NoAnswer {
        server: to,
        via: sock.local_addr().unwrap_or(to),
        tries: TRIES,
        seconds: started.elapsed().as_secs_f64(),
    }
}

/// Runs the handshake with `to` and checks its key against `trust`: the
/// connection's keys, and the key when it was recorded just now.
fn shake(
    sock: &UdpSocket,
    to: SocketAddr,
    poll: &mut Poll,
    trust: &Trust,
    insecure: bool,
    started: std::time::Instant,
) -> Result<(Arc<Keys>, Option<[u8; 32]>), GetError> {
    let (hs, hello) = ClientHandshake::start(insecure);
    let mut hs = Some(hs);
    // A server under load answers with a RETRY: the HELLO goes again, at
    // once, with the token in it.
    let hello = std::cell::RefCell::new(hello);
    let established = exchange(
        sock,
        poll,
        to,
        || hello.borrow().clone(),
        |d| match &hs {
            Some(h) if h.is_reply(d) => hs.take().expect("present").finish(d).map_err(|_| false),
            Some(h) => {
                let again = h.with_token(&hello.borrow(), d);
                if let Some(again) = again {
                    let _ = sock.send_to(&again, to);
                    *hello.borrow_mut() = again;
                }
                Err(false)
            }
            None => Err(false),
        },
    )?
    .ok_or_else(|| no_answer(sock, to, started))?;
    let first_contact = check_key(trust, to, established.server_key)?;
    if insecure && !established.keys.insecure() {
        return Err(GetError::Refused(
            "the server does not allow unencrypted connections".into(),
        ));
    }
    Ok((Arc::new(established.keys), first_contact))
}

/// Sends session message `m` on the control path until `answer` accepts
/// a session message that came back (see [`exchange`]).
fn request<T>(
    sock: &UdpSocket,
    to: SocketAddr,
    poll: &mut Poll,
    keys: &Keys,
    m: &Message,
    mut answer: impl FnMut(Message) -> Result<T, bool>,
) -> Result<Option<T>, GetError> {
    let mut msg = Vec::new();
    m.emit(&mut msg);
    let mut pn = 0u64;
    exchange(
        sock,
        poll,
        to,
        || {
            let mut d = vec![0u8; HEADER_LEN];
            d.extend_from_slice(&msg);
            keys.seal(CONTROL, pn, &mut d);
            pn += 1;
            d
        },
        |d| {
            let Ok((CONTROL, _, plain)) = keys.open(d) else {
                return Err(false);
            };
            if !is_session(plain) {
                return Err(false);
            }
            Message::parse(plain).map_or(Err(false), &mut answer)
        },
    )
}

fn ask_on(
    sock: &UdpSocket,
    to: SocketAddr,
    poll: &mut Poll,
    (conn, segment, path): (u16, u16, &str),
    trust: &Trust,
    insecure: bool,
) -> Result<Offered, GetError> {
    let started = std::time::Instant::now();
    let (keys, first_contact) = shake(sock, to, poll, trust, insecure, started)?;
    let get = Message::Get {
        conn,
        segment,
        path: path.to_string(),
    };
    let mut full = None;
    let answer = request(sock, to, poll, &keys, &get, |m| match m {
        Message::Offer {
            conn: c,
            size,
            sha256,
        } if c == conn => Ok(Ok((size, sha256))),
        Message::Error {
            conn: c,
            code: ErrorCode::Preparing,
            ..
        } if c == conn => Err(true),
        Message::Error {
            conn: c,
            code: ErrorCode::Full,
            message,
        } if c == conn => {
            full = Some(message);
            Err(false)
        }
        Message::Error {
            conn: c, message, ..
        } if c == conn => Ok(Err(GetError::Refused(message))),
        _ => Err(false),
    })?;
    match answer {
        Some(Ok((size, sha256))) => Ok(Offered {
            size,
            sha256,
            keys,
            first_contact,
        }),
        Some(Err(e)) => Err(e),
        None => Err(full.map_or_else(|| no_answer(sock, to, started), GetError::Full)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_known_server_must_keep_its_key() {
        let file = std::env::temp_dir().join(format!("radial-known-{}", std::process::id()));
        let _ = std::fs::remove_file(&file);
        let trust = Trust::KnownServers(file.clone());
        let a: SocketAddr = "127.0.0.1:7400".parse().unwrap();
        let b: SocketAddr = "127.0.0.2:7400".parse().unwrap();
        assert_eq!(check_key(&trust, a, [1; 32]).unwrap(), Some([1; 32]));
        assert_eq!(check_key(&trust, a, [1; 32]).unwrap(), None, "known now");
        assert_eq!(check_key(&trust, b, [2; 32]).unwrap(), Some([2; 32]));
        let e = check_key(&trust, a, [3; 32]).unwrap_err().to_string();
        assert!(
            e.contains("127.0.0.1:7400") && e.contains(&hex(&[1; 32])),
            "{e}"
        );
        assert!(check_key(&Trust::Key([4; 32]), a, [4; 32]).is_ok());
        assert!(check_key(&Trust::Key([4; 32]), a, [5; 32]).is_err());
        let _ = std::fs::remove_file(&file);
    }
}
