//! The downloaded bytes written to disk and hashed on a thread of their
//! own, so that the event loop only receives: the SHA-256 and the file
//! system take the other core.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender, SyncSender};
use std::thread::JoinHandle;

use sha2::{Digest, Sha256};

/// Chunks in flight between the loop and the writer.
const DEPTH: usize = 64;

/// Writes and hashes, in order, what it is given.
pub struct Writer {
    tx: Option<SyncSender<Vec<u8>>>,
    spare: Receiver<Vec<u8>>,
    handle: Option<JoinHandle<io::Result<[u8; 32]>>>,
}

impl Writer {
    /// Starts writing to `file`.
    pub fn start(file: File) -> io::Result<Writer> {
        let (tx, rx) = sync_channel::<Vec<u8>>(DEPTH);
        let (back, spare): (Sender<Vec<u8>>, _) = channel();
        let handle = std::thread::Builder::new()
            .name("radial-writer".into())
            .spawn(move || {
                let mut out = BufWriter::with_capacity(1 << 20, file);
                let mut h = Sha256::new();
                for chunk in rx {
                    h.update(&chunk);
                    out.write_all(&chunk)?;
                    let _ = back.send(chunk);
                }
                out.flush()?;
                Ok(h.finalize().into())
            })?;
        Ok(Writer {
            tx: Some(tx),
            spare,
            handle: Some(handle),
        })
    }

    /// Queues `data` (copied) for writing.
    pub fn write(&mut self, data: &[u8]) -> io::Result<()> {
        let mut chunk = self.spare.try_recv().unwrap_or_default();
        chunk.clear();
        chunk.extend_from_slice(data);
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
        let mut w = Writer::start(File::create(&p).unwrap()).unwrap();
        let mut all = Vec::new();
        for i in 0..1000u32 {
            let chunk: Vec<u8> = (0..(i % 97) * 13).map(|j| (i ^ j) as u8).collect();
            w.write(&chunk).unwrap();
            all.extend_from_slice(&chunk);
        }
        let h = w.finish().unwrap();
        assert_eq!(h[..], Sha256::digest(&all)[..]);
        assert_eq!(std::fs::read(&p).unwrap(), all);
        let _ = std::fs::remove_file(&p);
    }
}
