//! Which destinations the tunnel's server connects to.
//!
//! A tunnel server opens TCP connections on its clients' behalf, so without
//! limits it is an open door into the networks it sits in: its own
//! loopback services, the private network behind it, the cloud metadata
//! address on its link. The policy: a destination must lie in an allowed
//! range (by default every address), and an address in one of the special
//! ranges below (loopback, private, link-local, shared, unspecified,
//! multicast, broadcast, documentation) is refused unless an allowed range
//! names it specifically, that is, lies within that special range: allowing
//! `0.0.0.0/0` opens the public internet, not `10.0.0.0/8`; allowing
//! `10.1.0.0/16` opens that network. A domain name is checked address by
//! address after the server resolves it, and the server connects to the
//! address it checked (so a name that resolves differently a second time
//! cannot lead elsewhere).

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::str::FromStr;

/// An address range: an address and a prefix length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cidr {
    addr: IpAddr,
    prefix: u8,
}

/// Why a range does not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CidrError(String);

impl fmt::Display for CidrError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CidrError {}

impl Cidr {
    /// The range of addresses sharing `addr`'s first `prefix` bits; `None`
    /// if `prefix` is longer than the address.
    pub fn new(addr: IpAddr, prefix: u8) -> Option<Cidr> {
        let bits = match addr {
            IpAddr::V4(_) => 32,
            IpAddr::V6(_) => 128,
        };
        (prefix <= bits).then_some(Cidr { addr, prefix })
    }

    /// True if `ip` lies in the range (an IPv4 address never lies in an
    /// IPv6 range, nor the reverse).
    pub fn contains(&self, ip: IpAddr) -> bool {
        match (self.addr, ip) {
            (IpAddr::V4(a), IpAddr::V4(b)) => prefix_eq(&a.octets(), &b.octets(), self.prefix),
            (IpAddr::V6(a), IpAddr::V6(b)) => prefix_eq(&a.octets(), &b.octets(), self.prefix),
            _ => false,
        }
    }

    /// True if every address of `self` lies in `outer`.
    pub fn within(&self, outer: &Cidr) -> bool {
        self.prefix >= outer.prefix && outer.contains(self.addr)
    }
}

fn prefix_eq(a: &[u8], b: &[u8], prefix: u8) -> bool {
    let whole = usize::from(prefix / 8);
    let rest = prefix % 8;
    if a[..whole] != b[..whole] {
        return false;
    }
    rest == 0 || {
        let mask = 0xffu8 << (8 - rest);
        a[whole] & mask == b[whole] & mask
    }
}

impl FromStr for Cidr {
    type Err = CidrError;

    /// `ADDRESS/PREFIX`, or an address alone (its whole length).
    fn from_str(s: &str) -> Result<Cidr, CidrError> {
        let (addr, prefix) = match s.split_once('/') {
            Some((a, p)) => (a, Some(p)),
            None => (s, None),
        };
        let addr: IpAddr = addr
            .parse()
            .map_err(|_| CidrError(format!("`{s}`: `{addr}` is not an IP address")))?;
        let max = if addr.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            None => max,
            Some(p) => p
                .parse::<u8>()
                .ok()
                .filter(|&p| p <= max)
                .ok_or_else(|| CidrError(format!("`{s}`: the prefix must be 0 to {max}")))?,
        };
        Ok(Cidr { addr, prefix })
    }
}

impl fmt::Display for Cidr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.addr, self.prefix)
    }
}

/// The ranges a tunnel refuses unless an allowed range names them (IANA's
/// special-purpose registries, RFC 6890, for the ranges a server should not
/// reach on a stranger's behalf), with what each is.
pub const SPECIAL: [(&str, &str); 19] = [
    ("0.0.0.0/8", "this network"),
    ("10.0.0.0/8", "private"),
    ("100.64.0.0/10", "shared address space"),
    ("127.0.0.0/8", "loopback"),
    ("169.254.0.0/16", "link-local"),
    ("172.16.0.0/12", "private"),
    ("192.0.0.0/24", "IETF protocol assignments"),
    ("192.0.2.0/24", "documentation"),
    ("192.168.0.0/16", "private"),
    ("198.18.0.0/15", "benchmarking"),
    ("224.0.0.0/3", "multicast and reserved"),
    ("::/127", "unspecified and loopback"),
    ("fc00::/7", "unique local"),
    ("fe80::/10", "link-local"),
    ("ff00::/8", "multicast"),
    ("2001:db8::/32", "documentation"),
    // IPv6 ranges that carry IPv4 addresses inside (a server with NAT64 or
    // a 6to4 relay would reach a private IPv4 address through them).
    ("64:ff9b::/96", "IPv4/IPv6 translation"),
    ("64:ff9b:1::/48", "local IPv4/IPv6 translation"),
    ("2002::/16", "6to4"),
];

