//! Tests of the handshake, sealing, replay windows, retry tokens and
//! server identities.

use super::*;

fn pair(insecure: bool) -> (Keys, Keys, [u8; 32]) {
    let id = Identity::generate();
    let (hs, hello) = ClientHandshake::start(insecure);
    assert_eq!(hello.len(), HELLO_LEN);
    let (server, reply) = respond(&id, &hello, 42, true).unwrap();
    assert!(reply.len() * 3 <= hello.len(), "no amplification");
    let e = hs.finish(&reply).unwrap();
    assert_eq!(e.keys.cid, 42);
    (e.keys, server, e.server_key)
}

fn sealed(keys: &Keys, path: u16, pn: u64, text: &[u8]) -> Vec<u8> {
    let mut b = vec![0u8; HEADER_LEN];
    b.extend_from_slice(text);
    keys.seal(path, pn, &mut b);
    b
}

#[test]
fn a_handshake_authenticates_the_server_and_keys_both_directions() {
    let id = Identity::generate();
    let (hs, hello) = ClientHandshake::start(false);
    let (server, reply) = respond(&id, &hello, 7, false).unwrap();
    let client = hs.finish(&reply).unwrap();
    assert_eq!(client.server_key, id.public());
    let mut d = sealed(&client.keys, 3, 9, b"GET");
    assert_eq!(sealed_cid(&d), Some(7));
    assert_ne!(&d[HEADER_LEN..HEADER_LEN + 3], b"GET", "encrypted");
    let (path, pn, text) = server.open(&mut d).unwrap();
    assert_eq!((path, pn, &text[..]), (3, 9, &b"GET"[..]));
    let mut back = sealed(&server, 3, 1, b"OFFER");
    assert_eq!(client.keys.open(&mut back).unwrap().2, b"OFFER");
    // Both ends hold the handshake's binding, and no other handshake has it.
    assert_eq!(client.keys.binding, server.binding);
    let (other, _, _) = pair(false);
    assert_ne!(other.binding, server.binding);
}

#[test]
fn forged_and_corrupted_datagrams_do_not_open() {
    let (client, server, _) = pair(false);
    let d = sealed(&client, 1, 5, b"a request");
    for i in 0..d.len() {
        let mut bad = d.clone();
        bad[i] ^= 0x20;
        assert!(server.open(&mut bad).is_err(), "byte {i} flipped");
    }
    // Sealed under another connection's keys.
    let (other, _, _) = pair(false);
    let mut forged = sealed(&other, 1, 5, b"a request");
    forged[1..9].copy_from_slice(&client.cid.to_be_bytes());
    assert_eq!(server.open(&mut forged), Err(OpenError::Forged));
    assert_eq!(server.open(&mut [0u8; 3]), Err(OpenError::Malformed));
}

#[test]
fn insecure_connections_carry_plaintext_only_when_both_allow_it() {
    let (client, server, _) = pair(true);
    assert!(client.insecure() && server.insecure());
    let mut d = sealed(&client, 0, 1, b"clear");
    assert_eq!(d.len(), HEADER_LEN + 5);
    assert_eq!(server.open(&mut d).unwrap().2, b"clear");
    let (_, hello) = ClientHandshake::start(true);
    assert_eq!(
        respond(&Identity::generate(), &hello, 1, false).err(),
        Some(HandshakeError::InsecureRefused)
    );
}

#[test]
fn a_reply_to_another_hello_or_a_forged_one_fails() {
    let id = Identity::generate();
    let (a, _) = ClientHandshake::start(false);
    let (_, hello_b) = ClientHandshake::start(false);
    let (_, reply_b) = respond(&id, &hello_b, 1, false).unwrap();
    assert!(!a.is_reply(&reply_b));
    let (c, hello_c) = ClientHandshake::start(false);
    let (_, mut reply_c) = respond(&id, &hello_c, 1, false).unwrap();
    let last = reply_c.len() - 1;
    reply_c[last] ^= 1;
    assert!(c.finish(&reply_c).is_err());
    assert!(respond(&id, &hello_c[..100], 1, false).is_err(), "short");
}

