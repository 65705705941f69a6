//! Authenticated encryption of every runtime datagram.
//!
//! A client and a server first run a Noise handshake (the NX pattern with
//! X25519, AES-256-GCM and SHA-256: `-> e`, `<- e, ee, s, es`): one round
//! trip, after which both hold two fresh keys and the client has the
//! server's static public key, which it checks against the key it was told
//! or the one it saw before ([`crate::client::Trust`]). The server needs no
//! key of the client's: anyone may download, but only from the server they
//! meant. Noise was chosen over TLS 1.3 (as QUIC uses) because the runtime
//! has no certificates or names to check, only a server key, and because a
//! Noise handshake is one self-contained message each way that fits the
//! runtime's own datagrams; the `snow` crate runs it.
//!
//! Every later datagram, on any path of the connection and in either
//! direction, is *sealed*:
//!
//! ```text
//! +--------+----------------+--------+------------+-------------------+------+
//! | 0x15   | connection id  | path   | packet no. | ciphertext        | tag  |
//! | 1 byte | 8 bytes        | 2      | 6          |                   | 16   |
//! +--------+----------------+--------+------------+-------------------+------+
//! ```
//!
//! The header is the AEAD's associated data, the nonce is the path and the
//! packet number (unique per key: each path numbers its own packets), so a
//! forged, corrupted or replayed datagram is dropped on arrival
//! ([`ReplayWindow`]). With `--insecure` on both sides the cipher is
//! [`Cipher::Null`]: the same framing without encryption or tag, for
//! measuring what encryption costs.

use std::io;
use std::path::Path;

use ring::aead::{Aad, LessSafeKey, Nonce, UnboundKey, AES_256_GCM};

/// Wire type of handshake datagrams (the low nibble of the first byte).
pub const HANDSHAKE_TYPE: u8 = 4;
/// Wire type of sealed datagrams.
pub const SEALED_TYPE: u8 = 5;
/// Bytes of a sealed datagram's header.
pub const HEADER_LEN: usize = 17;
/// Bytes of the AEAD tag.
pub const TAG_LEN: usize = 16;
/// A HELLO is padded to this many bytes, so the server's reply is smaller
/// than what it received (no amplification), and the path carries
/// full-sized datagrams.
pub const HELLO_LEN: usize = 1200;
/// Flag of a HELLO and its reply: no encryption (both sides must allow it).
pub const FLAG_INSECURE: u8 = 1;
/// The Noise protocol name.
const NOISE: &str = "Noise_NX_25519_AESGCM_SHA256";
const HELLO: u8 = 1;
const REPLY: u8 = 2;
const RETRY: u8 = 3;
/// Bytes of a retry token: when it was issued (64 bits of seconds) and a
/// 128-bit tag over it, the client's address and its handshake tag.
pub const TOKEN_LEN: usize = 24;
/// How long a retry token stays good.
pub const TOKEN_LIFE: u64 = 10;
/// Marks a token after the Noise message of a HELLO.
const TOKEN_MARK: u8 = 0x7e;

fn first_byte(ty: u8) -> u8 {
    crate::session::VERSION << 4 | ty
}

/// True when `d` claims to be a handshake datagram.
pub fn is_handshake(d: &[u8]) -> bool {
    d.first() == Some(&first_byte(HANDSHAKE_TYPE))
}

/// True when `d` claims to be a sealed datagram.
pub fn is_sealed(d: &[u8]) -> bool {
    d.first() == Some(&first_byte(SEALED_TYPE))
}

fn noise() -> snow::params::NoiseParams {
    NOISE.parse().expect("a valid Noise protocol name")
}

/// A server's static key pair.
#[derive(Clone)]
pub struct Identity {
    private: [u8; 32],
    public: [u8; 32],
}

impl std::fmt::Debug for Identity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Identity({})", hex(&self.public))
    }
}

