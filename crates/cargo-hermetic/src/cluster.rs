//! The test cluster: what a test in a given module can build and call, as found by analysis.
//!
//! Analysis produces it; the driver generator, the search and the emitter read it. Nothing here
//! knows how the cluster was found or how Rust is printed (see `rust_syntax` for that).

use serde::Serialize;
use std::path::PathBuf;

/// Index into `Cluster::modules`.
pub type ModuleId = usize;
/// Index into `Cluster::types`.
pub type TypeId = usize;
/// Index into `Cluster::callables`; also the index of the callable's driver dispatch entry.
pub type CallableId = usize;
/// Index into `Cluster::traits`.
pub type TraitId = usize;
/// Index into `Cluster::units`.
pub type UnitId = usize;
/// Index into `Cluster::fakes`.
pub type FakeId = usize;

#[derive(Debug, Clone, Default)]
pub struct Cluster {
    /// The library crate's name as Rust code spells it (`-` replaced by `_`).
    pub crate_name: String,
    /// The crate root says `#![no_std]` (whatever its features): its test modules name the
    /// standard library themselves, and the driver's copy is built with it.
    pub no_std: bool,
    /// Module 0 is the crate root.
    pub modules: Vec<Module>,
    /// Paths of modules the test build compiles but analysis leaves out, the crate's own
    /// `#[cfg(test)] mod unit_checks` whatever its name, and of its `#[test]` functions outside
    /// such modules: their code is never a goal.
    pub left_out_modules: Vec<Vec<String>>,
    pub types: Vec<TypeDef>,
    pub callables: Vec<Callable>,
    /// The crate's traits that tests can mock.
    pub traits: Vec<TraitDef>,
    /// Items analysis could not use, with the reason, for the report.
    pub skipped: Vec<Skipped>,
    /// Constants found in the source, to seed the search.
    pub literals: Literals,
    /// Free functions and `impl` blocks with the calls they make that leave their module
    /// (seed 000's units), for `--isolate`.
    pub units: Vec<Unit>,
    /// The callees whose calls tests may fake (`--isolate`); each has a `CallableKind::Fake`
    /// callable that sets it up.
    pub fakes: Vec<FakeDef>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Module {
    /// Path below the crate root: `[]` for the root, `["parser", "lexer"]` for `parser::lexer`.
    pub path: Vec<String>,
    /// The parent module, `None` for the root.
    pub parent: Option<ModuleId>,
    /// Visibility of the `mod` item in its parent (the root counts as `Pub`).
    pub vis: Vis,
    /// The file that holds the module's items.
    pub file: PathBuf,
    /// Where the module's items live in `file`.
    pub body: ModuleBody,
    /// Whether the file is a "mod-rs" file (lib.rs, main.rs, mod.rs), whose child module files
    /// live beside it rather than in a directory named after it.
    pub mod_rs: bool,
    /// Prelude types (`Result`, `Option`, `Vec`, `String`, `Box`) and std types tests name
    /// (`StdTy`: `PathBuf`, `Path`, ..) whose name means something else here: a crate alias
    /// `Result<T>`, a `use std::io::Result`, a crate type `Path`. Code placed in a child module
    /// with `use super::*` spells them by their std path (and imports the others).
    pub shadowed_prelude: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ModuleBody {
    /// The whole file.
    File,
    /// An inline `mod name { .. }` in `file`; byte offset of its closing brace.
    Inline { close_brace: usize },
}

/// Visibility as declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Vis {
    /// `pub`
    Pub,
    /// `pub(crate)` (and `pub(in crate)`)
    Crate,
    /// `pub(super)`
    Super,
    /// no modifier (or `pub(self)`, `pub(in path)`, treated as private to be safe)
    Private,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TypeDef {
    pub name: String,
    pub module: ModuleId,
    pub vis: Vis,
    /// Names of the type parameters, in order (`["T"]` for `Wrapper<T>`).
    pub generics: Vec<String>,
    /// How many lifetime parameters it has (`Parser<'a>`): the driver spells them `'static`
    /// (it keeps what such a value borrows alive for the whole execution), tests `'_`.
    pub lifetimes: usize,
    /// The bounds the type declares on its parameters, as where-clause predicates in source
    /// text (`TSys: Sys`, from `<TSys: Sys>` or its where clause): the driver's impls for the
    /// type repeat them, or they would not compile.
    pub bounds: Vec<String>,
    /// Why no `Ty` can name the type (const parameters), if none can: the driver gives it no
    /// `Decode`/`Observe` impls, which would not compile.
    pub unsupported_generics: Option<String>,
    /// Traits in `#[derive(..)]`, by last path segment: `["Debug", "Clone", "PartialEq"]`.
    pub derives: Vec<String>,
    /// Traits implemented by hand in the crate (`impl Display for X`), by last path segment.
    pub impls: Vec<String>,
    pub kind: TypeKind,
}

impl TypeDef {
    /// Whether the crate derives or implements trait `name` (last path segment) for the type.
    pub fn implements(&self, name: &str) -> bool {
        self.derives.iter().chain(&self.impls).any(|d| d == name)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum TypeKind {
    Struct(Fields),
    Enum(Vec<Variant>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Variant {
    pub name: String,
    pub fields: Fields,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Fields {
    Unit,
    /// `Name(A, B)`; field names are "0", "1", ..
    Tuple(Vec<Field>),
    Named(Vec<Field>),
}

impl Fields {
    pub fn all(&self) -> &[Field] {
        match self {
            Fields::Unit => &[],
            Fields::Tuple(f) | Fields::Named(f) => f,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub name: String,
    /// `None` when the field's type is outside what hermetic supports.
    pub ty: Option<Ty>,
    /// For enum variant fields this is `Pub` (they are as visible as the enum).
    pub vis: Vis,
}

/// A type hermetic can build, pass, store or observe.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Ty {
    Unit,
    Bool,
    Char,
    Int(IntTy),
    Float(FloatTy),
    String,
    /// `&str`
    Str,
    Vec(Box<Ty>),
    /// `&[T]`
    Slice(Box<Ty>),
    Array(Box<Ty>, usize),
    Tuple(Vec<Ty>),
    Option(Box<Ty>),
    Result(Box<Ty>, Box<Ty>),
    Box(Box<Ty>),
    /// `&T` (other than `&str` and `&[T]`)
    Ref(Box<Ty>),
    /// `&mut T`
    RefMut(Box<Ty>),
    /// A struct or enum of the crate, with its generic arguments.
    Adt(TypeId, Vec<Ty>),
    /// `std::io::Error`, as its kind's name (`Value::Str("NotFound")`): built by
    /// `io::Error::from(io::ErrorKind::NotFound)`, observed and checked by its kind.
    IoError,
    /// `std::cmp::Ordering` (`Less`, `Equal`, `Greater`; passed as -1, 0, 1).
    Ordering,
    /// `std::io::Cursor<String>`: text to read, standing in for `io::Read` and `io::BufRead`.
    Reader,
    /// `std::vec::IntoIter<T>`: standing in for `Iterator<Item = T>`.
    IntoIter(Box<Ty>),
    /// A range of integers or chars (`3..7`, `3..=7`, or any form for `impl RangeBounds<T>`).
    Range(Box<Ty>, RangeKind),
    /// The generated mock of a crate trait (`MockLedger` for `Ledger`), standing for a
    /// parameter typed by the trait: `impl Ledger`, `T: Ledger`, `dyn Ledger` behind a pointer.
    Mock(TraitId),
    /// A std type outside the prelude, with its type arguments (see [`StdTy`]).
    Std(StdTy, Vec<Ty>),
    /// A closure standing for a parameter bounded by `Fn(A, B) -> R` (or `FnMut`, `FnOnce`;
    /// `impl Fn(..)`, `&dyn Fn(..)`): it takes that many arguments and ignores them, returning
    /// the same value of type `R` on every call. Its value is that return value; tests write
    /// `|_, _| true`. Only passed straight to a call, never stored: its type has no name.
    Closure(usize, Box<Ty>),
}

impl Callable {
    /// The parameter types of its function item (`Type::method` takes the receiver first), each
    /// `None` where the type is not the signature's own; `None` for a callable with an
    /// `impl Trait` parameter, whose item names no one function.
    pub fn item_params(&self) -> Option<Vec<Option<Ty>>> {
        let receiver = match &self.kind {
            CallableKind::Method {
                self_ty, receiver, ..
            } => Some(match receiver {
                Receiver::Ref => Ty::Ref(Box::new(self_ty.clone())),
                Receiver::RefMut => Ty::RefMut(Box::new(self_ty.clone())),
                Receiver::Value => self_ty.clone(),
            }),
            _ => None,
        };
        let mut params: Vec<Option<Ty>> = receiver.into_iter().map(Some).collect();
        for p in &self.params {
            params.push(match p.written {
                Written::AsIs => Some(p.ty.clone()),
                Written::StandIn => None,
                Written::ImplTrait => return None,
            });
        }
        Some(params)
    }
}

impl Ty {
    /// Whether this type, or any type inside it, satisfies `pred`.
    pub fn mentions(&self, pred: &impl Fn(&Ty) -> bool) -> bool {
        pred(self) || self.children().into_iter().any(|t| t.mentions(pred))
    }

    /// The types this one is made of, one level down: the element of `Vec<T>`, both sides of
    /// `Result<T, E>`, a crate type's type arguments, ..
    pub fn children(&self) -> Vec<&Ty> {
        match self {
            Ty::Vec(e)
            | Ty::Slice(e)
            | Ty::Array(e, _)
            | Ty::Option(e)
            | Ty::Box(e)
            | Ty::Ref(e)
            | Ty::RefMut(e)
            | Ty::IntoIter(e)
            | Ty::Range(e, _)
            | Ty::Closure(_, e) => vec![e],
            Ty::Result(a, b) => vec![a, b],
            Ty::Tuple(items) | Ty::Adt(_, items) | Ty::Std(_, items) => items.iter().collect(),
            _ => Vec::new(),
        }
    }

    /// [`Ty::children`], to change in place.
    pub fn children_mut(&mut self) -> Vec<&mut Ty> {
        match self {
            Ty::Vec(e)
            | Ty::Slice(e)
            | Ty::Array(e, _)
            | Ty::Option(e)
            | Ty::Box(e)
            | Ty::Ref(e)
            | Ty::RefMut(e)
            | Ty::IntoIter(e)
            | Ty::Range(e, _)
            | Ty::Closure(_, e) => vec![e],
            Ty::Result(a, b) => vec![a, b],
            Ty::Tuple(items) | Ty::Adt(_, items) | Ty::Std(_, items) => items.iter_mut().collect(),
            _ => Vec::new(),
        }
    }
}

impl Ty {
    /// Whether the type holds a borrow (`&str`, `&[T]`, `&T`, `&Path`, ..): such a value lives
    /// no longer than what it borrows.
    pub fn borrows(&self) -> bool {
        self.mentions(&|t| match t {
            Ty::Str | Ty::Slice(_) | Ty::Ref(_) | Ty::RefMut(_) => true,
            Ty::Std(kind, _) => kind.is_ref(),
            _ => false,
        })
    }

    /// Whether the type holds a closure (`FilterEntry<I, P>` made with one): such a result has
    /// a type the driver cannot name, so it is neither stored nor observed.
    pub fn holds_closure(&self) -> bool {
        self.mentions(&|t| matches!(t, Ty::Closure(..)))
    }

    /// The type a statement's stored result has, when this is what its callable returns: the
    /// `Ok`/`Some` inside a `Result`/`Option`, the value itself otherwise; `None` when nothing
    /// is stored (no value, or one that borrows and is observed only).
    pub fn stored(&self) -> Option<&Ty> {
        if self.borrows() || self.holds_closure() {
            return None;
        }
        match self {
            Ty::Unit => None,
            Ty::Result(ok, _) => Some(ok),
            Ty::Option(inner) => Some(inner),
            other => Some(other),
        }
    }
}

/// The std types outside the prelude that tests build from data and results are compared
/// with. Each travels as one of the protocol's existing value shapes: text as `Value::Str`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StdTy {
    /// `std::path::PathBuf`, as text: `PathBuf::from("/etc/app.conf")`.
    PathBuf,
    /// `&std::path::Path` (a reference, as `Ty::Str` is `&str`): `Path::new("/etc/app.conf")`.
    PathRef,
    /// `std::ffi::OsString`, as text: `OsString::from("x")`.
    OsString,
    /// `std::time::Duration`, as its nanoseconds (`Value::Int`): `Duration::from_secs(5)`.
    Duration,
    /// `std::time::SystemTime`, as nanoseconds from the epoch, negative before it
    /// (`Value::Int`): `SystemTime::UNIX_EPOCH + Duration::from_secs(1_704_067_200)`.
    SystemTime,
    /// `&std::ffi::OsStr`: `OsStr::new("x")`.
    OsStrRef,
    /// `std::borrow::Cow<'_, str>`, as text: `Cow::from("x")` (borrowed or owned alike).
    CowStr,
    /// `std::borrow::Cow<'_, Path>`, as a path: `Cow::from(Path::new("/etc"))`.
    CowPath,
    /// `std::borrow::Cow<'_, OsStr>`, as text: `Cow::from(OsStr::new("x"))`.
    CowOsStr,
    /// `std::borrow::Cow<'_, [T]>`, as the vector it owns: `Cow::from(vec![1, 2])`.
    CowSlice,
    /// `std::collections::HashMap<K, V>`, as a sequence of `(key, value)` tuples:
    /// `HashMap::from([("a", 1)])`; observed sorted, so assertions do not depend on its order.
    HashMap,
    /// `std::collections::BTreeMap<K, V>`, as `HashMap` is.
    BTreeMap,
    /// `std::collections::HashSet<T>`, as a sequence: `HashSet::from([1, 2])`.
    HashSet,
    /// `std::collections::BTreeSet<T>`, as `HashSet` is.
    BTreeSet,
    /// `std::fs::File`, as the path of a file the test's environment holds, opened for
    /// reading: `File::open("/etc/app.conf").unwrap()`. Observed as nothing (opaque).
    File,
    /// `std::fs::Metadata`, as the path it is read from: `std::fs::metadata("/etc").unwrap()`.
    /// Observed as nothing (opaque).
    Metadata,
    /// `std::fs::FileType`, as the path whose metadata gives it:
    /// `std::fs::metadata("/etc").unwrap().file_type()`. Observed as nothing (opaque).
    FileType,
    /// `std::fs::Permissions`, as the path whose metadata gives them:
    /// `std::fs::metadata("/etc").unwrap().permissions()`. Observed as nothing (opaque).
    Permissions,
    /// `std::fs::ReadDir`, as the directory it lists: `std::fs::read_dir("/etc").unwrap()`.
    /// Observed as nothing (opaque).
    ReadDir,
    /// `std::fs::DirEntry`, as the path of the entry, found in its parent's listing:
    /// `std::fs::read_dir("/etc").unwrap().flatten().find(|e| e.file_name() == "hosts").unwrap()`.
    /// Observed as nothing (opaque).
    DirEntry,
    /// A `&str` that names a path: what stands in for a type parameter bounded by
    /// `AsRef<Path>` or `Into<PathBuf>`, drawn as paths are and written as a string literal.
    PathStr,
    /// `std::env::VarError`, as an `Option<OsString>` (`Value::Opt`): `None` is
    /// `VarError::NotPresent`, `Some(text)` is `VarError::NotUnicode(OsString::from(text))`.
    /// Observed as a variant (`Observed::Variant("NotPresent", [])`) and compared.
    VarError,
    /// `std::fs::OpenOptions`, as its six flags (`Value::Tuple` of `read`, `write`, `append`,
    /// `truncate`, `create`, `create_new`): `std::fs::OpenOptions::new().read(true).clone()`.
    /// Observed as nothing (opaque): its `Debug` text is the platform's.
    OpenOptions,
}

impl StdTy {
    /// The std types a crate can name (`PathStr` is a `&str`).
    pub const ALL: [StdTy; 22] = [
        StdTy::PathBuf,
        StdTy::PathRef,
        StdTy::OsString,
        StdTy::OsStrRef,
        StdTy::Duration,
        StdTy::SystemTime,
        StdTy::CowStr,
        StdTy::CowPath,
        StdTy::CowOsStr,
        StdTy::CowSlice,
        StdTy::HashMap,
        StdTy::BTreeMap,
        StdTy::HashSet,
        StdTy::BTreeSet,
        StdTy::File,
        StdTy::Metadata,
        StdTy::FileType,
        StdTy::Permissions,
        StdTy::ReadDir,
        StdTy::DirEntry,
        StdTy::VarError,
        StdTy::OpenOptions,
    ];

    /// The type's path below `std`, its last segment the name tests use.
    pub fn path(self) -> &'static [&'static str] {
        match self {
            StdTy::PathBuf => &["path", "PathBuf"],
            StdTy::PathRef => &["path", "Path"],
            StdTy::OsString => &["ffi", "OsString"],
            StdTy::OsStrRef => &["ffi", "OsStr"],
            StdTy::Duration => &["time", "Duration"],
            StdTy::SystemTime => &["time", "SystemTime"],
            StdTy::CowStr | StdTy::CowPath | StdTy::CowOsStr | StdTy::CowSlice => {
                &["borrow", "Cow"]
            }
            StdTy::HashMap => &["collections", "HashMap"],
            StdTy::BTreeMap => &["collections", "BTreeMap"],
            StdTy::HashSet => &["collections", "HashSet"],
            StdTy::BTreeSet => &["collections", "BTreeSet"],
            StdTy::File => &["fs", "File"],
            StdTy::Metadata => &["fs", "Metadata"],
            StdTy::FileType => &["fs", "FileType"],
            StdTy::Permissions => &["fs", "Permissions"],
            StdTy::ReadDir => &["fs", "ReadDir"],
            StdTy::DirEntry => &["fs", "DirEntry"],
            StdTy::PathStr => &["primitive", "str"],
            StdTy::VarError => &["env", "VarError"],
            StdTy::OpenOptions => &["fs", "OpenOptions"],
        }
    }

    /// The name tests spell it by (`PathBuf`, `Path`).
    pub fn name(self) -> &'static str {
        self.path().last().expect("a path has a name")
    }

    /// Whether values of the type are text (`Value::Str`, `Observed::Str`).
    pub fn is_text(self) -> bool {
        matches!(
            self,
            StdTy::PathBuf
                | StdTy::PathRef
                | StdTy::OsString
                | StdTy::OsStrRef
                | StdTy::PathStr
                | StdTy::CowStr
                | StdTy::CowPath
                | StdTy::CowOsStr
        )
    }

    /// Whether the type is a reference (a parameter borrows a value the driver decodes).
    pub fn is_ref(self) -> bool {
        matches!(self, StdTy::PathRef | StdTy::OsStrRef | StdTy::PathStr)
    }

    /// How many type arguments the type takes (a map's hasher is left out: the default).
    pub fn arity(self) -> usize {
        match self {
            StdTy::HashMap | StdTy::BTreeMap => 2,
            StdTy::HashSet | StdTy::BTreeSet | StdTy::CowSlice => 1,
            _ => 0,
        }
    }

    /// The type whose values stand for this one's in the search (drawn, mutated, built), when
    /// it is not the type itself: a map's or set's [`Self::seq_form`], `Option<OsString>` for
    /// a `VarError`, a tuple of its flags ([`OPEN_OPTIONS`]) for an `OpenOptions`.
    pub fn value_form(self, args: &[Ty]) -> Option<Ty> {
        match self {
            StdTy::VarError => Some(Ty::Option(Box::new(Ty::Std(StdTy::OsString, Vec::new())))),
            StdTy::OpenOptions => Some(Ty::Tuple(vec![Ty::Bool; OPEN_OPTIONS.len()])),
            _ => self.seq_form(args),
        }
    }

    /// For maps, sets and `Cow<[T]>` with type arguments `args`, the vector their values
    /// travel as: `Vec<(K, V)>` for a map, `Vec<T>` for a set or a `Cow<[T]>`.
    pub fn seq_form(self, args: &[Ty]) -> Option<Ty> {
        match (self, args) {
            (StdTy::HashMap | StdTy::BTreeMap, [k, v]) => {
                Some(Ty::Vec(Box::new(Ty::Tuple(vec![k.clone(), v.clone()]))))
            }
            (StdTy::HashSet | StdTy::BTreeSet | StdTy::CowSlice, [t]) => {
                Some(Ty::Vec(Box::new(t.clone())))
            }
            _ => None,
        }
    }

    /// Whether the type's iteration order is arbitrary (hashed), so its `Debug` text is not
    /// known beforehand.
    pub fn is_hashed(self) -> bool {
        matches!(self, StdTy::HashMap | StdTy::HashSet)
    }

    /// Whether values of the type are times (`Value::Int` nanoseconds, `Observed::Int`).
    pub fn is_time(self) -> bool {
        matches!(self, StdTy::Duration | StdTy::SystemTime)
    }

    /// Whether values of the type are paths (drawn as paths are).
    pub fn is_path(self) -> bool {
        matches!(
            self,
            StdTy::PathBuf | StdTy::PathRef | StdTy::PathStr | StdTy::CowPath
        ) || self.is_fs_handle()
    }

    /// Whether the type is a handle on the file system built from a path (`File`, `Metadata`,
    /// `FileType`, `Permissions`, `ReadDir`, `DirEntry`): passed as data, never observed.
    pub fn is_fs_handle(self) -> bool {
        matches!(
            self,
            StdTy::File
                | StdTy::Metadata
                | StdTy::FileType
                | StdTy::Permissions
                | StdTy::ReadDir
                | StdTy::DirEntry
        )
    }

    /// Whether tests write the type's values by std paths only (`std::fs::metadata(..)`), never
    /// by its own name, so that no `use std::..;` is written for it (a crate type of that name,
    /// such as walkdir's `DirEntry` or fs-err's `OpenOptions`, would clash).
    pub fn written_in_full(self) -> bool {
        (self.is_fs_handle() && self != StdTy::File) || self == StdTy::OpenOptions
    }
}

/// The flags of a `std::fs::OpenOptions` value, in the order its `Value::Tuple` holds them: the
/// names of the builder's methods that set them.
pub const OPEN_OPTIONS: [&str; 6] = [
    "read",
    "write",
    "append",
    "truncate",
    "create",
    "create_new",
];

/// Which range type a `Ty::Range` is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RangeKind {
    /// `std::ops::Range<T>`: `start..end`.
    HalfOpen,
    /// `std::ops::RangeInclusive<T>`: `start..=end`.
    Inclusive,
    /// A parameter typed `impl RangeBounds<T>` (or `R: RangeBounds<T>`): tests pass any range
    /// form, bounds left out included; the driver passes `hermetic_driver::AnyRange<T>`.
    Bounds,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IntTy {
    I8,
    I16,
    I32,
    I64,
    I128,
    Isize,
    U8,
    U16,
    U32,
    U64,
    U128,
    Usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FloatTy {
    F32,
    F64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Callable {
    /// The module the callable is defined in (for methods: where the `impl` block is).
    pub module: ModuleId,
    /// The function, method, field-less variant or type name: `parse`, `push`, `Circle`.
    pub name: String,
    pub kind: CallableKind,
    pub vis: Vis,
    /// The parameters, without the receiver.
    pub params: Vec<Param>,
    /// `Ty::Unit` for `()` or no return type.
    pub ret: Ty,
    /// For generic functions: the concrete types chosen for its type parameters, in order
    /// (written as a turbofish where they cannot be inferred).
    pub generic_args: Vec<Ty>,
    /// Whether each of the function's type parameters appears in a parameter's type, so that
    /// arguments that say their type (`"/etc/app.conf"`) let a test leave the turbofish out.
    pub generics_inferred: bool,
    /// The arguments the result borrows from (by index, the receiver first as the driver
    /// numbers them): `text` in `fn new(text: &'a str) -> Parser<'a>`. The driver keeps them
    /// alive for the rest of the execution, and the search treats them as moved.
    pub held: Vec<usize>,
    /// An `unsafe fn` (listed for record only, `analyze::Options::unsafe_fns`): a test calls
    /// it inside `unsafe { .. }`, as the recorded run did.
    pub unsafe_fn: bool,
    /// The callable returns `impl Iterator<Item = T>` (alone, or as a `Result`'s or an
    /// `Option`'s value), which the call collects at once: `ret` says `Vec<T>` there.
    pub collect: Option<Collect>,
}

/// Where a returned `impl Iterator` is collected into a `Vec` (`Callable::collect`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Collect {
    /// The result is the iterator: `.collect::<Vec<_>>()`.
    Whole,
    /// The result is a `Result` or `Option` of it: `.map(|i| i.collect::<Vec<_>>())`.
    Inside,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    pub name: String,
    pub ty: Ty,
    /// How `ty` relates to the type the signature writes.
    pub written: Written,
}

/// How a parameter's `Ty` relates to the type its signature writes: a fake's set-up writes the
/// callee's parameter types out only where they are the signature's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Written {
    /// The signature's type, as `rust_syntax::ty` writes it back.
    AsIs,
    /// A value that stands in for a trait object or a type parameter (`&dyn Write` gets a
    /// `Vec<u8>`, `&dyn Ledger` a mock): the signature's type is another.
    StandIn,
    /// `impl Trait`: the function is generic, so its item names no one function.
    ImplTrait,
}

#[derive(Debug, Clone, PartialEq)]
pub enum CallableKind {
    /// `name(args)`
    Function,
    /// `Type::name(args)`: an associated function without receiver (constructors); with
    /// `of_trait`, one a crate trait gives a std type (`impl PathBufExt for PathBuf`), called
    /// as `<PathBuf as PathBufExt>::from_slash(args)`.
    AssocFn {
        self_ty: Ty,
        of_trait: Option<ImplOf>,
    },
    /// `receiver.name(args)`; `of_trait` for a method of an `impl Trait for Type` block (only
    /// `cargo hermetic record` lists those: see `analyze::Options`).
    Method {
        self_ty: Ty,
        receiver: Receiver,
        of_trait: Option<ImplOf>,
    },
    /// `<Type as Trait>::name(args)` for `Default::default` and `From::from` impls;
    /// `trait_name` is e.g. `Default` or `From<(f64, f64)>` as written in the source.
    TraitFn { self_ty: Ty, trait_name: String },
    /// `Type { field: arg, .. }`; params are the fields, in declaration order.
    StructLiteral { self_ty: Ty, tuple: bool },
    /// `Enum::Variant`, `Enum::Variant(args)` or `Enum::Variant { field: arg }`.
    Variant { self_ty: Ty, fields: VariantShape },
    /// A mock of a trait, set up with the values its methods return: one parameter per
    /// configurable method (`MockTrait::methods`), a sequence of return values each.
    Mock(TraitId),
    /// `"text".parse::<Type>().unwrap()`: a value rebuilt from its `Display` text (one `&str`
    /// parameter). Only `cargo hermetic record` lists these (`analyze::Options`), for types
    /// whose `Debug` cannot be read back but whose `Display` and `FromStr` round-trip.
    Parse { self_ty: Ty },
    /// Setting up a fake of an isolated callee for the rest of the test: one parameter, the
    /// values its calls return in order (`Fakes::new().returns(db::run_query, [..])`).
    Fake(FakeId),
}

impl Callable {
    /// Whether the callable is part of the crate's public API as its users call it: a `pub`
    /// free function, associated function or method of an inherent impl (trait impls' methods,
    /// literals, mocks and fakes are not).
    pub fn is_public_api(&self) -> bool {
        self.vis == Vis::Pub
            && matches!(
                self.kind,
                CallableKind::Function
                    | CallableKind::AssocFn { .. }
                    | CallableKind::Method { of_trait: None, .. }
            )
    }
}

impl CallableKind {
    /// The type the callable belongs to, if any.
    pub fn self_ty(&self) -> Option<&Ty> {
        match self {
            CallableKind::Function | CallableKind::Mock(_) | CallableKind::Fake(_) => None,
            CallableKind::AssocFn { self_ty, .. }
            | CallableKind::Method { self_ty, .. }
            | CallableKind::TraitFn { self_ty, .. }
            | CallableKind::StructLiteral { self_ty, .. }
            | CallableKind::Variant { self_ty, .. }
            | CallableKind::Parse { self_ty } => Some(self_ty),
        }
    }
}

/// The crate trait a method's `impl` block implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImplOf {
    pub trait_id: TraitId,
    /// Whether the impl names the trait by one word (`impl Tariff for Flat`), so the module
    /// has it in scope and tests there see it through `use super::*`.
    pub in_scope: bool,
}

/// A crate trait that tests can stand in for with a generated mock.
#[derive(Debug, Clone, PartialEq)]
pub struct TraitDef {
    pub name: String,
    pub module: ModuleId,
    pub vis: Vis,
    /// The mock type's name: `MockLedger`, unique in the crate.
    pub mock_name: String,
    /// Crate supertraits, which the mock implements too (transitively listed).
    pub supertraits: Vec<TraitId>,
    /// Std supertraits every mock has (`Send`, `Sync`, `Debug`, ...), by last path segment, of
    /// the trait and its crate supertraits: a recording proxy must have them too.
    pub markers: Vec<String>,
    /// The trait's own methods the mock must implement (those without a default body).
    pub methods: Vec<MockMethod>,
    /// Crate types without generic parameters that implement the trait: values tests can
    /// build instead of a mock.
    pub implementors: Vec<TypeId>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct MockMethod {
    pub name: String,
    pub receiver: Receiver,
    /// Parameter types after the receiver; the mock ignores the values, but a recorded
    /// mock may tell calls apart by them (`mock_syntax::by_args`).
    pub params: Vec<Ty>,
    /// Their names as the trait writes them (`argN` for a pattern that is not a name).
    pub param_names: Vec<String>,
    /// `Ty::Unit` for methods that return nothing (they need no set-up).
    pub ret: Ty,
    /// Whether the last value set up is given again on later calls (the type is `Clone`);
    /// otherwise each value is given once.
    pub repeats: bool,
}

impl Cluster {
    /// The methods a mock of `t` is set up with, in order: those of its supertraits first,
    /// then its own; methods returning `()` need no values and are left out.
    pub fn mock_methods(&self, t: TraitId) -> Vec<(TraitId, &MockMethod)> {
        let def = &self.traits[t];
        def.supertraits
            .iter()
            .chain(std::iter::once(&t))
            .flat_map(|&id| self.traits[id].methods.iter().map(move |m| (id, m)))
            .filter(|(_, m)| m.ret != Ty::Unit)
            .collect()
    }
}

/// A unit whose calls `--isolate` may send through fakes: a free function or an `impl` block.
#[derive(Debug, Clone, PartialEq)]
pub struct Unit {
    pub module: ModuleId,
    /// The function's name, or the `impl` block's self type as written (`Teller`).
    pub name: String,
    pub is_impl: bool,
    /// Which of the module's items of that name and kind it is (several `impl Teller` blocks).
    pub nth: usize,
    /// The callables it holds: the function, or the block's methods and associated functions.
    pub members: Vec<CallableId>,
    /// Byte offset in the module's file where an attribute goes: before the item's
    /// visibility or keyword, after its other attributes.
    pub insert_at: usize,
    /// The whitespace before the item on its line.
    pub indent: String,
    /// Its `#[hermetic::isolate]` attribute, if it has one.
    pub attribute: Option<IsolateAttr>,
    /// The calls it makes that leave its module and that a fake can answer, one per callee.
    pub calls: Vec<OutCall>,
    /// Calls of other crates' functions, by path (`settings::load`) with how the unit names
    /// them: calls once their signatures are known (`isolate::resolve_externs`).
    pub extern_calls: Vec<(Vec<String>, String)>,
}

/// An isolate attribute in the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IsolateAttr {
    /// Byte range of the attribute in its file, with the line break and indentation after it.
    pub range: (usize, usize),
    /// `#[cfg_attr(test, hermetic::isolate(..))]`, the form `--isolate` writes: its `only(..)`
    /// list is the tool's to change. Another form is the user's, and left as written.
    pub cfg_test: bool,
    pub only: Vec<String>,
    pub except: Vec<String>,
    /// `returns(callee, pattern)`: what a fake of the callee may return, as written.
    pub returns: Vec<(String, String)>,
    /// The options other than `only(..)`, as written in the source (`returns(db::count, 0..)`).
    pub others: Vec<String>,
}

/// A call that leaves its unit.
#[derive(Debug, Clone, PartialEq)]
pub struct OutCall {
    pub callee: Callee,
    /// What it returns: what a fake of it returns.
    pub ret: Ty,
    /// Its parameter types as its function item takes them (the receiver first): `None` where
    /// the type is not the signature's own (`Written`).
    pub params: Vec<Option<Ty>>,
    /// Every call of it in the unit passes the unit's inputs only (its parameters, `self`, parts
    /// of them, constants): the test steers what the callee gets.
    pub steered: bool,
    /// How the unit's `only(..)` names it: as the call writes the path (`db::run_query`), or
    /// for a method its type's path from the unit and its name (`crate::db::Database::query`).
    pub entry: String,
    /// The pattern of the unit's `returns(..)` restriction on it, if any (`Ok(0..)`).
    pub restriction: Option<String>,
}

/// The function an isolated call calls.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Callee {
    /// A callable of the crate.
    Crate(CallableId),
    /// Another crate's function, by its path (`settings::load`).
    Extern(Vec<String>),
}

/// A callee tests may fake, with what its fake returns.
#[derive(Debug, Clone, PartialEq)]
pub struct FakeDef {
    pub callee: Callee,
    /// The callee's return type: the fake's values.
    pub ret: Ty,
    /// Its parameter types (`OutCall::params`), which the set-up writes out: a test whose
    /// callee's parameters changed then fails to compile.
    pub params: Vec<Option<Ty>>,
    /// Every unit calls it with its inputs only (`OutCall::steered`): a fake of it is worth
    /// trying only when its real calls touch the environment.
    pub steered: bool,
    /// The units that call it, whose attributes list it.
    pub units: Vec<UnitId>,
    /// The restriction of the first unit that has one.
    pub restriction: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VariantShape {
    Unit,
    Tuple,
    Named,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Receiver {
    /// `&self`
    Ref,
    /// `&mut self`
    RefMut,
    /// `self`
    Value,
}

pub use crate::skip::Skipped;

/// Constants from the source, to seed values.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Literals {
    pub ints: Vec<i128>,
    pub floats: Vec<f64>,
    pub strings: Vec<String>,
    pub chars: Vec<char>,
    /// The strings of each module (by its path below the crate root), uncapped by the others':
    /// the words a function of that module is likeliest to compare its input with.
    pub module_strings: std::collections::BTreeMap<Vec<String>, Vec<String>>,
    /// The chars of each module, as `module_strings`: what its functions split text on.
    pub module_chars: std::collections::BTreeMap<Vec<String>, Vec<char>>,
    /// Whether the code of one module reads digits out of text (`is_ascii_digit`,
    /// `to_digit`, `b'0'`, `from_str_radix`); merged literals say it in `digit_modules`.
    pub reads_digits: bool,
    /// The modules (by path) whose code reads digits, as `reads_digits`.
    pub digit_modules: std::collections::BTreeSet<Vec<String>>,
    /// Whether the code of one module reads text a line at a time (`lines`, `read_line`,
    /// `'\n'`); merged literals say it in `line_modules`.
    pub reads_lines: bool,
    /// The modules (by path) whose code reads lines, as `reads_lines`.
    pub line_modules: std::collections::BTreeSet<Vec<String>>,
    /// Whether the code of one module reads text out of bytes (`from_utf8`,
    /// `from_utf8_lossy`); merged literals say it in `text_byte_modules`.
    pub reads_text_bytes: bool,
    /// The modules (by path) whose code reads text out of bytes, as `reads_text_bytes`.
    pub text_byte_modules: std::collections::BTreeSet<Vec<String>>,
}
