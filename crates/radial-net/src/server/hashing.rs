//! SHA-256 of served files, computed on a worker thread so that the first
//! GET of a large file does not freeze the event loop, and cached by
//! [`FileId`] (device, inode, size, modification and status-change times):
//! a file rewritten in place, even to the same size and with its old
//! modification time restored, is hashed again.
//!
//! The work is shared fairly between clients (their source networks,
//! [`Prefix`]): each may have at most [`PER_CLIENT`] files waiting, and the
//! worker hashes [`SLICE`] bytes of one client's oldest file, then moves on
//! to the next client, so a client asking for many large files delays
//! another's small one by at most a slice per client. At the global cap
//! ([`QUEUED`]) a newcomer holding fewer jobs than the largest holder takes
//! the place of that holder's newest job. The cache keeps the most
//! recently asked for files ([`CACHED`]), and never forgets one a
//! transfer is serving.

use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread;

use sha2::{Digest, Sha256};

use super::files::FileId;
use super::tables::Prefix;

/// Files hashed and remembered at once (the least recently asked for are
/// forgotten first, unless a transfer serves them).
pub const CACHED: usize = 16_384;
/// Files waiting to be hashed at once.
pub const QUEUED: usize = 64;
/// Files one client (source network) may have waiting at once; past it the
/// client is told the server is busy.
pub const PER_CLIENT: usize = 4;
/// Bytes hashed of one client's file before the worker turns to the next
/// client's.
pub const SLICE: u64 = 8 << 20;

/// What a GET learns of a file's hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// Known.
    Ready([u8; 32]),
    /// Being computed: ask again.
    Pending,
    /// Too many files wait to be hashed for this client.
    Busy,
}

/// A finished hash: the file, and its SHA-256 unless it failed or the file
/// changed while it was read.
pub type Done = (FileId, Result<[u8; 32], String>);

/// One file to hash, for one client.
struct Job {
    id: FileId,
    file: Arc<File>,
    client: Prefix,
    /// Set when the job gave way to another client's.
    cancel: Arc<AtomicBool>,
}

/// A job waiting or under way, as the event loop sees it.
struct Waiting {
    client: Prefix,
    cancel: Arc<AtomicBool>,
    /// Order of arrival (the newest of the largest holder gives way).
    seq: u64,
}

/// The cache and its worker.
pub struct Hashes {
    cache: HashMap<FileId, ([u8; 32], u64)>,
    /// Counts lookups, to age the cache's entries.
    clock: u64,
    pending: HashMap<FileId, Waiting>,
    per_client: HashMap<Prefix, usize>,
    jobs: Sender<Job>,
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
        let (jobs, rx) = channel::<Job>();
        let (tx, done) = channel();
        let cancel = Arc::new(AtomicBool::new(false));
        let stop = cancel.clone();
        thread::Builder::new()
            .name("radial-hash".into())
            .spawn(move || Worker::default().run(&rx, &tx, &stop, notify))?;
        Ok(Hashes {
            cache: HashMap::new(),
            clock: 0,
            pending: HashMap::new(),
            per_client: HashMap::new(),
            jobs,
            done,
            cancel,
        })
    }

    /// The hash of `file` for `client`, or a job to compute it.
    pub fn lookup(&mut self, id: FileId, file: &Arc<File>, client: Prefix) -> Lookup {
        self.clock += 1;
        if let Some((h, used)) = self.cache.get_mut(&id) {
            *used = self.clock;
            return Lookup::Ready(*h);
        }
        if self.pending.contains_key(&id) {
            return Lookup::Pending;
        }
        let mine = self.per_client.get(&client).copied().unwrap_or(0);
        if mine >= PER_CLIENT || (self.pending.len() >= QUEUED && !self.give_way(client, mine)) {
            return Lookup::Busy;
        }
        let cancel = Arc::new(AtomicBool::new(false));
        let job = Job {
            id,
            file: file.clone(),
            client,
            cancel: cancel.clone(),
        };
        if self.jobs.send(job).is_err() {
            return Lookup::Busy;
        }
        self.pending.insert(
            id,
            Waiting {
                client,
                cancel,
                seq: self.clock,
            },
        );
        *self.per_client.entry(client).or_insert(0) += 1;
        Lookup::Pending
    }

    /// At the global cap: the newest job of the client holding the most
    /// gives way, if that is more than `mine`.
    fn give_way(&mut self, client: Prefix, mine: usize) -> bool {
        let Some((&largest, &n)) = self.per_client.iter().max_by_key(|(_, n)| **n) else {
            return false;
        };
        if n <= mine || largest == client {
            return false;
        }
        let Some(id) = self
            .pending
            .iter()
            .filter(|(_, w)| w.client == largest)
            .max_by_key(|(_, w)| w.seq)
            .map(|(id, _)| *id)
        else {
            return false;
        };
        let w = self.pending.remove(&id).expect("found");
        w.cancel.store(true, Ordering::Relaxed);
        self.release(w.client);
        true
    }

    fn release(&mut self, client: Prefix) {
        if let Some(n) = self.per_client.get_mut(&client) {
            *n -= 1;
            if *n == 0 {
                self.per_client.remove(&client);
            }
        }
    }

    /// Hashes the worker finished since the last call, now cached; `serving`
    /// says which files a transfer uses (never forgotten).
    pub fn collect(&mut self, serving: impl Fn(&FileId) -> bool) -> Vec<Done> {
        let done: Vec<Done> = self.done.try_iter().collect();
        for (id, r) in &done {
            let Some(w) = self.pending.remove(id) else {
                continue; // gave way meanwhile
            };
            self.release(w.client);
            if let Ok(h) = r {
                if self.cache.len() >= CACHED {
                    self.forget_least_used(&serving);
                }
                self.clock += 1;
                self.cache.insert(*id, (*h, self.clock));
            }
        }
        done
    }

    /// Forgets the least recently asked for eighth of the cache, sparing
    /// the files transfers serve (one scan per eighth, not per entry).
    fn forget_least_used(&mut self, serving: &impl Fn(&FileId) -> bool) {
        let mut ages: Vec<u64> = self.cache.values().map(|(_, used)| *used).collect();
        let k = (ages.len() / 8).max(1);
        let (_, cut, _) = ages.select_nth_unstable(k - 1);
        let cut = *cut;
        self.cache
            .retain(|id, (_, used)| *used > cut || serving(id));
    }
}

