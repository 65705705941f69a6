//! Several small datagrams in one: a client's RCP requests for one path,
//! produced in one turn of its event loop, travel as one sealed datagram
//! (as QUIC puts several frames in one packet). One system call, one seal
//! and one open per bundle instead of per request.
//!
//! ```text
//! +--------+------ 16 ------+-----------+------ 16 ------+-----------+ ...
//! |ver|6   |  length        | datagram  |  length        | datagram  |
//! +--------+----------------+-----------+----------------+-----------+ ...
//! ```

/// Wire type of a bundle (the low nibble of the first byte).
pub const BUNDLE_TYPE: u8 = 6;
/// Most bytes a bundle grows to (it must fit one datagram with the sealed
/// header and tag).
pub const MAX_BUNDLE: usize = 1200;

fn first_byte() -> u8 {
    crate::session::VERSION << 4 | BUNDLE_TYPE
}

/// True when `d` claims to be a bundle.
pub fn is_bundle(d: &[u8]) -> bool {
    d.first() == Some(&first_byte())
}

/// Appends datagram `d` to bundle `b` (started if empty); false when it
/// would grow past [`MAX_BUNDLE`] (nothing appended).
pub fn push(b: &mut Vec<u8>, d: &[u8]) -> bool {
    let extra = 2 + d.len() + usize::from(b.is_empty());
    if b.len() + extra > MAX_BUNDLE || d.len() > usize::from(u16::MAX) {
        return false;
    }
    if b.is_empty() {
        b.push(first_byte());
    }
    b.extend_from_slice(&(d.len() as u16).to_be_bytes());
    b.extend_from_slice(d);
    true
}

/// The datagrams in bundle `b`, or `None` when it is malformed (a length
/// running past the end).
pub fn split(b: &[u8]) -> Option<Vec<&[u8]>> {
    if !is_bundle(b) {
        return None;
    }
    let mut rest = &b[1..];
    let mut out = Vec::new();
    while !rest.is_empty() {
        if rest.len() < 2 {
            return None;
        }
        let n = usize::from(u16::from_be_bytes([rest[0], rest[1]]));
        let d = rest.get(2..2 + n)?;
        out.push(d);
        rest = &rest[2 + n..];
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundles_round_trip_and_stop_at_their_size() {
        let mut b = Vec::new();
        let mut put = Vec::new();
        for i in 0..100u8 {
            let d = vec![i; 20 + usize::from(i % 3) * 12];
            if !push(&mut b, &d) {
                break;
            }
            put.push(d);
        }
        assert!(b.len() <= MAX_BUNDLE && put.len() > 10);
        let got = split(&b).unwrap();
        assert_eq!(got, put.iter().map(Vec::as_slice).collect::<Vec<_>>());
        assert!(split(&b[..b.len() - 1]).is_none(), "truncated");
        assert!(split(&[0x10]).is_none(), "not a bundle");
        for n in 0..b.len() {
            let _ = split(&b[..n]);
        }
    }
}
