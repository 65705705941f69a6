//! Named network namespaces, made and configured with iproute2's `ip`, as
//! `ip netns add` makes them (a file under `/var/run/netns`), so that
//! `ip netns exec` and every other tool can find them by name.

use std::fs::File;
use std::io::{self, Write};
use std::os::fd::AsFd;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use rustix::thread::{move_into_link_name_space, LinkNameSpaceType};

/// Where `ip netns` keeps its namespaces.
const NETNS_DIR: &str = "/var/run/netns";

/// The prefix of the namespaces a shell makes: `radial-PID-ROLE`.
const PREFIX: &str = "radial-";

/// A namespace this process made; deleted when dropped.
#[derive(Debug)]
pub struct Namespace {
    name: String,
}

/// Runs `ip ARGS` and fails with what it printed.
fn ip(args: &[&str], input: Option<&str>) -> io::Result<()> {
    let mut child = Command::new("ip")
        .args(args)
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("cannot run `ip` (iproute2's, needed for namespaces): {e}"),
            )
        })?;
    if let (Some(text), Some(mut stdin)) = (input, child.stdin.take()) {
        stdin.write_all(text.as_bytes())?;
    }
    let out = child.wait_with_output()?;
    if out.status.success() {
        return Ok(());
    }
    let err = String::from_utf8_lossy(&out.stderr).trim().to_string();
    let kind = if err.contains("Operation not permitted") || err.contains("Permission denied") {
        io::ErrorKind::PermissionDenied
    } else {
        io::ErrorKind::Other
    };
    Err(io::Error::new(
        kind,
        format!("`ip {}`: {err}", args.join(" ")),
    ))
}

impl Namespace {
    /// Makes the namespace `radial-PID-ROLE` for this process, with its
    /// loopback up, IPv6 off (no router solicitations on the paths) and
    /// reverse-path filtering off (replies come back on whichever path
    /// their request left by).
    pub fn create(role: &str) -> io::Result<Self> {
        let name = format!("{PREFIX}{}-{role}", std::process::id());
        ip(&["netns", "add", &name], None)?;
        let ns = Namespace { name };
        ns.batch("link set lo up\n")?;
        ns.sysctl(&[
            "net.ipv6.conf.all.disable_ipv6=1",
            "net.ipv6.conf.default.disable_ipv6=1",
            "net.ipv4.conf.all.rp_filter=0",
            "net.ipv4.conf.default.rp_filter=0",
        ])?;
        Ok(ns)
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Runs `commands`, one `ip` command a line without the `ip`, inside it.
    pub fn batch(&self, commands: &str) -> io::Result<()> {
        ip(&["-n", &self.name, "-batch", "-"], Some(commands))
    }

    /// Sets kernel parameters inside it.
    pub fn sysctl(&self, settings: &[&str]) -> io::Result<()> {
        let status = self
            .exec(["sysctl", "-q", "-w"].iter().chain(settings))
            .stdout(Stdio::null())
            .status()?;
        if status.success() {
            Ok(())
        } else {
            Err(io::Error::other(format!(
                "sysctl {} in namespace {} failed",
                settings.join(" "),
                self.name
            )))
        }
    }

    /// A command that runs `argv` inside it (`ip netns exec`).
    pub fn exec<S: AsRef<std::ffi::OsStr>>(&self, argv: impl IntoIterator<Item = S>) -> Command {
        let mut c = Command::new("ip");
        c.args(["netns", "exec", &self.name]).args(argv);
        c
    }

    /// Moves the calling thread into it: sockets and devices the thread
    /// makes from then on belong to it, and stay there when used from any
    /// other thread.
    pub fn enter(&self) -> io::Result<()> {
        let file = File::open(PathBuf::from(NETNS_DIR).join(&self.name))?;
        move_into_link_name_space(file.as_fd(), Some(LinkNameSpaceType::Network))?;
        Ok(())
    }

    /// Runs `f` on a thread of its own inside the namespace.
    pub fn inside<T: Send + 'static>(
        &self,
        f: impl FnOnce() -> io::Result<T> + Send + 'static,
    ) -> io::Result<T> {
        let file = File::open(PathBuf::from(NETNS_DIR).join(&self.name))?;
        std::thread::spawn(move || {
            move_into_link_name_space(file.as_fd(), Some(LinkNameSpaceType::Network))?;
            f()
        })
        .join()
        .map_err(|_| io::Error::other("a thread inside a namespace panicked"))?
    }
}

impl Drop for Namespace {
    fn drop(&mut self) {
        let _ = ip(&["netns", "delete", &self.name], None);
    }
}

/// Deletes the namespaces that shells which no longer run left behind (a
/// shell killed with SIGKILL cannot clean up after itself); returns their
/// names.
pub fn remove_stale() -> Vec<String> {
    let Ok(dir) = std::fs::read_dir(NETNS_DIR) else {
        return Vec::new();
    };
    let mut removed = Vec::new();
    for entry in dir.flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        let Some(pid) = name
            .strip_prefix(PREFIX)
            .and_then(|rest| rest.split('-').next())
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if !PathBuf::from(format!("/proc/{pid}")).exists()
            && ip(&["netns", "delete", &name], None).is_ok()
        {
            removed.push(name);
        }
    }
    removed
}