#[test]
fn a_retry_token_comes_back_only_from_its_address_in_time() {
    let key = RetryKey::default();
    let a: std::net::SocketAddr = "127.0.0.1:5000".parse().unwrap();
    let b: std::net::SocketAddr = "127.0.0.2:5000".parse().unwrap();
    let (hs, hello) = ClientHandshake::start(false);
    let tag = hello_tag(&hello).unwrap();
    assert_eq!(hello_token(&hello), None);
    let t = key.token(a, &tag, 100);
    let with = hs.with_token(&hello, &retry(tag, &t)).unwrap();
    assert_eq!(with.len(), HELLO_LEN);
    assert_eq!(hello_token(&with), Some(t));
    assert!(key.check(&t, a, &tag, 100) && key.check(&t, a, &tag, 109));
    assert!(!key.check(&t, a, &tag, 110), "expired");
    assert!(!key.check(&t, b, &tag, 100), "another address");
    assert!(!key.check(&t, a, &[0; 8], 100), "another handshake");
    assert!(
        !RetryKey::default().check(&t, a, &tag, 100),
        "another server"
    );
    // The HELLO with its token still completes the handshake.
    let id = Identity::generate();
    let (_, reply) = respond(&id, &with, 3, false).unwrap();
    assert!(hs.finish(&reply).is_ok());
    let (other, _) = ClientHandshake::start(false);
    assert!(
        other.with_token(&hello, &retry(tag, &t)).is_none(),
        "not ours"
    );
}

#[test]
fn the_replay_window_accepts_each_number_once_and_forgets_the_old() {
    let mut w = ReplayWindow::default();
    assert!(w.accept(0));
    assert!(!w.accept(0));
    assert!(w.accept(5));
    assert!(w.accept(3), "late but new");
    assert!(!w.accept(3));
    assert!(w.accept(10_000));
    assert!(!w.accept(10_000 - ReplayWindow::SIZE - 1), "too old");
    assert!(w.accept(10_000 - 100));
    assert!(!w.accept(10_000 - 100));
    // Sliding far ahead clears what it passes.
    assert!(w.accept(1_000_000));
    assert!(w.accept(1_000_000 - 64));
    for pn in 1_000_001..1_010_000 {
        assert!(w.accept(pn));
    }
}

#[test]
fn checking_records_nothing_and_insecure_numbers_cannot_leap() {
    let mut w = ReplayWindow::default();
    assert!(w.accept(10));
    assert!(w.is_new(1 << 40, false));
    assert!(!w.is_new(1 << 40, true), "a leap, unauthenticated");
    assert!(w.is_new(11 + ReplayWindow::MAX_JUMP_INSECURE - 1, true));
    // Checked only: the window did not move.
    assert!(w.is_new(11, true));
    w.record(11);
    assert!(!w.is_new(11, false));
}

#[test]
fn identities_persist() {
    let p = std::env::temp_dir().join(format!("radial-key-{}", std::process::id()));
    let _ = std::fs::remove_file(&p);
    let a = Identity::load_or_create(&p).unwrap();
    let b = Identity::load_or_create(&p).unwrap();
    assert_eq!(a.public(), b.public());
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&p).unwrap().permissions().mode() & 0o777,
        0o600
    );
    std::fs::write(&p, "nonsense").unwrap();
    assert!(Identity::load_or_create(&p).is_err());
    let _ = std::fs::remove_file(&p);
    // Created by several at once: one key for all.
    let keys: Vec<[u8; 32]> = (0..8)
        .map(|_| {
            let p = p.clone();
            std::thread::spawn(move || Identity::load_or_create(&p).unwrap().public())
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|h| h.join().unwrap())
        .collect();
    assert!(keys.iter().all(|k| *k == keys[0]));
    let _ = std::fs::remove_file(&p);
}
