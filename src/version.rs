//! Dotted version numbers (`7.5`, `6.2.0`) as the HIPIFY tables and ROCm releases write them.
//!
//! A missing patch compares as 0, but is remembered so that a version prints as it was written
//! and so that `record target` can insist on a full `X.Y.Z` where one is required.
//!
//! Not the `semver` crate: ROCm and CUDA releases are written `6.2` and `12.4` as often as
//! `6.2.4`, which `semver::Version` rejects (it requires `X.Y.Z`), and these versions have no
//! pre-release or build part for it to order. Python versions (`2.3.1+cu121`) are PEP 440 and
//! read with `pep440_rs` where the inventory needs them.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

#[derive(Clone, Copy, Debug, Eq)]
pub struct Version {
    pub major: u32,
    pub minor: u32,
    pub patch: Option<u32>,
}

impl Version {
    pub const fn new(major: u32, minor: u32, patch: u32) -> Self {
        Version {
            major,
            minor,
            patch: Some(patch),
        }
    }

    fn key(&self) -> (u32, u32, u32) {
        (self.major, self.minor, self.patch.unwrap_or(0))
    }

    /// `6.2` and `6.2.4` share the release line `6.2`.
    pub fn same_minor(&self, other: &Version) -> bool {
        self.major == other.major && self.minor == other.minor
    }
}

impl PartialEq for Version {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}

impl std::hash::Hash for Version {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.key().hash(state)
    }
}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Version {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key().cmp(&other.key())
    }
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("`{0}` is not a version: expected X.Y or X.Y.Z with numbers, e.g. 6.2 or 6.2.4")]
pub struct VersionError(pub String);

impl FromStr for Version {
    type Err = VersionError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = || VersionError(s.to_string());
        let mut parts = s.trim().split('.');
        let num = |p: Option<&str>| -> Result<u32, VersionError> {
            let p = p.ok_or_else(err)?;
            if p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()) || p.len() > 6 {
                return Err(err());
            }
            p.parse().map_err(|_| err())
        };
        let major = num(parts.next())?;
        let minor = num(parts.next())?;
        let patch = match parts.next() {
            Some(p) => Some(num(Some(p))?),
            None => None,
        };
        if parts.next().is_some() {
            return Err(err());
        }
        Ok(Version {
            major,
            minor,
            patch,
        })
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.patch {
            Some(p) => write!(f, "{}.{}.{}", self.major, self.minor, p),
            None => write!(f, "{}.{}", self.major, self.minor),
        }
    }
}

impl serde::Serialize for Version {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Version {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_orders() {
        let a: Version = "6.2".parse().unwrap();
        let b: Version = "6.2.0".parse().unwrap();
        let c: Version = "6.10.1".parse().unwrap();
        assert_eq!(a, b);
        assert!(c > b);
        assert_eq!(a.to_string(), "6.2");
        assert_eq!(b.to_string(), "6.2.0");
        assert!("latest".parse::<Version>().is_err());
        assert!("6".parse::<Version>().is_err());
        assert!("6.2.1.4".parse::<Version>().is_err());
        assert!("6.x".parse::<Version>().is_err());
        assert!("6..1".parse::<Version>().is_err());
    }
}
