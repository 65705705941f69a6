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
    /// Application striping: this connection carries chunks `j, j + k,
    /// j + 2k, …` of `chunk` bytes of the stream (`(k, j, chunk)`).
    stripe: Option<(u64, u64, u64)>,
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
            stripe: None,
        }
    }

    /// Connection `j` of `k` in application striping: it carries every
    /// k-th chunk of `chunk` bytes of a stream of `total` bytes (or an
    /// endless one), starting with chunk `j`.
    pub fn striped(salt: u64, total: Option<u64>, k: u64, j: u64, chunk: u64) -> Self {
        let limit = total.map(|n| {
            let (full, rem) = (n / chunk, n % chunk);
            let mine = full / k + u64::from(j < full % k);
            mine * chunk + if rem > 0 && full % k == j { rem } else { 0 }
        });
        Source {
            stripe: Some((k, j, chunk)),
            ..Source::new(salt, limit)
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

    /// Hands `ep` as much as it takes now, seeking first where the
    /// transport skipped ahead (a replica joining a transfer, as a file
    /// server would), and tells it when no more follows; `scratch` holds
    /// each chunk.
    pub fn feed(&mut self, ep: &mut dyn radial_core::Endpoint, scratch: &mut Vec<u8>) {
        if let Some(o) = ep.write_offset() {
            if o > self.written {
                self.written = self.limit.map_or(o, |l| o.min(l));
            }
        }
        while !self.done() {
            let room = ep.send_capacity();
            if room == 0 {
                break;
            }
            let n = ep.write(self.next_chunk(room, scratch));
            self.written += n as u64;
            if n == 0 {
                break;
            }
        }
        if self.finished() && !self.closed {
            self.closed = true;
            ep.close();
        }
    }

    /// The next chunk to offer, at most `room` bytes, written into `scratch`.
    pub fn next_chunk<'a>(&self, room: usize, scratch: &'a mut Vec<u8>) -> &'a [u8] {
        let left = self.limit.map_or(u64::MAX, |l| l - self.written);
        let n = (room as u64).min(left).min(64 * 1024) as usize;
        scratch.resize(n, 0);
        match self.stripe {
            None => fill_pattern(self.salt, self.written, &mut scratch[..n]),
            Some((k, j, chunk)) => {
                // Substream offset o is byte o % chunk of the stream's chunk
                // (o / chunk) · k + j.
                let mut at = 0;
                while at < n {
                    let o = self.written + at as u64;
                    let in_chunk = o % chunk;
                    let global = ((o / chunk) * k + j) * chunk + in_chunk;
                    let len = ((chunk - in_chunk) as usize).min(n - at);
                    fill_pattern(self.salt, global, &mut scratch[at..at + len]);
                    at += len;
                }
            }
        }
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

/// The receiving application of application striping: it reads each
/// connection's substream into a bounded resequencing buffer and hands the
/// stream on in order.
#[derive(Clone, Debug)]
pub struct Resequencer {
    k: u64,
    chunk: u64,
    /// Resequencing buffer size in bytes.
    cap: u64,
    held: u64,
    queues: Vec<std::collections::VecDeque<u8>>,
    /// The stream, checked.
    pub sink: Sink,
}

impl Resequencer {
    /// For `k` connections striping chunks of `chunk` bytes, with `cap`
    /// bytes of buffer.
    pub fn new(salt: u64, k: u64, chunk: u64, cap: u64) -> Self {
        Resequencer {
            k,
            chunk,
            cap,
            held: 0,
            queues: vec![Default::default(); k as usize],
            sink: Sink::new(salt),
        }
    }

    /// Bytes the application may read from connection `j` now: what the
    /// buffer has room for, and always the rest of the chunk it waits for
    /// if `j` carries it (it reads the socket it needs, as a blocking
    /// striping application does).
    pub fn room(&self, j: usize) -> usize {
        let next = self.sink.delivered;
        let waiting = ((next / self.chunk) % self.k) as usize;
        let free = self.cap.saturating_sub(self.held);
        if j == waiting {
            let want = self.chunk - next % self.chunk;
            let have = self.queues[j].len() as u64;
            free.max(want.saturating_sub(have)) as usize
        } else {
            free as usize
        }
    }

    /// Takes `data`, the next bytes of connection `j`'s substream, and
    /// delivers whatever became in order. Returns the bytes delivered.
    pub fn push(&mut self, j: usize, data: &[u8]) -> u64 {
        self.queues[j].extend(data);
        self.held += data.len() as u64;
        let before = self.sink.delivered;
        loop {
            let next = self.sink.delivered;
            let j = ((next / self.chunk) % self.k) as usize;
            let want = (self.chunk - next % self.chunk) as usize;
            let n = want.min(self.queues[j].len());
            if n == 0 {
                break;
            }
            let bytes: Vec<u8> = self.queues[j].drain(..n).collect();
            self.held -= n as u64;
            self.sink.consume(&bytes);
        }
        self.sink.delivered - before
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
    fn striped_substreams_resequence_into_the_stream() {
        // 2 connections, chunks of 3 bytes, a 10-byte stream: connection 0
        // carries chunks 0 and 2 and the last byte (chunk 3 is 1 byte and
        // goes to connection 1).
        let (a, b) = (
            Source::striped(5, Some(10), 2, 0, 3),
            Source::striped(5, Some(10), 2, 1, 3),
        );
        assert_eq!((a.limit, b.limit), (Some(6), Some(4)));
        let mut scratch = Vec::new();
        let sa = a.next_chunk(100, &mut scratch).to_vec();
        let sb = b.next_chunk(100, &mut scratch).to_vec();
        let mut r = Resequencer::new(5, 2, 3, 100);
        assert_eq!(r.push(1, &sb), 0, "connection 1 is ahead: held");
        assert_eq!(r.push(0, &sa), 10);
        assert_eq!(r.sink.corrupt, 0);
        assert_eq!(r.room(0), 100);
        // A full buffer still lets the connection that is waited for be read.
        let mut r = Resequencer::new(5, 2, 3, 3);
        r.push(1, &sb[..3]);
        assert_eq!((r.room(0), r.room(1)), (3, 0));
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
