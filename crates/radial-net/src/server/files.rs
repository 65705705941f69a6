//! Files beneath the served root. A path is opened with `openat2(2)` and
//! `RESOLVE_BENEATH` relative to the root's directory descriptor, so no
//! `..`, absolute path or symbolic link can lead the server out of the root,
//! whatever is swapped on disk between a check and the open (the check *is*
//! the open). Links that stay inside the root are followed; `/proc`-style
//! magic links never are. With `follow_symlinks` the server trusts the links
//! it finds (an administrator who linked shared directories in on purpose).
//!
//! Only regular files are served: a FIFO, device or directory is refused
//! (opened non-blocking, so a FIFO cannot stall the server).

use std::fs::File;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};

use rustix::fs::{Mode, OFlags, ResolveFlags};

/// What identifies a file's contents for the hash cache: the same inode,
/// size, modification time and status-change time mean the same bytes. A
/// file rewritten in place changes its mtime; one whose mtime was then
/// restored (`cp -p`, `touch -r`) still has a new ctime, which no user can
/// set back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FileId {
    /// Device.
    pub dev: u64,
    /// Inode.
    pub ino: u64,
    /// Size in bytes.
    pub size: u64,
    /// Modification time, nanoseconds since the epoch.
    pub mtime_ns: i128,
    /// Status-change time, nanoseconds since the epoch.
    pub ctime_ns: i128,
}

impl FileId {
    /// The identity of an open file.
    pub fn of(f: &File) -> io::Result<FileId> {
        let m = f.metadata()?;
        Ok(FileId {
            dev: m.dev(),
            ino: m.ino(),
            size: m.len(),
            mtime_ns: i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec()),
            ctime_ns: i128::from(m.ctime()) * 1_000_000_000 + i128::from(m.ctime_nsec()),
        })
    }
}

/// Why a path cannot be served.
#[derive(Debug)]
pub enum OpenError {
    /// The path, or a link on it, leads out of the root.
    NotBelowRoot,
    /// Nothing there.
    NotFound,
    /// There, but not a regular file.
    NotAFile,
    /// The file could not be opened or read.
    Unreadable(io::Error),
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OpenError::NotBelowRoot => f.write_str("not below the root"),
            OpenError::NotFound => f.write_str("no such file"),
            OpenError::NotAFile => f.write_str("not a file"),
            OpenError::Unreadable(e) => write!(f, "{e}"),
        }
    }
}

/// The served directory.
#[derive(Debug)]
pub struct Root {
    dir: File,
    path: PathBuf,
    follow_symlinks: bool,
}

