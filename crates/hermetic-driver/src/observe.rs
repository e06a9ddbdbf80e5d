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
    fn paths_are_observed_as_text_unless_not_utf8() {
        use std::os::unix::ffi::OsStrExt;
        let path = std::path::Path::new("/etc/app.conf");
        assert_eq!(observe(path), Observed::Str("/etc/app.conf".into()));
        assert_eq!(observe(&path.to_path_buf()), observe(path));
        let bad = std::ffi::OsStr::from_bytes(b"a\xffb");
        assert_eq!(observe(bad), Observed::Debug(format!("{bad:?}")));
    }
}