/// A job under way: the hash so far and the bytes read.
type Progress = (Job, Sha256, u64);

/// The worker: jobs by client, served a slice at a time in turn.
#[derive(Default)]
struct Worker {
    clients: VecDeque<(Prefix, VecDeque<Progress>)>,
}

impl Worker {
    fn run(mut self, rx: &Receiver<Job>, tx: &Sender<Done>, stop: &AtomicBool, notify: impl Fn()) {
        loop {
            // Take every job that came; wait for one when idle.
            loop {
                let job = if self.clients.is_empty() {
                    match rx.recv_timeout(std::time::Duration::from_millis(200)) {
                        Ok(j) => j,
                        Err(RecvTimeoutError::Timeout) if !stop.load(Ordering::Relaxed) => continue,
                        Err(_) => return,
                    }
                } else {
                    match rx.try_recv() {
                        Ok(j) => j,
                        Err(_) => break,
                    }
                };
                self.add(job);
            }
            if stop.load(Ordering::Relaxed) {
                return;
            }
            if let Some(done) = self.slice(stop) {
                if tx.send(done).is_err() {
                    return;
                }
                notify();
            }
        }
    }

    fn add(&mut self, job: Job) {
        let entry = (job, Sha256::new(), 0);
        match self.clients.iter_mut().find(|(c, _)| *c == entry.0.client) {
            Some((_, q)) => q.push_back(entry),
            None => self
                .clients
                .push_back((entry.0.client, VecDeque::from([entry]))),
        }
    }

    /// Hashes a slice of the next client's oldest file; the result if that
    /// finished it. The client then goes to the back of the turn.
    fn slice(&mut self, stop: &AtomicBool) -> Option<Done> {
        let (client, mut q) = self.clients.pop_front()?;
        let (job, mut h, mut at) = q.pop_front()?;
        let r = if job.cancel.load(Ordering::Relaxed) {
            None
        } else {
            match hash_slice(&job, &mut h, &mut at, stop) {
                Ok(false) => {
                    q.push_front((job, h, at));
                    None
                }
                Ok(true) => Some((job.id, finish(&job, h, at))),
                Err(e) => Some((job.id, Err(e.to_string()))),
            }
        };
        if !q.is_empty() {
            self.clients.push_back((client, q));
        }
        r
    }
}

/// Hashes up to [`SLICE`] more bytes of `job`'s file from `*at`; true once
/// the whole file is read.
fn hash_slice(job: &Job, h: &mut Sha256, at: &mut u64, stop: &AtomicBool) -> io::Result<bool> {
    let mut buf = vec![0u8; 1 << 20];
    let until = (*at + SLICE).min(job.id.size);
    while *at < until {
        if stop.load(Ordering::Relaxed) {
            return Err(io::Error::other("the server stopped"));
        }
        let want = buf.len().min((until - *at) as usize);
        let n = job.file.read_at(&mut buf[..want], *at)?;
        if n == 0 {
            return Ok(true);
        }
        h.update(&buf[..n]);
        *at += n as u64;
    }
    Ok(*at >= job.id.size)
}

