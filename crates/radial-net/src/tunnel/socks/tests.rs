use super::*;
use proptest::prelude::*;

/// Feeds `bytes` whole; returns the outcome, what was read, and the output.
fn run(bytes: &[u8]) -> (Result<(Progress, usize), SocksError>, Vec<u8>) {
    let mut h = Handshake::new();
    let r = h.input(bytes);
    (r, h.take_output())
}

fn greeting() -> Vec<u8> {
    vec![VERSION, 1, NO_AUTH]
}

fn domain(host: &str, port: u16) -> Destination {
    Destination::Domain {
        host: host.into(),
        port,
    }
}

#[test]
fn curl_socks5_hostname_gets_its_name_and_port() {
    // What `curl --socks5-hostname` sends: a greeting offering no
    // authentication (and username/password), then CONNECT by name.
    let mut bytes = vec![VERSION, 2, NO_AUTH, 0x02];
    bytes.extend(domain("example.com", 443).connect_request().unwrap());
    let (r, out) = run(&bytes);
    assert_eq!(
        r,
        Ok((Progress::Connect(domain("example.com", 443)), bytes.len()))
    );
    assert_eq!(out, [VERSION, NO_AUTH], "no authentication chosen");
}

#[test]
fn ipv4_and_ipv6_destinations() {
    for a in ["192.0.2.7:80", "[2001:db8::5]:8080"] {
        let d = Destination::Addr(a.parse().unwrap());
        let mut bytes = greeting();
        bytes.extend(d.connect_request().unwrap());
        assert_eq!(run(&bytes).0, Ok((Progress::Connect(d), bytes.len())));
    }
}

#[test]
fn bytes_after_the_request_are_left_for_the_connection() {
    let mut bytes = greeting();
    bytes.extend(domain("a.example", 80).connect_request().unwrap());
    let n = bytes.len();
    bytes.extend_from_slice(b"GET / HTTP/1.1\r\n");
    let mut h = Handshake::new();
    assert_eq!(
        h.input(&bytes),
        Ok((Progress::Connect(domain("a.example", 80)), n))
    );
    // Once connected, nothing more is read.
    assert_eq!(h.input(b"more"), Ok((Progress::More, 0)));
}

#[test]
fn a_handshake_in_single_bytes_comes_to_the_same() {
    let mut bytes = greeting();
    bytes.extend(domain("example.org", 8443).connect_request().unwrap());
    let mut h = Handshake::new();
    let mut out = Vec::new();
    for (i, b) in bytes.iter().enumerate() {
        let r = h.input(std::slice::from_ref(b)).unwrap();
        out.extend(h.take_output());
        if i + 1 < bytes.len() {
            assert_eq!(r, (Progress::More, 1), "byte {i}");
        } else {
            assert_eq!(r, (Progress::Connect(domain("example.org", 8443)), 1));
        }
    }
    assert_eq!(out, [VERSION, NO_AUTH]);
}

#[test]
fn refusals_name_what_and_answer_as_rfc_1928_says() {
    // A SOCKS4 client: no SOCKS5 answer at all.
    let (r, out) = run(&[4, 1, 0, 80, 127, 0, 0, 1, 0]);
    assert_eq!(r, Err(SocksError::Version(4)));
    assert!(out.is_empty());
    // Only username/password offered: "no acceptable methods".
    let (r, out) = run(&[VERSION, 1, 0x02]);
    assert_eq!(r, Err(SocksError::NoAcceptableMethod));
    assert_eq!(out, [VERSION, NO_ACCEPTABLE]);
    // No method at all.
    assert_eq!(
        run(&[VERSION, 0]).0,
        Err(SocksError::Invalid { field: "NMETHODS" })
    );
    let request = |cmd: u8, rsv: u8, atyp: u8, rest: &[u8]| {
        let mut b = greeting();
        b.extend_from_slice(&[VERSION, cmd, rsv, atyp]);
        b.extend_from_slice(rest);
        run(&b)
    };
    let refused = |code: Reply| {
        let mut b = vec![VERSION, NO_AUTH];
        b.extend(code.encode("0.0.0.0:0".parse().unwrap()));
        b
    };
    // BIND and UDP ASSOCIATE: "command not supported".
    for cmd in [0x02, 0x03, 0x09] {
        let (r, out) = request(cmd, 0, ATYP_V4, &[1, 2, 3, 4, 0, 80]);
        assert_eq!(r, Err(SocksError::Command(cmd)));
        assert_eq!(out, refused(Reply::CommandNotSupported));
    }
    // An unknown address type.
    let (r, out) = request(CMD_CONNECT, 0, 0x02, &[]);
    assert_eq!(r, Err(SocksError::AddressType(0x02)));
    assert_eq!(out, refused(Reply::AddressTypeNotSupported));
    // Reserved byte set, empty name, a name with a space or a NUL, port 0.
    for (rsv, atyp, rest, field) in [
        (1, ATYP_V4, &[1, 2, 3, 4, 0, 80][..], "RSV"),
        (0, ATYP_DOMAIN, &[0][..], "DST.ADDR"),
        (
            0,
            ATYP_DOMAIN,
            &[3, b'a', b' ', b'b', 0, 80][..],
            "DST.ADDR",
        ),
        (0, ATYP_DOMAIN, &[2, b'a', 0, 0, 80][..], "DST.ADDR"),
        (0, ATYP_V4, &[1, 2, 3, 4, 0, 0][..], "DST.PORT"),
    ] {
        let (r, out) = request(CMD_CONNECT, rsv, atyp, rest);
        assert_eq!(r, Err(SocksError::Invalid { field }), "{field}");
        assert_eq!(out, refused(Reply::GeneralFailure));
    }
}

