//! Turning protocol values into Rust arguments.
//!
//! `Decode` builds `Range` and `RangeInclusive` and, for `impl RangeBounds<T>` parameters,
//! [`AnyRange<T>`], one type for every range form, from a `Value::Range`; an unsigned integer past
//! `i128::MAX` travels as `Value::BigUint`.

use crate::protocol::{DecodeError, Value};
use crate::slots::Slots;
use std::ops::{Bound, Range, RangeBounds, RangeInclusive};

/// A type the driver can build from a [`Value`]. The generated driver implements it for the
/// crate's own types by taking them from earlier statements' results.
pub trait Decode: Sized {
    fn decode(value: &Value, slots: &mut Slots) -> Result<Self, DecodeError>;
}

/// Decodes an argument; the generated dispatch code calls this for each by-value argument.
pub fn decode<T: Decode>(value: &Value, slots: &mut Slots) -> Result<T, DecodeError> {
    T::decode(value, slots)
}

fn mismatch<T>(expected: &str, got: &Value) -> Result<T, DecodeError> {
    Err(DecodeError::new(format!(
        "expected {expected}, got {got:?}"
    )))
}

macro_rules! decode_int {
    ($($t:ty),*) => {$(
        impl Decode for $t {
            fn decode(value: &Value, _: &mut Slots) -> Result<Self, DecodeError> {
                match value {
                    Value::Int(i) => <$t>::try_from(*i).map_err(|_| {
                        DecodeError::new(format!("{i} does not fit {}", stringify!($t)))
                    }),
                    Value::BigUint(u) => <$t>::try_from(*u).map_err(|_| {
                        DecodeError::new(format!("{u} does not fit {}", stringify!($t)))
                    }),
                    other => mismatch(stringify!($t), other),
                }
            }
        }
    )*};
}
decode_int!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

impl Decode for f64 {
    fn decode(value: &Value, _: &mut Slots) -> Result<Self, DecodeError> {
        match value {
            Value::Float(bits) => Ok(f64::from_bits(*bits)),
            other => mismatch("f64", other),
        }
    }
}

impl Decode for f32 {
    fn decode(value: &Value, slots: &mut Slots) -> Result<Self, DecodeError> {
        f64::decode(value, slots).map(|x| x as f32)
    }
}

impl Decode for bool {
    fn decode(value: &Value, _: &mut Slots) -> Result<Self, DecodeError> {
        match value {
            Value::Bool(b) => Ok(*b),
            other => mismatch("bool", other),
        }
    }
}

impl Decode for char {
    fn decode(value: &Value, _: &mut Slots) -> Result<Self, DecodeError> {
        match value {
            Value::Char(c) => Ok(*c),
            other => mismatch("char", other),
        }
    }
}

/// `Ordering` is passed as -1, 0 or 1 (`Ordering as i8`).
impl Decode for std::cmp::Ordering {
    fn decode(value: &Value, _: &mut Slots) -> Result<Self, DecodeError> {
        match value {
            Value::Int(-1) => Ok(std::cmp::Ordering::Less),
            Value::Int(0) => Ok(std::cmp::Ordering::Equal),
            Value::Int(1) => Ok(std::cmp::Ordering::Greater),
            other => mismatch("Ordering", other),
        }
    }
}

impl Decode for () {
    fn decode(_: &Value, _: &mut Slots) -> Result<Self, DecodeError> {
        Ok(())
    }
}

impl Decode for String {
    fn decode(value: &Value, _: &mut Slots) -> Result<Self, DecodeError> {
        match value {
            Value::Str(s) => Ok(s.clone()),
            other => mismatch("a string", other),
        }
    }
}

/// A path, as text: `PathBuf::from("/etc/app.conf")`.
impl Decode for std::path::PathBuf {
    fn decode(value: &Value, slots: &mut Slots) -> Result<Self, DecodeError> {
        String::decode(value, slots).map(Self::from)
    }
}

/// An OS string, as text: `OsString::from("x")`.
impl Decode for std::ffi::OsString {
    fn decode(value: &Value, slots: &mut Slots) -> Result<Self, DecodeError> {
        String::decode(value, slots).map(Self::from)
    }
}

