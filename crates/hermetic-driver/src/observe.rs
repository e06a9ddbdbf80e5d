//! Turning returned values into observations the engine can write back as Rust.

use crate::protocol::Observed;

/// A type whose values the driver can report. The generated driver implements it for the
/// crate's own types, field by field, or through their `Debug` text.
pub trait Observe {
    fn observe(&self) -> Observed;
}

/// Observes a returned value; the generated dispatch code calls this.
pub fn observe<T: Observe + ?Sized>(value: &T) -> Observed {
    value.observe()
}

macro_rules! observe_signed {
    ($($t:ty),*) => {$(
        impl Observe for $t {
            fn observe(&self) -> Observed { Observed::Int(*self as i128) }
        }
    )*};
}
observe_signed!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, usize);

impl Observe for u128 {
    fn observe(&self) -> Observed {
        match i128::try_from(*self) {
            Ok(i) => Observed::Int(i),
            Err(_) => Observed::BigUint(*self),
        }
    }
}

impl Observe for f64 {
    fn observe(&self) -> Observed {
        Observed::Float(self.to_bits())
    }
}

impl Observe for f32 {
    fn observe(&self) -> Observed {
        Observed::Float((*self as f64).to_bits())
    }
}

impl Observe for bool {
    fn observe(&self) -> Observed {
        Observed::Bool(*self)
    }
}

impl Observe for char {
    fn observe(&self) -> Observed {
        Observed::Char(*self)
    }
}

impl<T: Observe> Observe for std::ops::Range<T> {
    fn observe(&self) -> Observed {
        Observed::Range(
            Box::new(self.start.observe()),
            Box::new(self.end.observe()),
            false,
        )
    }
}

impl<T: Observe> Observe for std::ops::RangeInclusive<T> {
    fn observe(&self) -> Observed {
        Observed::Range(
            Box::new(self.start().observe()),
            Box::new(self.end().observe()),
            true,
        )
    }
}

impl Observe for std::cmp::Ordering {
    fn observe(&self) -> Observed {
        Observed::Variant(format!("{self:?}"), Vec::new())
    }
}

impl Observe for () {
    fn observe(&self) -> Observed {
        Observed::Unit
    }
}

impl Observe for str {
    fn observe(&self) -> Observed {
        Observed::Str(self.to_string())
    }
}

impl Observe for String {
    fn observe(&self) -> Observed {
        Observed::Str(self.clone())
    }
}

/// A `Cow` as what it borrows or owns alike (`Cow<str>` as text, `Cow<[T]>` as its items).
impl<B: ToOwned + Observe + ?Sized> Observe for std::borrow::Cow<'_, B> {
    fn observe(&self) -> Observed {
        (**self).observe()
    }
}

/// Text that is not UTF-8 is known by its `Debug` text only.
fn os_text(s: &std::ffi::OsStr) -> Observed {
    match s.to_str() {
        Some(text) => Observed::Str(text.to_string()),
        None => Observed::Debug(format!("{s:?}")),
    }
}

impl Observe for std::ffi::OsStr {
    fn observe(&self) -> Observed {
        os_text(self)
    }
}

impl Observe for std::ffi::OsString {
    fn observe(&self) -> Observed {
        os_text(self)
    }
}

impl Observe for std::path::Path {
    fn observe(&self) -> Observed {
        os_text(self.as_os_str())
    }
}

impl Observe for std::path::PathBuf {
    fn observe(&self) -> Observed {
        os_text(self.as_os_str())
    }
}

/// A variable's error as its variant: `NotPresent`, or `NotUnicode` and the text.
impl Observe for std::env::VarError {
    fn observe(&self) -> Observed {
        match self {
            Self::NotPresent => Observed::Variant("NotPresent".into(), Vec::new()),
            Self::NotUnicode(text) => {
                Observed::Variant("NotUnicode".into(), vec![("0".into(), os_text(text))])
            }
        }
    }
}

/// A duration as its nanoseconds.
impl Observe for std::time::Duration {
    fn observe(&self) -> Observed {
        Observed::Int(self.as_nanos() as i128)
    }
}

/// A point in time as nanoseconds from the epoch, negative before it.
impl Observe for std::time::SystemTime {
    fn observe(&self) -> Observed {
        match self.duration_since(std::time::UNIX_EPOCH) {
            Ok(after) => Observed::Int(after.as_nanos() as i128),
            Err(before) => Observed::Int(-(before.duration().as_nanos() as i128)),
        }
    }
}

