//! Sending many datagrams in few system calls: consecutive datagrams of one
//! size to one destination are gathered and handed to the kernel at once
//! with UDP generic segmentation offload (GSO: one `sendmsg` carries up to
//! 64 KB, which the kernel cuts into the datagrams), and received with
//! `recvmmsg` and GRO, through the `quinn-udp` crate (whose code does the
//! unsafe socket calls this workspace forbids itself). Where the kernel
//! offers no GSO the batch is one datagram long.

use std::io::{self, IoSliceMut};
use std::net::SocketAddr;

use quinn_udp::{RecvMeta, Transmit, UdpSocketState};

/// Most bytes one batch carries: within a UDP datagram's largest payload
/// over IPv4 (65,507 bytes; the kernel refuses a larger GSO send), so
/// that four datagrams of a connection in 16,000-byte segments, or two in
/// 32,000-byte ones, go in one call.
const MAX_BATCH: usize = 65_000;

/// Datagrams waiting to go as one batch.
#[derive(Debug, Default)]
pub struct Batch {
    buf: Vec<u8>,
    seg: usize,
    count: usize,
    dest: Option<SocketAddr>,
}

impl Batch {
    /// True when nothing waits.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Datagrams waiting.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether a datagram of `len` bytes to `dest` can join the batch: the
    /// batch is empty, or it goes to the same place, is no longer than the
    /// batch's segments (a shorter one ends the batch), and there is room.
    pub fn fits(&self, dest: SocketAddr, len: usize, max_segments: usize) -> bool {
        self.count == 0
            || (self.dest == Some(dest)
                && len <= self.seg
                && self.buf.len() % self.seg == 0
                && self.count < max_segments
                && self.buf.len() + len <= MAX_BATCH)
    }

    /// Adds datagram `d` to `dest` (it [`Batch::fits`]).
    pub fn push(&mut self, dest: SocketAddr, d: &[u8]) {
        if self.count == 0 {
            self.dest = Some(dest);
            self.seg = d.len();
        }
        self.buf.extend_from_slice(d);
        self.count += 1;
    }

    /// Sends the batch on `sock`. On `WouldBlock` the batch stays whole, to
    /// be sent again; any other error loses it, as a network would.
    pub fn flush(&mut self, sock: &mio::net::UdpSocket, state: &UdpSocketState) -> io::Result<()> {
        let Some(dest) = self.dest else {
            return Ok(());
        };
        if self.count == 0 {
            return Ok(());
        }
        let t = Transmit {
            destination: dest,
            ecn: None,
            contents: &self.buf,
            segment_size: (self.count > 1).then_some(self.seg),
            src_ip: None,
        };
        match state.try_send(sock.into(), &t) {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Err(e),
            _ => {
                self.clear();
                Ok(())
            }
        }
    }

    /// Forgets what waits.
    pub fn clear(&mut self) {
        self.buf.clear();
        self.count = 0;
        self.dest = None;
    }
}

/// Buffers for receiving several (coalesced) datagrams per system call.
pub struct Receiver {
    bufs: Vec<Vec<u8>>,
    meta: Vec<RecvMeta>,
}

impl Default for Receiver {
    fn default() -> Self {
        Receiver {
            bufs: vec![vec![0u8; 65536]; 8],
            meta: vec![RecvMeta::default(); 8],
        }
    }
}

impl Receiver {
    /// Receives what is waiting on `sock` (at most one system call's
    /// worth): how many buffers were filled, 0 when nothing was waiting.
    /// [`Receiver::each`] then walks their datagrams.
    pub fn receive(
        &mut self,
        sock: &mio::net::UdpSocket,
        state: &UdpSocketState,
    ) -> io::Result<usize> {
        let mut slices: Vec<IoSliceMut<'_>> =
            self.bufs.iter_mut().map(|b| IoSliceMut::new(b)).collect();
        match state.recv(sock.into(), &mut slices, &mut self.meta) {
            Ok(n) => Ok(n),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(0),
            Err(e) => Err(e),
        }
    }