/// A variable's error, as an option: `None` is `VarError::NotPresent`, text is
/// `VarError::NotUnicode(OsString::from(text))`.
impl Decode for std::env::VarError {
    fn decode(value: &Value, slots: &mut Slots) -> Result<Self, DecodeError> {
        Ok(match Option::<std::ffi::OsString>::decode(value, slots)? {
            None => Self::NotPresent,
            Some(text) => Self::NotUnicode(text),
        })
    }
}

/// Options for opening a file, as their six flags: `read`, `write`, `append`, `truncate`,
/// `create`, `create_new` (a `Value::Tuple` of booleans), each set by the builder's method.
impl Decode for std::fs::OpenOptions {
    fn decode(value: &Value, slots: &mut Slots) -> Result<Self, DecodeError> {
        let (read, write, append, truncate, create, create_new) =
            <(bool, bool, bool, bool, bool, bool)>::decode(value, slots)?;
        let mut options = std::fs::OpenOptions::new();
        options
            .read(read)
            .write(write)
            .append(append)
            .truncate(truncate)
            .create(create)
            .create_new(create_new);
        Ok(options)
    }
}

/// A `Cow<str>`, `Cow<Path>`, `Cow<OsStr>` or `Cow<[T]>`: its owned form (`String`, `PathBuf`,
/// `OsString`, `Vec<T>`), which the callee sees as it would a borrowed one.
impl<B> Decode for std::borrow::Cow<'static, B>
where
    B: ToOwned + ?Sized + 'static,
    B::Owned: Decode,
{
    fn decode(value: &Value, slots: &mut Slots) -> Result<Self, DecodeError> {
        B::Owned::decode(value, slots).map(Self::Owned)
    }
}

/// A file, by its path: opened for reading in the test's environment (`File::open`). A path
/// the environment does not hold is not a value of this type: the statement is invalid.
impl Decode for std::fs::File {
    fn decode(value: &Value, slots: &mut Slots) -> Result<Self, DecodeError> {
        let path = String::decode(value, slots)?;
        std::fs::File::open(&path)
            .map_err(|e| DecodeError::new(format!("cannot open file {path:?}: {e}")))
    }
}

/// A file's metadata, by its path (`std::fs::metadata`); a missing path is invalid, as for
/// `File`.
impl Decode for std::fs::Metadata {
    fn decode(value: &Value, slots: &mut Slots) -> Result<Self, DecodeError> {
        let path = String::decode(value, slots)?;
        std::fs::metadata(&path)
            .map_err(|e| DecodeError::new(format!("cannot read metadata of {path:?}: {e}")))
    }
}

/// A file's type, by its path (`std::fs::metadata(..).file_type()`); a missing path is invalid.
impl Decode for std::fs::FileType {
    fn decode(value: &Value, slots: &mut Slots) -> Result<Self, DecodeError> {
        std::fs::Metadata::decode(value, slots).map(|m| m.file_type())
    }
}

/// A file's permissions, by its path (`std::fs::metadata(..).permissions()`).
impl Decode for std::fs::Permissions {
    fn decode(value: &Value, slots: &mut Slots) -> Result<Self, DecodeError> {
        std::fs::Metadata::decode(value, slots).map(|m| m.permissions())
    }
}

/// A directory listing, by the directory's path (`std::fs::read_dir`).
impl Decode for std::fs::ReadDir {
    fn decode(value: &Value, slots: &mut Slots) -> Result<Self, DecodeError> {
        let path = String::decode(value, slots)?;
        std::fs::read_dir(&path)
            .map_err(|e| DecodeError::new(format!("cannot list directory {path:?}: {e}")))
    }
}

/// A directory entry, by its path: found by its name in its parent's listing (the parent of a
/// bare name is `.`), as tests write it. A path without a name (`/`) or not listed is invalid.
impl Decode for std::fs::DirEntry {
    fn decode(value: &Value, slots: &mut Slots) -> Result<Self, DecodeError> {
        let path = String::decode(value, slots)?;
        let p = std::path::Path::new(&path);
        let name = p
            .file_name()
            .ok_or_else(|| DecodeError::new(format!("{path:?} names no directory entry")))?;
        let parent = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => std::path::Path::new("."),
        };
        std::fs::read_dir(parent)
            .map_err(|e| DecodeError::new(format!("cannot list directory {parent:?}: {e}")))?
            .flatten()
            .find(|e| e.file_name() == name)
            .ok_or_else(|| DecodeError::new(format!("{path:?} is not listed in {parent:?}")))
    }
}