impl Identity {
    /// A fresh key pair.
    pub fn generate() -> Identity {
        let kp = snow::Builder::new(noise())
            .generate_keypair()
            .expect("X25519 key generation");
        Identity {
            private: kp.private[..].try_into().expect("32 bytes"),
            public: kp.public[..].try_into().expect("32 bytes"),
        }
    }

    /// The public key clients check.
    pub fn public(&self) -> [u8; 32] {
        self.public
    }

    /// Reads the key pair from `path` (two hex lines: private, public), or
    /// creates it there, readable by its owner only.
    pub fn load_or_create(path: &Path) -> io::Result<Identity> {
        match std::fs::read_to_string(path) {
            Ok(text) => {
                let bad = || {
                    io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!("{}: not a radial server key", path.display()),
                    )
                };
                let mut lines = text.lines();
                let private = lines.next().and_then(unhex).ok_or_else(bad)?;
                let public = lines.next().and_then(unhex).ok_or_else(bad)?;
                Ok(Identity { private, public })
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let id = Identity::generate();
                let text = format!("{}\n{}\n", hex(&id.private), hex(&id.public));
                if create_secret(path, &text)? {
                    Ok(id)
                } else {
                    Identity::load_or_create(path)
                }
            }
            Err(e) => Err(e),
        }
    }
}

/// Writes `text` to a new file at `path`, readable by its owner only;
/// false if another process created the file first (the caller reads
/// theirs). Written aside and linked into place, so that two processes
/// starting at once agree on one key and never read half a file.
fn create_secret(path: &Path, text: &str) -> io::Result<bool> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".{}.{:016x}", std::process::id(), random_u64()));
    let tmp = std::path::PathBuf::from(tmp);
    {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)?;
        f.write_all(text.as_bytes())?;
    }
    let linked = std::fs::hard_link(&tmp, path);
    let _ = std::fs::remove_file(&tmp);
    match linked {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(e),
    }
}

fn random_u64() -> u64 {
    let mut b = [0u8; 8];
    getrandom::fill(&mut b).expect("the system's random generator");
    u64::from_be_bytes(b)
}

/// Lower-case hex of `b`.
pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// 32 bytes from 64 hex digits.
pub fn unhex(s: &str) -> Option<[u8; 32]> {
    let s = s.trim();
    if s.len() != 64 || !s.is_ascii() {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, o) in out.iter_mut().enumerate() {
        *o = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}

/// One direction's cipher.
pub enum Cipher {
    /// AES-256-GCM.
    Aes(Box<LessSafeKey>),
    /// No encryption and no tag (`--insecure`).
    Null,
}

impl Cipher {
    fn new(key: &[u8; 32], insecure: bool) -> Cipher {
        if insecure {
            Cipher::Null
        } else {
            Cipher::Aes(Box::new(LessSafeKey::new(
                UnboundKey::new(&AES_256_GCM, key).expect("a 32-byte key"),
            )))
        }
    }

    fn tag_len(&self) -> usize {
        match self {
            Cipher::Aes(_) => TAG_LEN,
            Cipher::Null => 0,
        }
    }
}

/// A connection's two ciphers and its id.
pub struct Keys {
    /// The connection id the server chose.
    pub cid: u64,
    /// The handshake's hash (Noise's `h` at its end): both ends hold the
    /// same 32 bytes, unique to this handshake, so a signature over them
    /// binds its signer to this connection and no other
    /// ([`ClientKey::prove`]).
    pub binding: [u8; 32],
    send: Cipher,
    recv: Cipher,
}

impl std::fmt::Debug for Keys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Keys({:016x})", self.cid)
    }
}

fn nonce(path: u16, pn: u64) -> Nonce {
    let mut n = [0u8; 12];
    n[2..4].copy_from_slice(&path.to_be_bytes());
    n[4..].copy_from_slice(&pn.to_be_bytes());
    Nonce::assume_unique_for_key(n)
}

/// Why a sealed datagram was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpenError {
    /// Too short, or not a sealed datagram.
    Malformed,
    /// The tag did not verify: forged or corrupted.
    Forged,
}

