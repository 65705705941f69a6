//! SHA-256 of served files, computed on a worker thread so that the first
//! GET of a large file does not freeze the event loop, and cached by
//! [`FileId`] (device, inode, size, modification time): a file rewritten
//! in place, even to the same size, is hashed again.

use std::collections::{HashMap, HashSet, VecDeque};
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::thread;

use sha2::{Digest, Sha256};

use super::files::FileId;

/// Files hashed and remembered at once (oldest forgotten first).
const CACHED: usize = 4096;
/// Files waiting to be hashed at once; past it a GET is told the server is
/// busy.
const QUEUED: usize = 64;

/// What a GET learns of a file's hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// Known.
    Ready([u8; 32]),
    /// Being computed: ask again.
    Pending,
    /// Too many files wait to be hashed.
    Busy,
}

/// A finished hash: the file, and its SHA-256 unless it failed or the file
/// changed while it was read.
pub type Done = (FileId, Result<[u8; 32], String>);

/// The cache and its worker.
pub struct Hashes {
    cache: HashMap<FileId, [u8; 32]>,
    order: VecDeque<FileId>,
    pending: HashSet<FileId>,
    jobs: Sender<(FileId, Arc<File>)>,
    done: Receiver<Done>,
    /// Set when the server goes: the worker abandons the file it reads.
    cancel: Arc<AtomicBool>,
}

impl Drop for Hashes {
    fn drop(&mut self) {
        self.cancel.store(true, Ordering::Relaxed);
    }
}

impl Hashes {
    /// Starts the worker; `notify` is called (from the worker) after each
    /// file, so the event loop can wake up and collect it.
    pub fn start(notify: impl Fn() + Send + 'static) -> io::Result<Hashes> {
        let (jobs, rx) = channel::<(FileId, Arc<File>)>();
        let (tx, done) = channel();
        let cancel = Arc::new(AtomicBool::new(false));
        let stop = cancel.clone();
        thread::Builder::new()
            .name("radial-hash".into())
            .spawn(move || {
                for (id, file) in rx {
                    let r = hash_open(&file, id, &stop).map_err(|e| e.to_string());
                    if tx.send((id, r)).is_err() {
                        return;
                    }
                    notify();
                }
            })?;
        Ok(Hashes {
            cache: HashMap::new(),
            order: VecDeque::new(),
            pending: HashSet::new(),
            jobs,
            done,
            cancel,
        })
    }

    /// The hash of `file`, or a job to compute it.
    pub fn lookup(&mut self, id: FileId, file: &Arc<File>) -> Lookup {
        if let Some(h) = self.cache.get(&id) {
            return Lookup::Ready(*h);
        }
        if self.pending.contains(&id) {
            return Lookup::Pending;
        }
        if self.pending.len() >= QUEUED {
            return Lookup::Busy;
        }
        if self.jobs.send((id, file.clone())).is_err() {
            return Lookup::Busy;
        }
        self.pending.insert(id);
        Lookup::Pending
    }

    /// Hashes the worker finished since the last call, now cached.
    pub fn collect(&mut self) -> Vec<Done> {
        let done: Vec<Done> = self.done.try_iter().collect();
        for (id, r) in &done {
            self.pending.remove(id);
            if let Ok(h) = r {
                if self.cache.len() >= CACHED {
                    if let Some(old) = self.order.pop_front() {
                        self.cache.remove(&old);
                    }
                }
                self.cache.insert(*id, *h);
                self.order.push_back(*id);
            }
        }
        done
    }
}

/// The SHA-256 of an open file whose identity was `id`; an error if the
/// file changed while it was read.
fn hash_open(f: &File, id: FileId, cancel: &AtomicBool) -> io::Result<[u8; 32]> {
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut at = 0u64;
    while at < id.size {
        if cancel.load(Ordering::Relaxed) {
            return Err(io::Error::other("the server stopped"));
        }
        let want = buf.len().min((id.size - at) as usize);
        let n = f.read_at(&mut buf[..want], at)?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
        at += n as u64;
    }
    if at != id.size || FileId::of(f)? != id {
        return Err(io::Error::other("the file changed while it was hashed"));
    }
    Ok(h.finalize().into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[test]
    fn hashes_are_computed_aside_and_cached_by_identity() {
        let p = std::env::temp_dir().join(format!("radial-hash-{}", std::process::id()));
        std::fs::write(&p, b"abc").unwrap();
        let f = Arc::new(File::open(&p).unwrap());
        let id = FileId::of(&f).unwrap();
        let mut h = Hashes::start(|| {}).unwrap();
        assert_eq!(h.lookup(id, &f), Lookup::Pending);
        assert_eq!(h.lookup(id, &f), Lookup::Pending, "one job per file");
        let end = Instant::now() + Duration::from_secs(10);
        let mut done = Vec::new();
        while done.is_empty() && Instant::now() < end {
            done = h.collect();
            thread::sleep(Duration::from_millis(1));
        }
        let abc = Sha256::digest(b"abc");
        assert_eq!(done.len(), 1);
        assert_eq!(done[0].1.as_ref().map(|h| &h[..]).ok(), Some(&abc[..]));
        assert!(matches!(h.lookup(id, &f), Lookup::Ready(x) if x[..] == abc[..]));
        // Rewritten in place to the same size: not the cached hash.
        thread::sleep(Duration::from_millis(20));
        std::fs::write(&p, b"xyz").unwrap();
        let f2 = Arc::new(File::open(&p).unwrap());
        let id2 = FileId::of(&f2).unwrap();
        assert_ne!(id, id2);
        assert_eq!(h.lookup(id2, &f2), Lookup::Pending);
        let _ = std::fs::remove_file(&p);
    }
}