    /// How many buffers one [`Receiver::receive`] can fill: one that fills
    /// fewer found the socket's queue empty.
    pub fn capacity(&self) -> usize {
        self.bufs.len()
    }

    /// Calls `each(from, datagram)` for every datagram of the `n` buffers
    /// the last [`Receiver::receive`] filled.
    pub fn each(&mut self, n: usize, mut each: impl FnMut(SocketAddr, &mut [u8])) {
        for (from, d) in self.datagrams(n) {
            each(from, d);
        }
    }

    /// Every datagram of the `n` buffers the last [`Receiver::receive`]
    /// filled, with its sender, all at once (to open them all before
    /// taking a lock to hand them on).
    pub fn datagrams(&mut self, n: usize) -> impl Iterator<Item = (SocketAddr, &mut [u8])> {
        self.meta
            .iter()
            .zip(self.bufs.iter_mut())
            .take(n)
            .flat_map(|(m, buf)| {
                let (from, stride) = (m.addr, m.stride.max(1));
                buf[..m.len].chunks_mut(stride).map(move |d| (from, d))
            })
    }
}

/// Socket buffers asked for (the kernel caps them at its `rmem_max` and
/// `wmem_max`): bursts of a fast pipe fit, instead of being dropped.
const SOCKET_BUFFER: usize = 4 << 20;

/// The socket state `quinn-udp` keeps (what the kernel offers), for `sock`,
/// whose buffers it enlarges.
pub fn state(sock: &mio::net::UdpSocket) -> io::Result<UdpSocketState> {
    let state = UdpSocketState::new(sock.into())?;
    let _ = state.set_recv_buffer_size(sock.into(), SOCKET_BUFFER);
    let _ = state.set_send_buffer_size(sock.into(), SOCKET_BUFFER);
    Ok(state)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_takes_equal_datagrams_then_one_shorter() {
        let a: SocketAddr = "127.0.0.1:1".parse().unwrap();
        let b: SocketAddr = "127.0.0.1:2".parse().unwrap();
        let mut batch = Batch::default();
        assert!(batch.fits(a, 1000, 64));
        batch.push(a, &[1; 1000]);
        assert!(batch.fits(a, 1000, 64));
        assert!(!batch.fits(b, 1000, 64), "another destination");
        assert!(!batch.fits(a, 1001, 64), "longer");
        assert!(!batch.fits(a, 1000, 1), "full");
        batch.push(a, &[2; 1000]);
        assert!(batch.fits(a, 500, 64));
        batch.push(a, &[3; 500]);
        assert!(!batch.fits(a, 500, 64), "a shorter one ends the batch");
        assert_eq!(batch.len(), 3);
    }

    #[test]
    fn batches_arrive_as_the_datagrams_they_were() {
        let rx = mio::net::UdpSocket::bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let tx = mio::net::UdpSocket::bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let (rs, ts) = (state(&rx).unwrap(), state(&tx).unwrap());
        let to = rx.local_addr().unwrap();
        let mut batch = Batch::default();
        let mut sent = Vec::new();
        for i in 0..10u8 {
            let d = vec![i; if i == 9 { 300 } else { 1200 }];
            assert!(batch.fits(to, d.len(), ts.max_gso_segments().max(10)) || i > 0);
            if !batch.fits(to, d.len(), ts.max_gso_segments()) {
                batch.flush(&tx, &ts).unwrap();
            }
            batch.push(to, &d);
            sent.push(d);
        }
        batch.flush(&tx, &ts).unwrap();
        let mut got: Vec<Vec<u8>> = Vec::new();
        let mut r = Receiver::default();
        let end = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while got.len() < sent.len() && std::time::Instant::now() < end {
            let n = r.receive(&rx, &rs).unwrap();
            r.each(n, |_, d| got.push(d.to_vec()));
        }
        assert_eq!(got, sent);
    }
}