/// Packet numbers are 48 bits on the wire.
pub const MAX_PN: u64 = (1 << 48) - 1;

/// The connection id of a sealed datagram, read without opening it.
pub fn sealed_cid(d: &[u8]) -> Option<u64> {
    if d.len() < HEADER_LEN || !is_sealed(d) {
        return None;
    }
    Some(u64::from_be_bytes(d[1..9].try_into().expect("8 bytes")))
}

impl Keys {
    /// Space to leave in front of a plaintext for [`Keys::seal`].
    pub const HEADER: usize = HEADER_LEN;

    /// Bytes sealing adds after the plaintext.
    pub fn tag_len(&self) -> usize {
        self.send.tag_len()
    }

    /// True when the connection runs without encryption.
    pub fn insecure(&self) -> bool {
        matches!(self.send, Cipher::Null)
    }

    /// Seals `buf`, whose first [`HEADER_LEN`] bytes are room for the
    /// header and the rest the plaintext, as packet `pn` of `path`: writes
    /// the header, encrypts in place and appends the tag.
    pub fn seal(&self, path: u16, pn: u64, buf: &mut Vec<u8>) {
        debug_assert!(pn <= MAX_PN);
        buf[0] = first_byte(SEALED_TYPE);
        buf[1..9].copy_from_slice(&self.cid.to_be_bytes());
        buf[9..11].copy_from_slice(&path.to_be_bytes());
        buf[11..17].copy_from_slice(&pn.to_be_bytes()[2..]);
        if let Cipher::Aes(key) = &self.send {
            let (head, body) = buf.split_at_mut(HEADER_LEN);
            let tag = key
                .seal_in_place_separate_tag(nonce(path, pn), Aad::from(&head[..]), body)
                .expect("a datagram is far below AES-GCM's limit");
            buf.extend_from_slice(tag.as_ref());
        }
    }

    /// Opens sealed datagram `d` in place: its path, packet number and
    /// plaintext. The caller checks the packet number against the path's
    /// [`ReplayWindow`].
    pub fn open<'a>(&self, d: &'a mut [u8]) -> Result<(u16, u64, &'a mut [u8]), OpenError> {
        if d.len() < HEADER_LEN + self.recv.tag_len() || !is_sealed(d) {
            return Err(OpenError::Malformed);
        }
        let path = u16::from_be_bytes([d[9], d[10]]);
        let mut pn = [0u8; 8];
        pn[2..].copy_from_slice(&d[11..17]);
        let pn = u64::from_be_bytes(pn);
        let (head, body) = d.split_at_mut(HEADER_LEN);
        let plain = match &self.recv {
            Cipher::Aes(key) => key
                .open_in_place(nonce(path, pn), Aad::from(&head[..]), body)
                .map_err(|_| OpenError::Forged)?,
            Cipher::Null => body,
        };
        Ok((path, pn, plain))
    }
}

/// The packet numbers one path received, to drop replays: the highest seen
/// and a window of the [`ReplayWindow::SIZE`] before it (as IPsec and
/// WireGuard keep).
#[derive(Clone, Debug)]
pub struct ReplayWindow {
    /// One past the highest packet number accepted.
    top: u64,
    bits: [u64; Self::WORDS],
}

impl Default for ReplayWindow {
    fn default() -> Self {
        ReplayWindow {
            top: 0,
            bits: [0; Self::WORDS],
        }
    }
}

impl ReplayWindow {
    const WORDS: usize = 32;
    /// Packet numbers remembered below the highest.
    pub const SIZE: u64 = 64 * Self::WORDS as u64;

    fn bit(pn: u64) -> (usize, u64) {
        (((pn / 64) as usize) % Self::WORDS, 1 << (pn % 64))
    }

    /// Furthest a packet number may lead the highest accepted on a
    /// connection without encryption, where anyone can forge one: a forged
    /// number far ahead would otherwise make every later real one look
    /// old. (With encryption only the peer can make a number that opens.)
    pub const MAX_JUMP_INSECURE: u64 = 1 << 16;

