//! The `.part` file a download is written to until its SHA-256 matches,
//! opened so that nothing planted in a shared output directory can redirect
//! the download: no symbolic link is followed (`O_NOFOLLOW`), a fresh file
//! is created exclusively (`O_EXCL`), a resumed one must be a regular file
//! of this user's with no other link, and the rename into place happens
//! only if the `.part` name still leads to the file written.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use super::GetError;

/// A `.part` file opened for the download: the file, and what it already
/// holds of a resumed download.
pub struct Part {
    /// The open file.
    pub file: File,
    /// Bytes kept from an earlier download (0 unless resumed).
    pub held: u64,
    path: PathBuf,
    /// Device and inode of the file opened.
    id: (u64, u64),
}

fn unsafe_part(path: &Path, why: impl Into<String>) -> GetError {
    GetError::UnsafePart {
        path: path.to_path_buf(),
        why: why.into(),
    }
}

/// Opens `path` without following a link at its last component.
fn open_nofollow(path: &Path, create_new: bool) -> io::Result<File> {
    let mut o = OpenOptions::new();
    o.read(true)
        .write(true)
        .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32);
    if create_new {
        o.create_new(true);
    }
    o.open(path)
}

impl Part {
    /// Opens `path` for a download of `size` bytes: with `resume`, the
    /// file already there (its bytes kept, unless it holds more than the
    /// file); otherwise a fresh file, any earlier `.part` removed first.
    pub fn open(path: &Path, resume: bool, size: u64) -> Result<Part, GetError> {
        let link = |e: &io::Error| e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error());
        let existing = match std::fs::symlink_metadata(path) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(unsafe_part(path, "it is a symbolic link"))
            }
            Ok(m) if !m.is_file() => return Err(unsafe_part(path, "it is not a regular file")),
            Ok(_) => true,
            Err(e) if e.kind() == io::ErrorKind::NotFound => false,
            Err(e) => return Err(e.into()),
        };
        let file = if existing && resume {
            match open_nofollow(path, false) {
                Ok(f) => f,
                Err(e) if link(&e) => return Err(unsafe_part(path, "it is a symbolic link")),
                Err(e) => return Err(e.into()),
            }
        } else {
            if existing {
                std::fs::remove_file(path)?;
            }
            match open_nofollow(path, true) {
                Ok(f) => f,
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists || link(&e) => {
                    return Err(unsafe_part(path, "something else appeared under its name"))
                }
                Err(e) => return Err(e.into()),
            }
        };
        let m = file.metadata()?;
        if !m.is_file() {
            return Err(unsafe_part(path, "it is not a regular file"));
        }
        if m.uid() != rustix::process::geteuid().as_raw() {
            return Err(unsafe_part(path, "it belongs to another user"));
        }
        if m.nlink() != 1 {
            return Err(unsafe_part(path, "it has other hard links"));
        }
        let held = if resume && m.len() <= size {
            m.len()
        } else {
            0
        };
        Ok(Part {
            file,
            held,
            path: path.to_path_buf(),
            id: (m.dev(), m.ino()),
        })
    }

    /// Renames the `.part` file to `out`, if its name still leads to the
    /// file that was written (nothing swapped it meanwhile).
    pub fn rename_to(&self, out: &Path) -> Result<(), GetError> {
        let m = std::fs::symlink_metadata(&self.path)?;
        if m.file_type().is_symlink() || (m.dev(), m.ino()) != self.id {
            return Err(unsafe_part(
                &self.path,
                "it was replaced while the download ran",
            ));
        }
        std::fs::rename(&self.path, out)?;
        Ok(())
    }

    /// Removes the `.part` file, if its name still leads to it.
    pub fn remove(&self) {
        if std::fs::symlink_metadata(&self.path).is_ok_and(|m| (m.dev(), m.ino()) == self.id) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Checks that the file system of `out` has room for `need` more bytes.
pub fn check_room(out: &Path, need: u64) -> Result<(), GetError> {
    let dir = match out.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let s = rustix::fs::statvfs(dir).map_err(io::Error::from)?;
    let free = s.f_bavail.saturating_mul(s.f_frsize);
    if need > free {
        return Err(GetError::NoSpace {
            need,
            free,
            dir: dir.to_path_buf(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("radial-part-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_planted_link_is_never_followed() {
        let d = dir("link");
        let victim = d.join("victim");
        std::fs::write(&victim, b"precious").unwrap();
        let part = d.join("out.part");
        std::os::unix::fs::symlink(&victim, &part).unwrap();
        for resume in [false, true] {
            let e = Part::open(&part, resume, 100).err().expect("refused");
            assert!(e.to_string().contains("symbolic link"), "{e}");
        }
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_fresh_part_replaces_an_old_one_and_a_resumed_one_keeps_its_bytes() {
        let d = dir("fresh");
        let part = d.join("out.part");
        std::fs::write(&part, b"abc").unwrap();
        let p = Part::open(&part, true, 10).unwrap();
        assert_eq!(p.held, 3);
        drop(p);
        let p = Part::open(&part, true, 2).unwrap();
        assert_eq!(p.held, 0, "more than the file: started again");
        drop(p);
        let p = Part::open(&part, false, 10).unwrap();
        assert_eq!(p.held, 0);
        p.rename_to(&d.join("out")).unwrap();
        assert!(d.join("out").exists() && !part.exists());
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_hard_linked_part_is_refused_and_a_swapped_one_is_not_renamed() {
        let d = dir("hard");
        let part = d.join("out.part");
        std::fs::write(d.join("other"), b"x").unwrap();
        std::fs::hard_link(d.join("other"), &part).unwrap();
        let e = Part::open(&part, true, 10).err().expect("refused");
        assert!(e.to_string().contains("hard links"), "{e}");
        std::fs::remove_file(&part).unwrap();
        let p = Part::open(&part, false, 10).unwrap();
        std::fs::remove_file(&part).unwrap();
        std::os::unix::fs::symlink(d.join("other"), &part).unwrap();
        assert!(p.rename_to(&d.join("out")).is_err());
        assert!(!d.join("out").exists());
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn no_room_is_said_before_anything_is_written() {
        let d = dir("room");
        assert!(check_room(&d.join("f"), 1).is_ok());
        let e = check_room(&d.join("f"), u64::MAX).expect_err("no room");
        assert!(matches!(e, GetError::NoSpace { .. }), "{e}");
        let _ = std::fs::remove_dir_all(&d);
    }
}
