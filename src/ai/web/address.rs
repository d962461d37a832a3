//! Which addresses a fetch may reach: public unicast only, unless the
//! configuration opens private ones (all, or for named hosts).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why an address is not public: loopback, private, link-local (cloud
/// metadata services live there), … `None` for a public unicast address.
pub fn private_kind(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => v4_kind(v4),
        IpAddr::V6(v6) => v6_kind(v6),
    }
}

fn v4_kind(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, ..] = ip.octets();
    if a == 0 {
        Some("\"this network\" (0.0.0.0/8)")
    } else if ip.is_loopback() {
        Some("loopback")
    } else if ip.is_private() {
        Some("private")
    } else if ip.is_link_local() {
        Some("link-local (where cloud metadata services answer)")
    } else if a == 100 && (64..128).contains(&b) {
        Some("shared address space (100.64.0.0/10)")
    } else if ip.is_broadcast() || ip.is_multicast() {
        Some("broadcast or multicast")
    } else if a >= 240 {
        Some("reserved")
    } else {
        None
    }
}

fn v6_kind(ip: Ipv6Addr) -> Option<&'static str> {
    let segments = ip.segments();
    if let Some(v4) = embedded_v4(ip) {
        return v4_kind(v4);
    }
    if ip.is_unspecified() {
        Some("unspecified (::)")
    } else if ip.is_loopback() {
        Some("loopback")
    } else if segments[0] & 0xfe00 == 0xfc00 {
        Some("unique local (fc00::/7)")
    } else if segments[0] & 0xffc0 == 0xfe80 || segments[0] & 0xffc0 == 0xfec0 {
        Some("link-local")
    } else if ip.is_multicast() {
        Some("multicast")
    } else {
        None
    }
}

/// The IPv4 address an IPv6 address carries where the connection would in
/// effect reach it: IPv4-mapped (`::ffff:a.b.c.d`), IPv4-compatible
/// (`::a.b.c.d`), NAT64 (`64:ff9b::/96`) and 6to4 (`2002::/16`).
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let low = Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
    if s[..5] == [0; 5]
        && (s[5] == 0xffff || (s[5] == 0 && !ip.is_loopback() && !ip.is_unspecified()))
    {
        return Some(low);
    }
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return Some(low);
    }
    if s[0] == 0x2002 {
        return Some(Ipv4Addr::new(
            (s[1] >> 8) as u8,
            s[1] as u8,
            (s[2] >> 8) as u8,
            s[2] as u8,
        ));
    }
    None
}

/// What every refusal says (found again in a connection error's text).
pub(super) const CLOSED: &str = "fetching from private addresses is off";

/// The configured exceptions to the public-only rule.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PrivateAccess {
    /// Every address may be reached (`[web] allow_private = true`).
    pub all: bool,
    /// Hosts, lower case, that may resolve to private addresses
    /// (`[web] private_hosts`, an intranet wiki); other hosts may not.
    pub hosts: Vec<String>,
}

impl PrivateAccess {
    /// Whether `host` may be reached at `ip`; `Err` says why not.
    pub fn check(&self, host: &str, ip: IpAddr) -> Result<(), String> {
        let Some(kind) = private_kind(ip) else {
            return Ok(());
        };
        let host = host.to_ascii_lowercase();
        if self.all || self.hosts.contains(&host) {
            return Ok(());
        }
        Err(format!(
            "{host} resolves to {ip}, a {kind} address; {CLOSED} ([web] allow_private or private_hosts in config.toml open it)"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(text: &str) -> Option<&'static str> {
        private_kind(text.parse().unwrap())
    }

    #[test]
    fn private_loopback_link_local_and_metadata_addresses_are_caught() {
        for ip in [
            "127.0.0.1",
            "127.255.0.9",
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "100.100.100.200",
            "0.0.0.0",
            "0.1.2.3",
            "255.255.255.255",
            "224.0.0.1",
            "::1",
            "::",
            "fc00::1",
            "fd00:ec2::254",
            "fe80::1",
            "ff02::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "::127.0.0.1",
            "64:ff9b::10.0.0.1",
            "2002:a00:1::",
        ] {
            assert!(kind(ip).is_some(), "{ip} passed as public");
        }
    }

    #[test]
    fn public_addresses_pass() {
        for ip in [
            "1.1.1.1",
            "8.8.8.8",
            "172.32.0.1",
            "100.128.0.1",
            "2606:4700::1111",
            "::ffff:8.8.8.8",
        ] {
            assert_eq!(kind(ip), None, "{ip}");
        }
    }

    #[test]
    fn exceptions_open_all_or_only_named_hosts() {
        let ip: IpAddr = "127.0.0.1".parse().unwrap();
        let none = PrivateAccess::default();
        let err = none.check("LocalHost", ip).unwrap_err();
        assert!(
            err.contains("localhost resolves to 127.0.0.1, a loopback"),
            "{err}"
        );
        let named = PrivateAccess {
            all: false,
            hosts: vec!["localhost".into()],
        };
        assert_eq!(named.check("LOCALHOST", ip), Ok(()));
        assert!(named.check("127.0.0.1", ip).is_err());
        let all = PrivateAccess {
            all: true,
            hosts: Vec::new(),
        };
        assert_eq!(all.check("127.0.0.1", ip), Ok(()));
        assert_eq!(none.check("one.one", "1.1.1.1".parse().unwrap()), Ok(()));
    }
}