/// An I/O error, by its kind's name: `io::Error::from(io::ErrorKind::NotFound)` is
/// `"NotFound"`. Kinds stable since Rust 1.53 only, so that tests build on older toolchains.
impl Decode for std::io::Error {
    fn decode(value: &Value, slots: &mut Slots) -> Result<Self, DecodeError> {
        use std::io::ErrorKind::*;
        let name = String::decode(value, slots)?;
        let kind = match name.as_str() {
            "NotFound" => NotFound,
            "PermissionDenied" => PermissionDenied,
            "ConnectionRefused" => ConnectionRefused,
            "ConnectionReset" => ConnectionReset,
            "ConnectionAborted" => ConnectionAborted,
            "NotConnected" => NotConnected,
            "AddrInUse" => AddrInUse,
            "AddrNotAvailable" => AddrNotAvailable,
            "BrokenPipe" => BrokenPipe,
            "AlreadyExists" => AlreadyExists,
            "WouldBlock" => WouldBlock,
            "InvalidInput" => InvalidInput,
            "InvalidData" => InvalidData,
            "TimedOut" => TimedOut,
            "WriteZero" => WriteZero,
            "Interrupted" => Interrupted,
            "Unsupported" => Unsupported,
            "UnexpectedEof" => UnexpectedEof,
            "OutOfMemory" => OutOfMemory,
            "Other" => Other,
            other => return Err(DecodeError::new(format!("no I/O error kind `{other}`"))),
        };
        Ok(Self::from(kind))
    }
}

/// A duration, as its nanoseconds: `Duration::from_secs(5)` is `5_000_000_000`.
impl Decode for std::time::Duration {
    fn decode(value: &Value, _: &mut Slots) -> Result<Self, DecodeError> {
        let nanos = match value {
            Value::Int(n) => *n,
            other => return mismatch("a duration (nanoseconds)", other),
        };
        duration(nanos.unsigned_abs())
            .filter(|_| nanos >= 0)
            .ok_or_else(|| DecodeError::new(format!("{nanos} ns is no duration")))
    }
}

/// A point in time, as nanoseconds from the epoch (negative before it), as far as the
/// platform's `SystemTime` reaches.
impl Decode for std::time::SystemTime {
    fn decode(value: &Value, _: &mut Slots) -> Result<Self, DecodeError> {
        let nanos = match value {
            Value::Int(n) => *n,
            other => return mismatch("a time (nanoseconds from the epoch)", other),
        };
        let epoch = std::time::UNIX_EPOCH;
        duration(nanos.unsigned_abs())
            .and_then(|d| {
                if nanos < 0 {
                    epoch.checked_sub(d)
                } else {
                    epoch.checked_add(d)
                }
            })
            .ok_or_else(|| DecodeError::new(format!("{nanos} ns from the epoch is no time")))
    }
}

/// The duration of `nanos` nanoseconds, if a `Duration` holds it.
fn duration(nanos: u128) -> Option<std::time::Duration> {
    let secs = u64::try_from(nanos / 1_000_000_000).ok()?;
    Some(std::time::Duration::new(
        secs,
        (nanos % 1_000_000_000) as u32,
    ))
}

impl<T: Decode> Decode for Vec<T> {
    fn decode(value: &Value, slots: &mut Slots) -> Result<Self, DecodeError> {
        match value {
            Value::Seq(items) => items.iter().map(|v| T::decode(v, slots)).collect(),
            other => mismatch("a sequence", other),
        }
    }
}

/// A map, from a sequence of `(key, value)` tuples (a later key replaces an earlier one, as
/// `HashMap::from` does).
impl<K, V, S> Decode for std::collections::HashMap<K, V, S>
where
    K: Decode + Eq + std::hash::Hash,
    V: Decode,
    S: std::hash::BuildHasher + Default,
{
    fn decode(value: &Value, slots: &mut Slots) -> Result<Self, DecodeError> {
        Vec::<(K, V)>::decode(value, slots).map(|entries| entries.into_iter().collect())
    }
}

