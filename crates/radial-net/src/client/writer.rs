//! The downloaded bytes written to disk and hashed on a thread of their
//! own, so that the event loop only receives: the SHA-256 and the file
//! system take the other core.

use std::fs::File;
use std::io::{self, Write};
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender, SyncSender};
use std::thread::JoinHandle;

use sha2::{Digest, Sha256};

/// Chunks in flight between the loop and the writer.
const DEPTH: usize = 64;

/// Bytes gathered before they go to the writer in one chunk: the event
/// loop reads a segment or a few at a time, and handing each over on its
/// own would cost a wake-up of the writer (a futex call) per datagram.
const BATCH: usize = 256 << 10;

/// Writes and hashes, in order, what it is given.
pub struct Writer {
    tx: Option<SyncSender<Vec<u8>>>,
    spare: Receiver<Vec<u8>>,
    /// What is gathered and not yet handed over.
    pending: Vec<u8>,
    handle: Option<JoinHandle<io::Result<[u8; 32]>>>,
}

impl Writer {
    /// Starts writing to `file` after its first `held` bytes, which it
    /// hashes first (a download resumed from a partial file); anything past
    /// them is cut off.
    pub fn resume(mut file: File, held: u64) -> io::Result<Writer> {
        file.set_len(held)?;
        let (tx, rx) = sync_channel::<Vec<u8>>(DEPTH);
        let (back, spare): (Sender<Vec<u8>>, _) = channel();
        let handle = std::thread::Builder::new()
            .name("radial-writer".into())
            .spawn(move || {
                use std::io::{Read, Seek, SeekFrom};
                let mut h = Sha256::new();
                file.seek(SeekFrom::Start(0))?;
                let mut prefix = (&mut file).take(held);
                let mut buf = vec![0u8; 1 << 16];
                loop {
                    let n = prefix.read(&mut buf)?;
                    if n == 0 {
                        break;
                    }
                    h.update(&buf[..n]);
                }
                file.seek(SeekFrom::Start(held))?;
                // Chunks come a quarter megabyte at a time: written as they
                // are, with no buffer to copy them through.
                for chunk in rx {
                    h.update(&chunk);
                    file.write_all(&chunk)?;
                    let _ = back.send(chunk);
                }
                Ok(h.finalize().into())
            })?;
        Ok(Writer {
            tx: Some(tx),
            spare,
            pending: Vec::with_capacity(BATCH),
            handle: Some(handle),
        })
    }

    /// Queues `data` (copied) for writing.
    pub fn write(&mut self, data: &[u8]) -> io::Result<()> {
        self.pending.extend_from_slice(data);
        if self.pending.len() >= BATCH {
            self.hand_over()?;
        }
        Ok(())
    }

    /// Hands what is gathered to the writer, gathering on in a spare chunk.
    fn hand_over(&mut self) -> io::Result<()> {
        let mut next = self.spare.try_recv().unwrap_or_default();
        next.clear();
        let chunk = std::mem::replace(&mut self.pending, next);
        let tx = self.tx.as_ref().expect("not finished");
        if tx.send(chunk).is_err() {
            // The writer stopped: its error comes with `finish`.
            return self.finish_error();
        }
        Ok(())
    }

    fn finish_error(&mut self) -> io::Result<()> {
        self.tx = None;
        match self.handle.take().map(JoinHandle::join) {
            Some(Ok(Err(e))) => Err(e),
            _ => Err(io::Error::other("the writer stopped")),
        }
    }

    /// Waits for everything queued to be written: the SHA-256 of it all.
    pub fn finish(mut self) -> io::Result<[u8; 32]> {
        if !self.pending.is_empty() {
            self.hand_over()?;
        }
        self.tx = None;
        match self.handle.take().map(JoinHandle::join) {
            Some(Ok(r)) => r,
            _ => Err(io::Error::other("the writer panicked")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_written_is_on_disk_and_hashed_in_order() {
        let p = std::env::temp_dir().join(format!("radial-writer-{}", std::process::id()));
        let mut w = Writer::resume(File::create(&p).unwrap(), 0).unwrap();
        let mut all = Vec::new();
        for i in 0..1000u32 {
            let chunk: Vec<u8> = (0..(i % 97) * 13).map(|j| (i ^ j) as u8).collect();
            w.write(&chunk).unwrap();
            all.extend_from_slice(&chunk);
        }
        let h = w.finish().unwrap();
        assert_eq!(h[..], Sha256::digest(&all)[..]);
        assert_eq!(std::fs::read(&p).unwrap(), all);
        // Resumed after its first 1,000 bytes (what follows them is cut).
        let f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&p)
            .unwrap();
        let mut w = Writer::resume(f, 1000).unwrap();
        w.write(b"tail").unwrap();
        let h = w.finish().unwrap();
        let mut expect = all[..1000].to_vec();
        expect.extend_from_slice(b"tail");
        assert_eq!(h[..], Sha256::digest(&expect)[..]);
        assert_eq!(std::fs::read(&p).unwrap(), expect);
        let _ = std::fs::remove_file(&p);
    }
}