/// Why a destination is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Outside every allowed range.
    NotAllowed,
    /// In a special range no allowed range names: the range and what it
    /// is.
    Special(Cidr, &'static str),
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::NotAllowed => f.write_str("outside the allowed ranges"),
            Refusal::Special(c, what) => {
                write!(f, "in {c} ({what}), which no allowed range names")
            }
        }
    }
}

/// The destinations a tunnel server connects to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DestinationPolicy {
    allow: Vec<Cidr>,
    special: Vec<(Cidr, &'static str)>,
}

impl Default for DestinationPolicy {
    /// Every address outside the special ranges.
    fn default() -> Self {
        DestinationPolicy::new(vec![
            Cidr::new(IpAddr::V4(Ipv4Addr::UNSPECIFIED), 0).expect("a /0"),
            Cidr::new(IpAddr::V6(Ipv6Addr::UNSPECIFIED), 0).expect("a /0"),
        ])
    }
}

impl DestinationPolicy {
    /// Destinations in `allow`, special ranges only where an entry of
    /// `allow` lies within them.
    pub fn new(allow: Vec<Cidr>) -> Self {
        let special = SPECIAL
            .iter()
            .map(|(c, what)| (c.parse().expect("the special ranges parse"), *what))
            .collect();
        DestinationPolicy { allow, special }
    }

    /// Whether the tunnel may connect to `ip`. An IPv4 address written as
    /// IPv6 (`::ffff:a.b.c.d`) is judged as the IPv4 address it is.
    pub fn check(&self, ip: IpAddr) -> Result<(), Refusal> {
        let ip = match ip {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
            v4 => v4,
        };
        let allowing: Vec<&Cidr> = self.allow.iter().filter(|c| c.contains(ip)).collect();
        if allowing.is_empty() {
            return Err(Refusal::NotAllowed);
        }
        match self.special.iter().find(|(c, _)| c.contains(ip)) {
            Some((range, what)) if !allowing.iter().any(|a| a.within(range)) => {
                Err(Refusal::Special(*range, what))
            }
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn ranges_parse_and_contain_what_their_prefix_covers() {
        let c: Cidr = "10.1.0.0/16".parse().unwrap();
        assert!(c.contains(ip("10.1.255.3")));
        assert!(!c.contains(ip("10.2.0.1")));
        assert!(!c.contains(ip("::ffff:10.1.0.1")), "IPv6 is another family");
        let odd: Cidr = "172.16.0.0/12".parse().unwrap();
        assert!(odd.contains(ip("172.31.255.255")));
        assert!(!odd.contains(ip("172.32.0.0")));
        let one: Cidr = "2001:db8::1".parse().unwrap();
        assert_eq!(one.to_string(), "2001:db8::1/128");
        assert!(one.contains(ip("2001:db8::1")) && !one.contains(ip("2001:db8::2")));
        for bad in ["10.0.0.0/33", "::/129", "nonsense/8", "10.0.0.0/x", ""] {
            let e = bad.parse::<Cidr>().unwrap_err();
            assert!(e.to_string().contains(&format!("`{bad}`")), "{e}");
        }
    }

    #[test]
    fn by_default_the_public_internet_and_nothing_special() {
        let p = DestinationPolicy::default();
        assert_eq!(p.check(ip("93.184.216.34")), Ok(()));
        assert_eq!(p.check(ip("2606:2800:220:1::1")), Ok(()));
        for special in [
            "127.0.0.1",
            "10.0.0.1",
            "172.16.5.4",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "224.0.0.1",
            "255.255.255.255",
            "::1",
            "::",
            "fe80::1",
            "fd00::1",
            "ff02::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            // IPv4 inside IPv6: NAT64's and 6to4's forms of 10.0.0.1.
            "64:ff9b::a00:1",
            "2002:a00:1::1",
        ] {
            assert!(
                matches!(p.check(ip(special)), Err(Refusal::Special(..))),
                "{special}"
            );
        }
    }

    #[test]
    fn a_special_range_opens_only_to_an_entry_within_it() {
        let p = DestinationPolicy::new(vec![
            "0.0.0.0/0".parse().unwrap(),
            "10.1.0.0/16".parse().unwrap(),
            "127.0.0.1".parse().unwrap(),
        ]);
        assert_eq!(p.check(ip("10.1.2.3")), Ok(()));
        assert_eq!(p.check(ip("127.0.0.1")), Ok(()));
        let e = p.check(ip("10.2.0.1")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "in 10.0.0.0/8 (private), which no allowed range names"
        );
        assert!(p.check(ip("127.0.0.2")).is_err());
        // A list without the catch-all limits public destinations too.
        let narrow = DestinationPolicy::new(vec!["198.51.100.0/24".parse().unwrap()]);
        assert_eq!(narrow.check(ip("198.51.100.7")), Ok(()));
        assert_eq!(narrow.check(ip("93.184.216.34")), Err(Refusal::NotAllowed));
    }
}