impl Root {
    /// Opens the directory `path`; with `follow_symlinks`, links may lead
    /// out of it.
    pub fn open(path: &Path, follow_symlinks: bool) -> io::Result<Root> {
        let path = path.canonicalize()?;
        let dir = File::open(&path)?;
        if !dir.metadata()?.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} is not a directory", path.display()),
            ));
        }
        Ok(Root {
            dir,
            path,
            follow_symlinks,
        })
    }

    /// The root's canonical path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Opens `rel` (`/`-separated, relative to the root) for reading.
    pub fn open_file(&self, rel: &str) -> Result<(File, FileId), OpenError> {
        let rel = Path::new(rel.trim_start_matches('/'));
        let mut parts = rel.components().peekable();
        if parts.peek().is_none() || parts.any(|c| !matches!(c, Component::Normal(_))) {
            return Err(OpenError::NotBelowRoot);
        }
        let flags = OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NONBLOCK | OFlags::NOCTTY;
        let fd = if self.follow_symlinks {
            rustix::fs::openat(&self.dir, rel, flags, Mode::empty())
        } else {
            match rustix::fs::openat2(
                &self.dir,
                rel,
                flags,
                Mode::empty(),
                ResolveFlags::BENEATH | ResolveFlags::NO_MAGICLINKS,
            ) {
                Err(rustix::io::Errno::NOSYS) => return self.open_checked(rel),
                r => r,
            }
        };
        let file = File::from(fd.map_err(|e| match e {
            rustix::io::Errno::XDEV | rustix::io::Errno::LOOP => OpenError::NotBelowRoot,
            rustix::io::Errno::NOENT | rustix::io::Errno::NOTDIR => OpenError::NotFound,
            e => OpenError::Unreadable(e.into()),
        })?);
        Self::regular(file)
    }

    /// Where `openat2` is missing (kernels before 5.6): the canonical path
    /// must lie below the root, and the file opened must be the one checked.
    fn open_checked(&self, rel: &Path) -> Result<(File, FileId), OpenError> {
        let full = self
            .path
            .join(rel)
            .canonicalize()
            .map_err(|_| OpenError::NotFound)?;
        if !full.starts_with(&self.path) {
            return Err(OpenError::NotBelowRoot);
        }
        let flags = OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NONBLOCK | OFlags::NOFOLLOW;
        let fd = rustix::fs::open(&full, flags, Mode::empty())
            .map_err(|e| OpenError::Unreadable(e.into()))?;
        Self::regular(File::from(fd))
    }

    fn regular(file: File) -> Result<(File, FileId), OpenError> {
        let meta = file.metadata().map_err(OpenError::Unreadable)?;
        if !meta.is_file() {
            return Err(OpenError::NotAFile);
        }
        let id = FileId::of(&file).map_err(OpenError::Unreadable)?;
        Ok((file, id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn tree(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("radial-root-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("root/sub")).unwrap();
        std::fs::write(d.join("root/sub/a.txt"), b"inside").unwrap();
        std::fs::write(d.join("secret.txt"), b"outside").unwrap();
        symlink("sub/a.txt", d.join("root/rel-inside")).unwrap();
        symlink(d.join("secret.txt"), d.join("root/abs-outside")).unwrap();
        symlink("../secret.txt", d.join("root/rel-outside")).unwrap();
        symlink("/etc", d.join("root/etc")).unwrap();
        symlink("/proc/self/environ", d.join("root/environ")).unwrap();
        d
    }

    #[test]
    fn links_out_of_the_root_are_refused_and_links_inside_followed() {
        let d = tree("links");
        let root = Root::open(&d.join("root"), false).unwrap();
        assert!(root.open_file("sub/a.txt").is_ok());
        assert!(root.open_file("rel-inside").is_ok());
        for escape in [
            "abs-outside",
            "rel-outside",
            "etc/passwd",
            "environ",
            "../secret.txt",
        ] {
            assert!(
                matches!(root.open_file(escape), Err(OpenError::NotBelowRoot)),
                "{escape}: {:?}",
                root.open_file(escape).map(|f| f.1)
            );
        }
        assert!(matches!(root.open_file("sub"), Err(OpenError::NotAFile)));
        assert!(matches!(root.open_file("nope"), Err(OpenError::NotFound)));
        assert!(matches!(root.open_file(""), Err(OpenError::NotBelowRoot)));
        // Trusting links: the administrator's choice.
        let trusting = Root::open(&d.join("root"), true).unwrap();
        assert!(trusting.open_file("rel-outside").is_ok());
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_rewritten_file_has_another_identity() {
        let d = tree("ident");
        let root = Root::open(&d.join("root"), false).unwrap();
        let (_, a) = root.open_file("sub/a.txt").unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(d.join("root/sub/a.txt"), b"INSIDE").unwrap();
        let (_, b) = root.open_file("sub/a.txt").unwrap();
        assert_eq!(a.size, b.size);
        assert_ne!(a, b, "same size, new mtime");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let d = tree("fifo");
        let status = std::process::Command::new("mkfifo")
            .arg(d.join("root/pipe"))
            .status();
        if status.is_ok_and(|s| s.success()) {
            let root = Root::open(&d.join("root"), false).unwrap();
            assert!(matches!(root.open_file("pipe"), Err(OpenError::NotAFile)));
        }
        let _ = std::fs::remove_dir_all(&d);
    }
}