/// Entries in an order that does not depend on hashing: numbers and text in their order,
/// tuples by their items, other values by their observation's text.
fn sorted(mut items: Vec<Observed>) -> Observed {
    fn order(a: &Observed, b: &Observed) -> std::cmp::Ordering {
        match (a, b) {
            (Observed::Int(x), Observed::Int(y)) => x.cmp(y),
            (Observed::Str(x), Observed::Str(y)) => x.cmp(y),
            (Observed::Tuple(x), Observed::Tuple(y)) => x
                .iter()
                .zip(y)
                .map(|(a, b)| order(a, b))
                .find(|o| o.is_ne())
                .unwrap_or(x.len().cmp(&y.len())),
            _ => format!("{a:?}").cmp(&format!("{b:?}")),
        }
    }
    items.sort_by(order);
    Observed::Seq(items)
}

/// A map as its `(key, value)` tuples, sorted, so an assertion holds in any hash order.
impl<K: Observe, V: Observe, S> Observe for std::collections::HashMap<K, V, S> {
    fn observe(&self) -> Observed {
        sorted(
            self.iter()
                .map(|(k, v)| Observed::Tuple(vec![k.observe(), v.observe()]))
                .collect(),
        )
    }
}

impl<K: Observe, V: Observe> Observe for std::collections::BTreeMap<K, V> {
    fn observe(&self) -> Observed {
        Observed::Seq(
            self.iter()
                .map(|(k, v)| Observed::Tuple(vec![k.observe(), v.observe()]))
                .collect(),
        )
    }
}

/// A set as its items, sorted as a map's entries are.
impl<T: Observe, S> Observe for std::collections::HashSet<T, S> {
    fn observe(&self) -> Observed {
        sorted(self.iter().map(Observe::observe).collect())
    }
}

impl<T: Observe> Observe for std::collections::BTreeSet<T> {
    fn observe(&self) -> Observed {
        Observed::Seq(self.iter().map(Observe::observe).collect())
    }
}

impl<T: Observe> Observe for [T] {
    fn observe(&self) -> Observed {
        Observed::Seq(self.iter().map(Observe::observe).collect())
    }
}

impl<T: Observe> Observe for Vec<T> {
    fn observe(&self) -> Observed {
        self.as_slice().observe()
    }
}

impl<T: Observe, const N: usize> Observe for [T; N] {
    fn observe(&self) -> Observed {
        self.as_slice().observe()
    }
}

impl<T: Observe> Observe for Option<T> {
    fn observe(&self) -> Observed {
        Observed::Opt(self.as_ref().map(|v| Box::new(v.observe())))
    }
}

impl<T: Observe, E: Observe> Observe for Result<T, E> {
    fn observe(&self) -> Observed {
        match self {
            Ok(v) => Observed::Ok(Box::new(v.observe())),
            Err(e) => Observed::Err(Box::new(e.observe())),
        }
    }
}

impl<T: Observe + ?Sized> Observe for Box<T> {
    fn observe(&self) -> Observed {
        (**self).observe()
    }
}

impl<T: Observe + ?Sized> Observe for &T {
    fn observe(&self) -> Observed {
        (**self).observe()
    }
}

impl<T: Observe + ?Sized> Observe for &mut T {
    fn observe(&self) -> Observed {
        (**self).observe()
    }
}

macro_rules! observe_tuple {
    ($($name:ident $idx:tt),+) => {
        impl<$($name: Observe),+> Observe for ($($name,)+) {
            fn observe(&self) -> Observed {
                Observed::Tuple(vec![$(self.$idx.observe()),+])
            }
        }
    };
}
observe_tuple!(A 0);
observe_tuple!(A 0, B 1);
observe_tuple!(A 0, B 1, C 2);
observe_tuple!(A 0, B 1, C 2, D 3);
observe_tuple!(A 0, B 1, C 2, D 3, E 4);
observe_tuple!(A 0, B 1, C 2, D 3, E 4, F 5);

/// An I/O error is known by its kind (`NotFound`); its message is the operating system's.
impl Observe for std::io::Error {
    fn observe(&self) -> Observed {
        Observed::Debug(format!("{:?}", self.kind()))
    }
}