impl<K: Decode + Ord, V: Decode> Decode for std::collections::BTreeMap<K, V> {
    fn decode(value: &Value, slots: &mut Slots) -> Result<Self, DecodeError> {
        Vec::<(K, V)>::decode(value, slots).map(|entries| entries.into_iter().collect())
    }
}

/// A set, from a sequence of its items.
impl<T, S> Decode for std::collections::HashSet<T, S>
where
    T: Decode + Eq + std::hash::Hash,
    S: std::hash::BuildHasher + Default,
{
    fn decode(value: &Value, slots: &mut Slots) -> Result<Self, DecodeError> {
        Vec::<T>::decode(value, slots).map(|items| items.into_iter().collect())
    }
}

impl<T: Decode + Ord> Decode for std::collections::BTreeSet<T> {
    fn decode(value: &Value, slots: &mut Slots) -> Result<Self, DecodeError> {
        Vec::<T>::decode(value, slots).map(|items| items.into_iter().collect())
    }
}

impl<T: Decode, const N: usize> Decode for [T; N] {
    fn decode(value: &Value, slots: &mut Slots) -> Result<Self, DecodeError> {
        let items = Vec::<T>::decode(value, slots)?;
        let len = items.len();
        items
            .try_into()
            .map_err(|_| DecodeError::new(format!("expected {N} items, got {len}")))
    }
}

impl<T: Decode> Decode for Option<T> {
    fn decode(value: &Value, slots: &mut Slots) -> Result<Self, DecodeError> {
        match value {
            Value::Opt(None) => Ok(None),
            Value::Opt(Some(v)) => T::decode(v, slots).map(Some),
            other => mismatch("an option", other),
        }
    }
}

impl<T: Decode, E: Decode> Decode for Result<T, E> {
    fn decode(value: &Value, slots: &mut Slots) -> Result<Self, DecodeError> {
        match value {
            Value::Ok(v) => T::decode(v, slots).map(Ok),
            Value::Err(v) => E::decode(v, slots).map(Err),
            other => mismatch("a result", other),
        }
    }
}

/// The bounds of a [`Value::Range`]; `Unbounded` for a bound left out.
fn range_bounds<T: Decode>(
    value: &Value,
    slots: &mut Slots,
) -> Result<(Bound<T>, Bound<T>), DecodeError> {
    let Value::Range {
        start,
        end,
        inclusive,
    } = value
    else {
        return mismatch("a range", value);
    };
    let start = match start {
        Some(v) => Bound::Included(T::decode(v, slots)?),
        None => Bound::Unbounded,
    };
    let end = match (end, inclusive) {
        (Some(v), true) => Bound::Included(T::decode(v, slots)?),
        (Some(v), false) => Bound::Excluded(T::decode(v, slots)?),
        (None, _) => Bound::Unbounded,
    };
    Ok((start, end))
}

impl<T: Decode> Decode for Range<T> {
    fn decode(value: &Value, slots: &mut Slots) -> Result<Self, DecodeError> {
        match range_bounds(value, slots)? {
            (Bound::Included(start), Bound::Excluded(end)) => Ok(start..end),
            _ => mismatch("a range `a..b`", value),
        }
    }
}

impl<T: Decode> Decode for RangeInclusive<T> {
    fn decode(value: &Value, slots: &mut Slots) -> Result<Self, DecodeError> {
        match range_bounds(value, slots)? {
            (Bound::Included(start), Bound::Included(end)) => Ok(start..=end),
            _ => mismatch("a range `a..=b`", value),
        }
    }
}

/// What the driver passes for an `impl RangeBounds<T>` parameter: one type for every form a
/// test writes (`a..b`, `a..=b`, `a..`, `..b`, `..=b`, `..`), each of which gives the same
/// bounds. Never in emitted tests, which write the range itself.
#[derive(Debug, Clone, PartialEq)]
pub struct AnyRange<T> {
    start: Bound<T>,
    end: Bound<T>,
}

impl<T> RangeBounds<T> for AnyRange<T> {
    fn start_bound(&self) -> Bound<&T> {
        self.start.as_ref()
    }

