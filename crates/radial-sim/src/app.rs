//! Applications at the ends of a flow: a source that writes a verifiable byte
//! pattern and a sink that reads and checks it, so every run proves that the
//! application got exactly the bytes sent, in order, once.

/// The byte at stream offset `o` is byte `o % 8` of the little-endian word
/// `(o / 8) ^ salt`: cheap to make and check a word at a time, and any
/// misplaced, repeated or skipped run of bytes changes it.
pub fn fill_pattern(salt: u64, offset: u64, out: &mut [u8]) {
    let head = (((8 - offset % 8) % 8) as usize).min(out.len());
    for (i, b) in out[..head].iter_mut().enumerate() {
        *b = pattern_byte(salt, offset + i as u64);
    }
    let mut word = (offset + head as u64) / 8;
    let mut chunks = out[head..].chunks_exact_mut(8);
    for c in &mut chunks {
        c.copy_from_slice(&(word ^ salt).to_le_bytes());
        word += 1;
    }
    for (i, b) in chunks.into_remainder().iter_mut().enumerate() {
        *b = pattern_byte(salt, word * 8 + i as u64);
    }
}

fn pattern_byte(salt: u64, o: u64) -> u8 {
    ((o / 8) ^ salt).to_le_bytes()[(o % 8) as usize]
}

/// True when `data` is the pattern at `offset`.
pub fn check_pattern(salt: u64, offset: u64, data: &[u8]) -> bool {
    let head = (((8 - offset % 8) % 8) as usize).min(data.len());
    if data[..head]
        .iter()
        .enumerate()
        .any(|(i, &b)| b != pattern_byte(salt, offset + i as u64))
    {
        return false;
    }
    let first = (offset + head as u64) / 8;
    let mut chunks = data[head..].chunks_exact(8);
    // Fold the differences without a branch per word, so the loop vectorises.
    let mut diff = 0u64;
    let mut word = first;
    for c in &mut chunks {
        diff |= u64::from_le_bytes(c.try_into().expect("8-byte chunk")) ^ (word ^ salt);
        word += 1;
    }
    if diff != 0 {
        return false;
    }
    chunks
        .remainder()
        .iter()
        .enumerate()
        .all(|(i, &b)| b == pattern_byte(salt, word * 8 + i as u64))
}

/// The writing side: how much has been handed to the transport.
#[derive(Clone, Debug)]
pub struct Source {
    salt: u64,
    /// Bytes handed over so far.
    pub written: u64,
    /// Total to write (`None` = backlogged).
    pub limit: Option<u64>,
    /// The transport has been told no more data follows.
    pub closed: bool,
    /// The application offers more over time ([`Source::offer`]); the
    /// stream never ends.
    open_ended: bool,
}

impl Source {
    /// A source of `limit` bytes (or unlimited).
    pub fn new(salt: u64, limit: Option<u64>) -> Self {
        Source {
            salt,
            written: 0,
            limit,
            closed: false,
            open_ended: false,
        }
    }

    /// A source whose application offers data over time (an on/off
    /// application over a transport); it starts with nothing to write.
    pub fn open_ended(salt: u64) -> Self {
        Source {
            limit: Some(0),
            open_ended: true,
            ..Source::new(salt, None)
        }
    }

    /// The application has `bytes` more to write.
    pub fn offer(&mut self, bytes: u64) {
        if let Some(l) = self.limit.as_mut() {
            *l += bytes;
        }
    }

    /// The next chunk to offer, at most `room` bytes, written into `scratch`.
    pub fn next_chunk<'a>(&self, room: usize, scratch: &'a mut Vec<u8>) -> &'a [u8] {
        let left = self.limit.map_or(u64::MAX, |l| l - self.written);
        let n = (room as u64).min(left).min(64 * 1024) as usize;
        scratch.resize(n, 0);
        fill_pattern(self.salt, self.written, &mut scratch[..n]);
        &scratch[..n]
    }

    /// True once every byte was written.
    pub fn done(&self) -> bool {
        self.limit.is_some_and(|l| self.written >= l)
    }

    /// True once every byte was written and no more will come: the
    /// transport may close.
    pub fn finished(&self) -> bool {
        self.done() && !self.open_ended
    }
}

/// The reading side: counts and checks delivered bytes.
#[derive(Clone, Debug)]
pub struct Sink {
    salt: u64,
    /// Bytes delivered in order.
    pub delivered: u64,
    /// Bytes that did not match the pattern.
    pub corrupt: u64,
}

impl Sink {
    /// A sink expecting the pattern with `salt`.
    pub fn new(salt: u64) -> Self {
        Sink {
            salt,
            delivered: 0,
            corrupt: 0,
        }
    }

    /// Accounts for `data`, the next bytes of the stream.
    pub fn consume(&mut self, data: &[u8]) {
        if !check_pattern(self.salt, self.delivered, data) {
            self.corrupt += data.len() as u64;
        }
        self.delivered += data.len() as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pattern_round_trip_at_any_alignment() {
        let mut buf = vec![0; 37];
        fill_pattern(9, 13, &mut buf);
        assert!(check_pattern(9, 13, &buf));
        assert!(!check_pattern(9, 14, &buf));
        assert!(
            !check_pattern(9, 13 + 8, &buf),
            "a shift by a word is caught"
        );
        assert!(!check_pattern(8, 13, &buf));
    }

    #[test]
    fn sink_detects_a_duplicate_segment() {
        let mut a = vec![0; 100];
        fill_pattern(1, 0, &mut a);
        let mut s = Sink::new(1);
        s.consume(&a[..50]);
        s.consume(&a[..50]);
        assert_eq!(s.delivered, 100);
        assert_eq!(s.corrupt, 50);
    }
}