#[test]
fn replies_carry_the_bound_address() {
    assert_eq!(
        Reply::Succeeded.encode("10.0.0.2:40000".parse().unwrap()),
        [VERSION, 0, 0, ATYP_V4, 10, 0, 0, 2, 0x9c, 0x40]
    );
    let v6 = Reply::HostUnreachable.encode("[::1]:1".parse().unwrap());
    assert_eq!(v6.len(), 4 + 16 + 2);
    assert_eq!(&v6[..4], &[VERSION, 4, 0, ATYP_V6]);
    for code in 0..=8 {
        assert_eq!(Reply::from_code(code).map(|r| r as u8), Some(code));
    }
    assert_eq!(Reply::from_code(9), None);
}

#[test]
fn a_reply_parses_back_once_whole_and_a_request_alone_is_read_past_its_greeting() {
    for bound in ["192.0.2.1:80", "[2001:db8::1]:443"] {
        let r = Reply::ConnectionRefused.encode(bound.parse().unwrap());
        assert_eq!(
            parse_reply(&r),
            Ok(Some((Reply::ConnectionRefused, r.len())))
        );
        assert_eq!(parse_reply(&r[..r.len() - 1]), Ok(None));
        let mut more = r.clone();
        more.extend_from_slice(b"payload");
        assert_eq!(
            parse_reply(&more),
            Ok(Some((Reply::ConnectionRefused, r.len())))
        );
    }
    assert_eq!(parse_reply(&[4, 0]), Err(SocksError::Version(4)));
    assert_eq!(
        parse_reply(&[5, 9, 0, 1]),
        Err(SocksError::Invalid { field: "REP" })
    );
    assert_eq!(parse_reply(&[5, 0, 0, 3]), Err(SocksError::AddressType(3)));
    // The tunnel's server reads the request without a greeting.
    let want = domain("example.org", 443);
    let mut h = Handshake::at_request();
    let req = want.connect_request().unwrap();
    assert_eq!(h.input(&req), Ok((Progress::Connect(want), req.len())));
    assert!(h.take_output().is_empty(), "nothing to answer yet");
}

#[test]
fn a_name_longer_than_socks_carries_has_no_request() {
    assert!(domain(&"a".repeat(256), 80).connect_request().is_none());
    let longest = domain(&"a".repeat(255), 80).connect_request().unwrap();
    assert_eq!(longest.len(), MAX_REQUEST);
}

fn destination() -> impl Strategy<Value = Destination> {
    prop_oneof![
        (any::<[u8; 4]>(), 1..=u16::MAX).prop_map(|(o, p)| Destination::Addr(SocketAddr::new(
            IpAddr::V4(Ipv4Addr::from(o)),
            p
        ))),
        (any::<[u8; 16]>(), 1..=u16::MAX).prop_map(|(o, p)| Destination::Addr(SocketAddr::new(
            IpAddr::V6(Ipv6Addr::from(o)),
            p
        ))),
        ("[!-~]{1,255}", 1..=u16::MAX).prop_map(|(host, port)| Destination::Domain { host, port }),
    ]
}

proptest! {
    /// Every destination's request comes back as itself, however the
    /// bytes are cut, and the bytes after it are left unread.
    #[test]
    fn every_request_parses_back_whatever_the_pieces(
        d in destination(),
        cuts in proptest::collection::vec(0usize..300, 0..6),
        tail in proptest::collection::vec(any::<u8>(), 0..16),
    ) {
        let mut bytes = greeting();
        bytes.extend(d.connect_request().unwrap());
        let len = bytes.len();
        bytes.extend(&tail);
        let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % (bytes.len() + 1)).collect();
        cuts.sort_unstable();
        let mut h = Handshake::new();
        let mut at = 0;
        let mut connected = None;
        for end in cuts.into_iter().chain([bytes.len()]) {
            let (p, n) = h.input(&bytes[at..end.max(at)]).unwrap();
            at += n;
            if let Progress::Connect(got) = p {
                connected = Some(got);
            }
            if connected.is_some() {
                break;
            }
            prop_assert_eq!(at, end.max(at), "a piece not wholly read before the request ended");
        }
        prop_assert_eq!(connected, Some(d));
        prop_assert_eq!(at, len);
    }

    /// Arbitrary bytes: no panic, never more read than given, output only
    /// what RFC 1928 lets a server send.
    #[test]
    fn garbage_is_read_or_refused_never_more(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        let mut h = Handshake::new();
        if let Ok((_, n)) = h.input(&bytes) {
            prop_assert!(n <= bytes.len());
        }
        let out = h.take_output();
        prop_assert!(out.is_empty() || out[0] == VERSION);
        prop_assert!(out.len() <= 2 + 4 + 16 + 2);
    }
}