    fn end_bound(&self) -> Bound<&T> {
        self.end.as_ref()
    }
}

impl<T: Decode> Decode for AnyRange<T> {
    fn decode(value: &Value, slots: &mut Slots) -> Result<Self, DecodeError> {
        let (start, end) = range_bounds(value, slots)?;
        Ok(AnyRange { start, end })
    }
}

impl<T: Decode> Decode for Box<T> {
    fn decode(value: &Value, slots: &mut Slots) -> Result<Self, DecodeError> {
        T::decode(value, slots).map(Box::new)
    }
}

/// Text to read, for parameters typed `impl Read` or `impl BufRead`.
impl Decode for std::io::Cursor<String> {
    fn decode(value: &Value, slots: &mut Slots) -> Result<Self, DecodeError> {
        String::decode(value, slots).map(std::io::Cursor::new)
    }
}

/// Items to iterate, for parameters typed `impl Iterator<Item = T>`.
impl<T: Decode> Decode for std::vec::IntoIter<T> {
    fn decode(value: &Value, slots: &mut Slots) -> Result<Self, DecodeError> {
        Vec::<T>::decode(value, slots).map(Vec::into_iter)
    }
}

macro_rules! decode_tuple {
    ($($name:ident),+) => {
        impl<$($name: Decode),+> Decode for ($($name,)+) {
            fn decode(value: &Value, slots: &mut Slots) -> Result<Self, DecodeError> {
                const LEN: usize = [$(stringify!($name)),+].len();
                match value {
                    Value::Tuple(items) if items.len() == LEN => {
                        let mut items = items.iter();
                        Ok(($($name::decode(items.next().unwrap(), slots)?,)+))
                    }
                    other => mismatch("a tuple", other),
                }
            }
        }
    };
}
decode_tuple!(A);
decode_tuple!(A, B);
decode_tuple!(A, B, C);
decode_tuple!(A, B, C, D);
decode_tuple!(A, B, C, D, E);
decode_tuple!(A, B, C, D, E, F);