/// A file handle says nothing a test could check again: its descriptor and position are the
/// process's.
impl Observe for std::fs::File {
    fn observe(&self) -> Observed {
        Observed::Opaque
    }
}

/// A file's metadata holds times and inode numbers of the environment: not checked.
impl Observe for std::fs::Metadata {
    fn observe(&self) -> Observed {
        Observed::Opaque
    }
}

/// File types, permissions, listings and directory entries are the environment's, and options'
/// `Debug` text the platform's: not checked.
macro_rules! opaque {
    ($($t:ty),*) => {$(
        impl Observe for $t {
            fn observe(&self) -> Observed {
                Observed::Opaque
            }
        }
    )*};
}
opaque!(
    std::fs::OpenOptions,
    std::fs::FileType,
    std::fs::Permissions,
    std::fs::ReadDir,
    std::fs::DirEntry
);

/// The `Debug` text of a value, for crate types whose fields cannot all be observed.
pub fn debug_text<T: std::fmt::Debug + ?Sized>(value: &T) -> Observed {
    Observed::Debug(format!("{value:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn observes_nested_values() {
        let v: Result<Vec<Option<u8>>, String> = Ok(vec![Some(1), None]);
        assert_eq!(
            observe(&v),
            Observed::Ok(Box::new(Observed::Seq(vec![
                Observed::Opt(Some(Box::new(Observed::Int(1)))),
                Observed::Opt(None)
            ])))
        );
        assert_eq!(observe(&u128::MAX), Observed::BigUint(u128::MAX));
    }

    #[test]
    fn maps_and_sets_are_observed_in_an_order_hashing_does_not_decide() {
        use std::collections::{BTreeMap, HashMap, HashSet};
        let pair = |k: &str, v| Observed::Tuple(vec![Observed::Str(k.into()), Observed::Int(v)]);
        let map: HashMap<&str, u8> = (0..50).map(|i| (["b", "a", "c"][i % 3], 1)).collect();
        let want = Observed::Seq(vec![pair("a", 1), pair("b", 1), pair("c", 1)]);
        assert_eq!(observe(&map), want);
        let map: BTreeMap<&str, u8> = map.into_iter().collect();
        assert_eq!(observe(&map), want);
        let up: HashSet<u8> = (0..20).collect();
        let down: HashSet<u8> = (0..20).rev().collect();
        assert_eq!(observe(&up), observe(&down));
        assert_eq!(
            observe(&down),
            Observed::Seq((0..20).map(Observed::Int).collect())
        );
    }

    #[test]
    fn times_are_observed_as_nanoseconds() {
        use std::time::{Duration, UNIX_EPOCH};
        assert_eq!(
            observe(&Duration::from_millis(1500)),
            Observed::Int(1_500_000_000)
        );
        assert_eq!(
            observe(&Duration::MAX),
            Observed::Int(Duration::MAX.as_nanos() as i128)
        );
        assert_eq!(
            observe(&(UNIX_EPOCH - Duration::from_nanos(5))),
            Observed::Int(-5)
        );
        assert_eq!(
            observe(&(UNIX_EPOCH + Duration::from_secs(3))),
            Observed::Int(3_000_000_000)
        );
    }

    #[test]
    fn paths_are_observed_as_text_unless_not_utf8() {
        use std::os::unix::ffi::OsStrExt;
        let path = std::path::Path::new("/etc/app.conf");
        assert_eq!(observe(path), Observed::Str("/etc/app.conf".into()));
        assert_eq!(observe(&path.to_path_buf()), observe(path));
        let bad = std::ffi::OsStr::from_bytes(b"a\xffb");
        assert_eq!(observe(bad), Observed::Debug(format!("{bad:?}")));
    }

    #[test]
    fn a_cow_is_observed_as_what_it_holds() {
        use std::borrow::Cow;
        let path = std::path::Path::new("/etc");
        assert_eq!(observe(&Cow::Borrowed(path)), observe(path));
        assert_eq!(observe(&Cow::<str>::Owned("x".into())), observe("x"));
        let bytes: Cow<[u8]> = Cow::Owned(vec![1, 2]);
        assert_eq!(observe(&bytes), observe(&vec![1u8, 2]));
    }
}