    /// True when `pn` is new: not seen, not too old, and (with
    /// `insecure`) not more than [`ReplayWindow::MAX_JUMP_INSECURE`] ahead.
    /// Nothing is recorded: [`ReplayWindow::record`] does that once the
    /// datagram has passed every other check.
    pub fn is_new(&self, pn: u64, insecure: bool) -> bool {
        if pn + Self::SIZE < self.top {
            return false;
        }
        if insecure && pn > self.top.saturating_add(Self::MAX_JUMP_INSECURE) {
            return false;
        }
        if pn >= self.top {
            return true;
        }
        let (i, m) = Self::bit(pn);
        self.bits[i] & m == 0
    }

    /// Accepts `pn` if it is new (not seen, and not too old); records it.
    pub fn accept(&mut self, pn: u64) -> bool {
        if !self.is_new(pn, false) {
            return false;
        }
        self.record(pn);
        true
    }

    /// Records `pn` as seen (a datagram that passed every check).
    pub fn record(&mut self, pn: u64) {
        if pn + Self::SIZE < self.top {
            return;
        }
        if pn >= self.top {
            // Clear the words the window slides onto past the highest word
            // in use (at most the whole window).
            if self.top > 0 {
                let last = (self.top - 1) / 64;
                let new = pn / 64;
                let mut w = last + 1;
                while w <= new && w <= last + Self::WORDS as u64 {
                    self.bits[(w as usize) % Self::WORDS] = 0;
                    w += 1;
                }
            }
            self.top = pn + 1;
        }
        let (i, m) = Self::bit(pn);
        self.bits[i] |= m;
    }
}

/// The client's side of a handshake in progress.
pub struct ClientHandshake {
    hs: snow::HandshakeState,
    tag: [u8; 8],
}

/// What a completed handshake gives the client.
pub struct Established {
    /// The connection's keys.
    pub keys: Keys,
    /// The server's static public key.
    pub server_key: [u8; 32],
}

/// Why a handshake failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HandshakeError {
    /// Not a handshake message of the expected kind.
    Malformed,
    /// The Noise handshake failed (forged or corrupted).
    Noise,
    /// The server refused a connection without encryption.
    InsecureRefused,
}

impl ClientHandshake {
    /// Starts a handshake; the HELLO to send. `insecure` asks for no
    /// encryption.
    pub fn start(insecure: bool) -> (ClientHandshake, Vec<u8>) {
        let mut hs = snow::Builder::new(noise())
            .build_initiator()
            .expect("the NX initiator needs no key");
        let mut tag = [0u8; 8];
        getrandom::fill(&mut tag).expect("the system's random generator");
        let flags = if insecure { FLAG_INSECURE } else { 0 };
        let mut msg = [0u8; 128];
        let n = hs.write_message(&[flags], &mut msg).expect("message 1");
        let mut d = Vec::with_capacity(HELLO_LEN);
        d.push(first_byte(HANDSHAKE_TYPE));
        d.push(HELLO);
        d.extend_from_slice(&tag);
        d.extend_from_slice(&(n as u16).to_be_bytes());
        d.extend_from_slice(&msg[..n]);
        d.resize(HELLO_LEN, 0);
        (ClientHandshake { hs, tag }, d)
    }

    /// If `d` is a RETRY for this handshake, `hello` (its HELLO) again with
    /// the token in it, to send instead.
    pub fn with_token(&self, hello: &[u8], d: &[u8]) -> Option<Vec<u8>> {
        if d.len() != 10 + TOKEN_LEN || !is_handshake(d) || d[1] != RETRY || d[2..10] != self.tag {
            return None;
        }
        let n = usize::from(u16::from_be_bytes([hello[10], hello[11]]));
        let mut h = hello.to_vec();
        let at = 12 + n;
        h[at] = TOKEN_MARK;
        h[at + 1..at + 1 + TOKEN_LEN].copy_from_slice(&d[10..]);
        Some(h)
    }