/// Takes a crate value stored by an earlier statement; generated `Decode` impls call this.
pub fn take_stored<T: 'static>(value: &Value, slots: &mut Slots) -> Result<T, DecodeError> {
    match value {
        Value::Use(n) => slots.take::<T>(*n).map(|b| *b),
        other => mismatch("a value from an earlier statement", other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_nested_std_values() {
        let mut slots = Slots::default();
        let v = Value::Seq(vec![
            Value::Tuple(vec![Value::Int(3), Value::Str("a".into())]),
            Value::Tuple(vec![Value::Int(-1), Value::Str("b".into())]),
        ]);
        let got: Vec<(i8, String)> = decode(&v, &mut slots).unwrap();
        assert_eq!(got, vec![(3, "a".to_string()), (-1, "b".to_string())]);
    }

    #[test]
    fn variable_errors_are_options_of_their_text() {
        use std::env::VarError;
        let mut slots = Slots::default();
        let missing: VarError = decode(&Value::Opt(None), &mut slots).unwrap();
        assert_eq!(missing, VarError::NotPresent);
        let text = Value::Opt(Some(Box::new(Value::Str("x".into()))));
        let bad: VarError = decode(&text, &mut slots).unwrap();
        assert_eq!(bad, VarError::NotUnicode("x".into()));
        assert!(decode::<VarError>(&Value::Str("x".into()), &mut slots).is_err());
        assert_eq!(
            crate::observe::observe(&bad),
            crate::protocol::Observed::Variant(
                "NotUnicode".into(),
                vec![("0".into(), crate::protocol::Observed::Str("x".into()))]
            )
        );
    }

    #[test]
    fn open_options_are_their_flags() {
        let mut slots = Slots::default();
        let flags = |on: [bool; 6]| Value::Tuple(on.iter().map(|b| Value::Bool(*b)).collect());
        let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
        let read: std::fs::OpenOptions = decode(
            &flags([true, false, false, false, false, false]),
            &mut slots,
        )
        .unwrap();
        assert!(read.open(manifest).is_ok());
        let none: std::fs::OpenOptions = decode(&flags([false; 6]), &mut slots).unwrap();
        assert!(none.open(manifest).is_err());
        assert!(decode::<std::fs::OpenOptions>(&Value::Bool(true), &mut slots).is_err());
    }

    #[test]
    fn files_and_metadata_are_opened_at_their_path() {
        use std::io::Read;
        let mut slots = Slots::default();
        let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
        let mut file: std::fs::File = decode(&Value::Str(manifest.into()), &mut slots).unwrap();
        let mut text = String::new();
        file.read_to_string(&mut text).unwrap();
        assert!(text.contains("hermetic-driver"));
        let meta: std::fs::Metadata = decode(&Value::Str("/".into()), &mut slots).unwrap();
        assert!(meta.is_dir());
        let missing = Value::Str("/no/such/file".into());
        let err = decode::<std::fs::File>(&missing, &mut slots).unwrap_err();
        assert!(
            err.0.starts_with("cannot open file \"/no/such/file\""),
            "{}",
            err.0
        );
        assert!(decode::<std::fs::Metadata>(&missing, &mut slots).is_err());
        let ty: std::fs::FileType = decode(&Value::Str("/".into()), &mut slots).unwrap();
        assert!(ty.is_dir());
        let perms: std::fs::Permissions = decode(&Value::Str("/".into()), &mut slots).unwrap();
        let _ = perms.readonly();
        let listing: std::fs::ReadDir = decode(&Value::Str("/".into()), &mut slots).unwrap();
        assert!(listing.count() > 0);
        let entry: std::fs::DirEntry = decode(&Value::Str("/tmp".into()), &mut slots).unwrap();
        assert_eq!(entry.file_name(), "tmp");
        assert!(decode::<std::fs::DirEntry>(&Value::Str("/".into()), &mut slots).is_err());
        assert!(decode::<std::fs::DirEntry>(&missing, &mut slots).is_err());
        assert!(decode::<std::fs::ReadDir>(&missing, &mut slots).is_err());
    }

    #[test]
    fn reports_out_of_range_integers() {
        let mut slots = Slots::default();
        let err = decode::<u8>(&Value::Int(300), &mut slots).unwrap_err();
        assert_eq!(err.0, "300 does not fit u8");
    }

    #[test]
    fn moved_values_cannot_be_used_twice() {
        let mut slots = Slots::default();
        slots.push(Some(Box::new(7u32)));
        assert_eq!(take_stored::<u32>(&Value::Use(0), &mut slots), Ok(7));
        assert!(take_stored::<u32>(&Value::Use(0), &mut slots).is_err());
    }

    #[test]
    fn arrays_check_their_length() {
        let mut slots = Slots::default();
        let v = Value::Seq(vec![Value::Int(1), Value::Int(2)]);
        assert!(decode::<[u8; 3]>(&v, &mut slots).is_err());
        assert_eq!(decode::<[u8; 2]>(&v, &mut slots), Ok([1, 2]));
    }

    #[test]
    fn u128_takes_its_whole_range() {
        let mut slots = Slots::default();
        assert_eq!(
            decode::<u128>(&Value::uint(u128::MAX), &mut slots),
            Ok(u128::MAX)
        );
        assert_eq!(Value::uint(5), Value::Int(5));
        assert!(decode::<u64>(&Value::uint(u128::MAX), &mut slots).is_err());
        assert_eq!(
            decode::<i128>(&Value::Int(i128::MIN), &mut slots),
            Ok(i128::MIN)
        );
    }

    #[test]
    fn maps_and_sets_decode_from_sequences() {
        use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
        let mut slots = Slots::default();
        let pair = |k: &str, v| Value::Tuple(vec![Value::Str(k.into()), Value::Int(v)]);
        let entries = Value::Seq(vec![pair("a", 1), pair("b", 2), pair("a", 3)]);
        let map: HashMap<String, u8> = decode(&entries, &mut slots).unwrap();
        assert_eq!(map, HashMap::from([("a".into(), 3), ("b".into(), 2)]));
        let map: BTreeMap<String, u8> = decode(&entries, &mut slots).unwrap();
        assert_eq!(map, BTreeMap::from([("a".into(), 3), ("b".into(), 2)]));
        let items = Value::Seq(vec![Value::Int(2), Value::Int(1), Value::Int(2)]);
        let set: HashSet<u8> = decode(&items, &mut slots).unwrap();
        assert_eq!(set, HashSet::from([1, 2]));
        let set: BTreeSet<u8> = decode(&items, &mut slots).unwrap();
        assert_eq!(set, BTreeSet::from([1, 2]));
        assert!(decode::<HashSet<u8>>(&entries, &mut slots).is_err());
    }

    #[test]
    fn times_decode_from_nanoseconds() {
        use std::time::{Duration, UNIX_EPOCH};
        let mut slots = Slots::default();
        assert_eq!(
            decode(&Value::Int(1_500_000_000), &mut slots),
            Ok(Duration::from_millis(1500))
        );
        let max = Duration::MAX.as_nanos() as i128;
        assert_eq!(decode(&Value::Int(max), &mut slots), Ok(Duration::MAX));
        assert!(decode::<Duration>(&Value::Int(max + 1), &mut slots).is_err());
        assert!(decode::<Duration>(&Value::Int(-1), &mut slots).is_err());
        assert_eq!(
            decode(&Value::Int(-2_000_000_000), &mut slots),
            Ok(UNIX_EPOCH - Duration::from_secs(2))
        );
        assert_eq!(
            decode(&Value::Int(1_704_067_200_000_000_000), &mut slots),
            Ok(UNIX_EPOCH + Duration::from_secs(1_704_067_200))
        );
        assert!(decode::<std::time::SystemTime>(&Value::Int(max), &mut slots).is_err());
    }

    #[test]
    fn paths_and_os_strings_decode_from_text() {
        let mut slots = Slots::default();
        let text = Value::Str("/etc/app.conf".into());
        assert_eq!(
            decode::<std::path::PathBuf>(&text, &mut slots),
            Ok("/etc/app.conf".into())
        );
        assert_eq!(
            decode::<std::ffi::OsString>(&text, &mut slots),
            Ok("/etc/app.conf".into())
        );
        assert!(decode::<std::path::PathBuf>(&Value::Int(1), &mut slots).is_err());
        let error = decode::<std::io::Error>(&Value::Str("NotFound".into()), &mut slots);
        assert_eq!(error.map(|e| e.kind()), Ok(std::io::ErrorKind::NotFound));
        assert!(decode::<std::io::Error>(&Value::Str("Lost".into()), &mut slots).is_err());
        assert_eq!(
            decode::<std::borrow::Cow<'_, str>>(&text, &mut slots),
            Ok("/etc/app.conf".into())
        );
        assert_eq!(
            decode::<std::borrow::Cow<'_, std::path::Path>>(&text, &mut slots),
            Ok(std::path::Path::new("/etc/app.conf").into())
        );
        let bytes = Value::Seq(vec![Value::Int(1), Value::Int(2)]);
        assert_eq!(
            decode::<std::borrow::Cow<'_, [u8]>>(&bytes, &mut slots),
            Ok(vec![1u8, 2].into())
        );
    }

    fn range(start: Option<i128>, end: Option<i128>, inclusive: bool) -> Value {
        let int = |i: i128| Box::new(Value::Int(i));
        Value::Range {
            start: start.map(int),
            end: end.map(int),
            inclusive,
        }
    }

    #[test]
    // A reversed range is one the search draws on purpose.
    #[allow(clippy::reversed_empty_ranges)]
    fn ranges_decode_by_their_form() {
        let mut slots = Slots::default();
        let half_open = range(Some(7), Some(3), false);
        assert_eq!(decode::<Range<u8>>(&half_open, &mut slots), Ok(7..3));
        assert!(decode::<RangeInclusive<u8>>(&half_open, &mut slots).is_err());
        let closed = range(Some(3), Some(7), true);
        assert_eq!(decode::<RangeInclusive<u8>>(&closed, &mut slots), Ok(3..=7));
        let to = decode::<AnyRange<u64>>(&range(None, Some(9), true), &mut slots).unwrap();
        assert_eq!(
            (to.start_bound(), to.end_bound()),
            (Bound::Unbounded, Bound::Included(&9))
        );
        assert!(decode::<Range<u8>>(&range(None, None, false), &mut slots).is_err());
    }
}