/// The SHA-256 of a file read to `at` bytes; an error if the file changed
/// while it was read.
fn finish(job: &Job, h: Sha256, at: u64) -> Result<[u8; 32], String> {
    if at != job.id.size || FileId::of(&job.file).ok() != Some(job.id) {
        return Err("the file changed while it was hashed".into());
    }
    Ok(h.finalize().into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    fn client(s: &str) -> Prefix {
        Prefix::of(s.parse().unwrap())
    }

    fn wait_for(h: &mut Hashes, n: usize) -> Vec<Done> {
        let end = Instant::now() + Duration::from_secs(20);
        let mut done = Vec::new();
        while done.len() < n && Instant::now() < end {
            done.extend(h.collect(|_| false));
            thread::sleep(Duration::from_millis(1));
        }
        done
    }

    #[test]
    fn hashes_are_computed_aside_and_cached_by_identity() {
        let p = std::env::temp_dir().join(format!("radial-hash-{}", std::process::id()));
        std::fs::write(&p, b"abc").unwrap();
        let f = Arc::new(File::open(&p).unwrap());
        let id = FileId::of(&f).unwrap();
        let a = client("10.0.0.1");
        let mut h = Hashes::start(|| {}).unwrap();
        assert_eq!(h.lookup(id, &f, a), Lookup::Pending);
        assert_eq!(h.lookup(id, &f, a), Lookup::Pending, "one job per file");
        let done = wait_for(&mut h, 1);
        let abc = Sha256::digest(b"abc");
        assert_eq!(done.len(), 1);
        assert_eq!(done[0].1.as_ref().map(|h| &h[..]).ok(), Some(&abc[..]));
        assert!(matches!(h.lookup(id, &f, a), Lookup::Ready(x) if x[..] == abc[..]));
        // Rewritten in place to the same size: not the cached hash.
        thread::sleep(Duration::from_millis(20));
        std::fs::write(&p, b"xyz").unwrap();
        let f2 = Arc::new(File::open(&p).unwrap());
        let id2 = FileId::of(&f2).unwrap();
        assert_ne!(id, id2);
        assert_eq!(h.lookup(id2, &f2, a), Lookup::Pending);
        let _ = std::fs::remove_file(&p);
    }

    #[test]
    fn one_client_cannot_hold_the_queue_and_another_is_hashed_between_its_slices() {
        let dir = std::env::temp_dir().join(format!("radial-hash-fair-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let open = |name: &str, len: u64| {
            let p = dir.join(name);
            let f = File::create(&p).unwrap();
            f.set_len(len).unwrap();
            let f = Arc::new(File::open(&p).unwrap());
            (FileId::of(&f).unwrap(), f)
        };
        let (greedy, honest) = (client("10.0.0.1"), client("10.9.0.1"));
        let mut h = Hashes::start(|| {}).unwrap();
        // The greedy client's large files: at most PER_CLIENT wait.
        let mut answers = Vec::new();
        for i in 0..PER_CLIENT + 3 {
            let (id, f) = open(&format!("big{i}"), 1 << 30);
            answers.push(h.lookup(id, &f, greedy));
        }
        assert_eq!(
            answers.iter().filter(|a| **a == Lookup::Pending).count(),
            PER_CLIENT
        );
        assert_eq!(answers.last(), Some(&Lookup::Busy));
        // Another client's small file is hashed long before the greedy
        // client's first gigabyte.
        let (id, f) = open("small", 1000);
        assert_eq!(h.lookup(id, &f, honest), Lookup::Pending);
        let done = wait_for(&mut h, 1);
        assert_eq!(done.len(), 1);
        assert_eq!(done[0].0, id, "the small file first");
        assert!(matches!(h.lookup(id, &f, honest), Lookup::Ready(_)));
        drop(h);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn at_the_cap_a_smaller_client_takes_the_place_of_the_largests_newest_job() {
        let dir = std::env::temp_dir().join(format!("radial-hash-cap-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut h = Hashes::start(|| {}).unwrap();
        let mut n = 0;
        let mut lookup = |h: &mut Hashes, c: Prefix| {
            n += 1;
            let p = dir.join(format!("f{n}"));
            let f = File::create(&p).unwrap();
            f.set_len(4 << 30).unwrap();
            let f = Arc::new(File::open(&p).unwrap());
            h.lookup(FileId::of(&f).unwrap(), &f, c)
        };
        // QUEUED / PER_CLIENT clients fill the queue.
        for k in 0..QUEUED / PER_CLIENT {
            for _ in 0..PER_CLIENT {
                assert_eq!(
                    lookup(&mut h, client(&format!("10.1.{k}.1"))),
                    Lookup::Pending
                );
            }
        }
        assert_eq!(h.pending.len(), QUEUED);
        assert_eq!(lookup(&mut h, client("10.2.0.1")), Lookup::Pending);
        assert_eq!(h.pending.len(), QUEUED);
        drop(h);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_cache_forgets_the_least_used_but_never_a_served_file() {
        let mut h = Hashes::start(|| {}).unwrap();
        let id = |ino| FileId {
            dev: 1,
            ino,
            size: 1,
            mtime_ns: 0,
            ctime_ns: 0,
        };
        for ino in 0..CACHED as u64 {
            h.clock += 1;
            h.cache.insert(id(ino), ([0; 32], h.clock));
        }
        h.forget_least_used(&|f: &FileId| f.ino == 0);
        assert!(h.cache.contains_key(&id(0)), "served");
        assert!(!h.cache.contains_key(&id(1)));
        assert!(h.cache.contains_key(&id(CACHED as u64 - 1)));
        assert!(h.cache.len() < CACHED);
    }
}