    /// True when `d` is the reply to this handshake's HELLO.
    pub fn is_reply(&self, d: &[u8]) -> bool {
        d.len() > 12 && is_handshake(d) && d[1] == REPLY && d[2..10] == self.tag
    }

    /// Completes the handshake with the server's REPLY.
    pub fn finish(mut self, d: &[u8]) -> Result<Established, HandshakeError> {
        if !self.is_reply(d) {
            return Err(HandshakeError::Malformed);
        }
        let n = usize::from(u16::from_be_bytes([d[10], d[11]]));
        let msg = d.get(12..12 + n).ok_or(HandshakeError::Malformed)?;
        let mut payload = [0u8; 64];
        let p = self
            .hs
            .read_message(msg, &mut payload)
            .map_err(|_| HandshakeError::Noise)?;
        if p != 9 {
            return Err(HandshakeError::Malformed);
        }
        let cid = u64::from_be_bytes(payload[..8].try_into().expect("8 bytes"));
        let insecure = payload[8] & FLAG_INSECURE != 0;
        let server_key: [u8; 32] = self
            .hs
            .get_remote_static()
            .and_then(|k| k.try_into().ok())
            .ok_or(HandshakeError::Noise)?;
        let binding = binding_of(&self.hs);
        let (c2s, s2c) = self.hs.dangerously_get_raw_split();
        Ok(Established {
            keys: Keys {
                cid,
                binding,
                send: Cipher::new(&c2s, insecure),
                recv: Cipher::new(&s2c, insecure),
            },
            server_key,
        })
    }
}

/// The HELLO's tag (the client's handshake id), if `d` is a HELLO.
pub fn hello_tag(d: &[u8]) -> Option<[u8; 8]> {
    if d.len() >= HELLO_LEN && is_handshake(d) && d[1] == HELLO {
        d[2..10].try_into().ok()
    } else {
        None
    }
}

/// The token in a HELLO, if it carries one.
pub fn hello_token(d: &[u8]) -> Option<[u8; TOKEN_LEN]> {
    hello_tag(d)?;
    let n = usize::from(u16::from_be_bytes([d[10], d[11]]));
    let at = 12 + n;
    if d.get(at) != Some(&TOKEN_MARK) {
        return None;
    }
    d.get(at + 1..at + 1 + TOKEN_LEN)?.try_into().ok()
}

/// The server's key for retry tokens: a HELLO from an address that has
/// not shown it receives there costs the server a key agreement, so under
/// load the server first answers with a RETRY carrying a token only that
/// address can return (as QUIC's Retry, RFC 9000 §8.1.2), and does the key
/// agreement only for a HELLO that brings it back.
pub struct RetryKey(ring::hmac::Key);

impl Default for RetryKey {
    fn default() -> Self {
        let mut k = [0u8; 32];
        getrandom::fill(&mut k).expect("the system's random generator");
        RetryKey(ring::hmac::Key::new(ring::hmac::HMAC_SHA256, &k))
    }
}

impl RetryKey {
    fn mac(&self, peer: std::net::SocketAddr, tag: &[u8; 8], issued: u64) -> [u8; 16] {
        let mut ctx = ring::hmac::Context::with_key(&self.0);
        match peer.ip() {
            std::net::IpAddr::V4(a) => ctx.update(&a.octets()),
            std::net::IpAddr::V6(a) => ctx.update(&a.octets()),
        }
        ctx.update(&peer.port().to_be_bytes());
        ctx.update(tag);
        ctx.update(&issued.to_be_bytes());
        ctx.sign().as_ref()[..16]
            .try_into()
            .expect("16 of 32 bytes")
    }

    /// A token for the handshake `tag` from `peer`, issued at `now_s`
    /// (seconds on any clock the server keeps).
    pub fn token(&self, peer: std::net::SocketAddr, tag: &[u8; 8], now_s: u64) -> [u8; TOKEN_LEN] {
        let mut t = [0u8; TOKEN_LEN];
        t[..8].copy_from_slice(&now_s.to_be_bytes());
        t[8..].copy_from_slice(&self.mac(peer, tag, now_s));
        t
    }

    /// True when `token` was issued to `peer` for `tag` less than
    /// [`TOKEN_LIFE`] seconds before `now_s`.
    pub fn check(
        &self,
        token: &[u8; TOKEN_LEN],
        peer: std::net::SocketAddr,
        tag: &[u8; 8],
        now_s: u64,
    ) -> bool {
        let issued = u64::from_be_bytes(token[..8].try_into().expect("8 bytes"));
        let fresh = issued <= now_s && now_s - issued < TOKEN_LIFE;
        let mac = self.mac(peer, tag, issued);
        use subtle::ConstantTimeEq;
        fresh && bool::from(mac.ct_eq(&token[8..]))
    }
}

/// The RETRY answering the HELLO `tag` with `token`.
pub fn retry(tag: [u8; 8], token: &[u8; TOKEN_LEN]) -> Vec<u8> {
    let mut d = Vec::with_capacity(10 + TOKEN_LEN);
    d.push(first_byte(HANDSHAKE_TYPE));
    d.push(RETRY);
    d.extend_from_slice(&tag);
    d.extend_from_slice(token);
    d
}

/// The server's side: answers a HELLO with the connection id `cid`.
/// `allow_insecure` lets a client that asks for it run without encryption.
/// The keys and the REPLY to send.
pub fn respond(
    id: &Identity,
    hello: &[u8],
    cid: u64,
    allow_insecure: bool,
) -> Result<(Keys, Vec<u8>), HandshakeError> {
    let tag = hello_tag(hello).ok_or(HandshakeError::Malformed)?;
    let n = usize::from(u16::from_be_bytes([hello[10], hello[11]]));
    let msg = hello.get(12..12 + n).ok_or(HandshakeError::Malformed)?;
    let mut hs = snow::Builder::new(noise())
        .local_private_key(&id.private)
        .map_err(|_| HandshakeError::Noise)?
        .build_responder()
        .map_err(|_| HandshakeError::Noise)?;
    let mut payload = [0u8; 64];
    let p = hs
        .read_message(msg, &mut payload)
        .map_err(|_| HandshakeError::Noise)?;
    if p != 1 {
        return Err(HandshakeError::Malformed);
    }
    let insecure = payload[0] & FLAG_INSECURE != 0;
    if insecure && !allow_insecure {
        return Err(HandshakeError::InsecureRefused);
    }
    let mut out = [0u8; 9];
    out[..8].copy_from_slice(&cid.to_be_bytes());
    out[8] = if insecure { FLAG_INSECURE } else { 0 };
    let mut msg2 = [0u8; 256];
    let m = hs
        .write_message(&out, &mut msg2)
        .map_err(|_| HandshakeError::Noise)?;
    let binding = binding_of(&hs);
    let (c2s, s2c) = hs.dangerously_get_raw_split();
    let mut d = Vec::with_capacity(12 + m);
    d.push(first_byte(HANDSHAKE_TYPE));
    d.push(REPLY);
    d.extend_from_slice(&tag);
    d.extend_from_slice(&(m as u16).to_be_bytes());
    d.extend_from_slice(&msg2[..m]);
    Ok((
        Keys {
            cid,
            binding,
            send: Cipher::new(&s2c, insecure),
            recv: Cipher::new(&c2s, insecure),
        },
        d,
    ))
}

/// The handshake hash of a finished handshake (SHA-256: 32 bytes).
fn binding_of(hs: &snow::HandshakeState) -> [u8; 32] {
    hs.get_handshake_hash()
        .try_into()
        .expect("the handshake hash of SHA-256 is 32 bytes")
}

mod client_key;
pub use client_key::{ClientKey, ClientProof};

#[cfg(test)]
mod tests;
