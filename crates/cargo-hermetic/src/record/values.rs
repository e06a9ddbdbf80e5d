//! Recorded values → the values a test passes: `Debug` text read back by type (see
//! `debug_text`), crate structs and enums built by their literal in earlier statements.
//!
//! Values of types shown by `Display` (see `record/mod.rs`) become `CallableKind::Parse` statements
//! (`"1.2.3".parse::<Version>().unwrap()`) from the `Display` text the probe logged.

use super::debug_text::{self, Why};
use super::learnt::Learnt;
use crate::cluster::{CallableKind, Cluster, IntTy, Ty, TypeKind};
use crate::test_case::Stmt;
use hermetic_protocol::{Observed, Value};
use syn::Expr;

/// Why calls with std trait-typed arguments become no test: a std type stands in for them in
/// generated tests, but what the call read from the real one is not recorded.
pub const STD_TRAIT: &str =
    "needs a mock: a std trait-typed argument (`impl Read`, `impl Iterator`) is not recorded";

/// Builds argument values; crate structs and enums become earlier statements (their literal)
/// that the call uses.
pub struct Builder<'a> {
    pub cluster: &'a Cluster,
    /// What hand-written `Debug` texts stand for, as the run showed.
    pub learnt: &'a Learnt,
    pub stmts: Vec<Stmt>,
}

impl Builder<'_> {
    pub fn value(&mut self, e: &Expr, ty: &Ty) -> Result<Value, Why> {
        use debug_text::{bool_lit, float_lit, int_lit, str_lit, Int};
        Ok(match ty {
            Ty::Box(t) => self.value(e, t)?,
            Ty::Closure(..) => return Err("closures are not read back from tests".into()),
            Ty::Ref(t) if matches!(**t, Ty::Adt(..)) => Value::Borrow(self.build(e, t)?),
            Ty::RefMut(t) if matches!(**t, Ty::Adt(..)) => Value::BorrowMut(self.build(e, t)?),
            Ty::Ref(t) | Ty::RefMut(t) => self.value(e, t)?,
            Ty::Adt(..) => Value::Use(self.build(e, ty)?),
            Ty::Unit => Value::Unit,
            Ty::Bool => Value::Bool(bool_lit(e)?),
            Ty::Int(t) => match int_lit(e)? {
                Int::Signed(i) => Value::Int(i),
                Int::Big(u) if *t == IntTy::U128 => Value::BigUint(u),
                Int::Big(_) => return Err("integer beyond its type".into()),
            },
            Ty::Float(f) => Value::float(float_lit(e, *f)?),
            Ty::Ordering => match debug_text::observed(self.cluster, self.learnt, e, ty)? {
                Observed::Variant(name, _) => Value::Int(match name.as_str() {
                    "Less" => -1,
                    "Equal" => 0,
                    _ => 1,
                }),
                _ => return Err("expected an Ordering".into()),
            },
            Ty::Char => match debug_text::observed(self.cluster, self.learnt, e, ty)? {
                Observed::Char(c) => Value::Char(c),
                _ => return Err("expected a char".into()),
            },
            Ty::String | Ty::Str => Value::Str(str_lit(e)?),
            // A path's or OS string's `Debug` text is a string literal.
            Ty::Std(kind, _) if kind.is_text() => Value::Str(str_lit(e)?),
            Ty::Std(kind, _) => return Err(format!("`{}` values are not recorded", kind.name())),
            Ty::Vec(t) | Ty::Slice(t) | Ty::Array(t, _) => match e {
                Expr::Array(a) => Value::Seq(
                    a.elems
                        .iter()
                        .map(|x| self.value(x, t))
                        .collect::<Result<_, _>>()?,
                ),
                _ => return Err("expected a list".into()),
            },
            Ty::Tuple(ts) => match e {
                Expr::Tuple(t) if t.elems.len() == ts.len() => Value::Tuple(
                    t.elems
                        .iter()
                        .zip(ts)
                        .map(|(x, t)| self.value(x, t))
                        .collect::<Result<_, _>>()?,
                ),
                _ => return Err("expected a tuple".into()),
            },
            Ty::Option(t) => match debug_text::ctor(e)? {
                ("None", a) if a.is_empty() => Value::Opt(None),
                ("Some", a) if a.len() == 1 => Value::Opt(Some(Box::new(self.value(a[0], t)?))),
                _ => return Err("expected Some or None".into()),
            },
            Ty::Result(t, err) => match debug_text::ctor(e)? {
                ("Ok", a) if a.len() == 1 => Value::Ok(Box::new(self.value(a[0], t)?)),
                ("Err", a) if a.len() == 1 => Value::Err(Box::new(self.value(a[0], err)?)),
                _ => return Err("expected Ok or Err".into()),
            },
            Ty::Range(t, _) => {
                let (start, end, inclusive) = debug_text::range_parts(e)?;
                let mut bound = |b: Option<&Expr>| -> Result<_, Why> {
                    b.map(|x| self.value(x, t).map(Box::new)).transpose()
                };
                Value::Range {
                    start: bound(start)?,
                    end: bound(end)?,
                    inclusive,
                }
            }
            Ty::IoError => return Err("an io::Error cannot be built".into()),
            Ty::Reader | Ty::IntoIter(_) => return Err(STD_TRAIT.into()),
            Ty::Mock(_) => return Err("a trait-typed value inside another type".into()),
        })
    }

    /// A value of type `ty` (a crate type shown by `Display`, or a reference or box of one)
    /// rebuilt from its `Display` text by an earlier statement.
    pub fn parsed(&mut self, text: &str, ty: &Ty) -> Result<Value, Why> {
        Ok(match ty {
            Ty::Box(t) => self.parsed(text, t)?,
            Ty::Ref(t) if matches!(**t, Ty::Adt(..)) => Value::Borrow(self.parse(text, t)?),
            Ty::RefMut(t) if matches!(**t, Ty::Adt(..)) => Value::BorrowMut(self.parse(text, t)?),
            Ty::Adt(..) => Value::Use(self.parse(text, ty)?),
            _ => return Err("a Display text for a value that is not a crate type".into()),
        })
    }

    /// Adds the statement that parses a crate value from its `Display` text (`text.parse()`);
    /// returns its index.
    pub fn parse(&mut self, text: &str, ty: &Ty) -> Result<usize, Why> {
        let Ty::Adt(id, _) = ty else {
            return Err("not a crate type".into());
        };
        let parse = self
            .cluster
            .callables
            .iter()
            .position(
                |c| matches!(&c.kind, CallableKind::Parse { self_ty } if same_adt(self_ty, *id)),
            )
            .ok_or_else(|| format!("`{}` cannot be parsed", self.cluster.types[*id].name))?;
        self.stmts.push(Stmt {
            callable: parse,
            args: vec![Value::Str(text.to_string())],
        });
        Ok(self.stmts.len() - 1)
    }

    /// Adds the statement that builds a crate value from its `Debug` text; returns its index.
    pub fn build(&mut self, e: &Expr, ty: &Ty) -> Result<usize, Why> {
        let Ty::Adt(id, _) = ty else {
            return Err("not a crate type".into());
        };
        let def = &self.cluster.types[*id];
        if debug_text::hand_written_debug(self.learnt, def, *id) {
            return match self.learnt.shown(*id, e) {
                Some(text) => self.parse(text, ty),
                None => Err(self.learnt.literals.why_unreadable(def, *id)),
            };
        }
        let fields = match &def.kind {
            TypeKind::Struct(f) => f.clone(),
            TypeKind::Enum(vs) => {
                let name = debug_text::head(e)?;
                vs.iter()
                    .find(|v| v.name == name)
                    .map(|v| v.fields.clone())
                    .ok_or_else(|| format!("`{name}` is not a variant of `{}`", def.name))?
            }
        };
        let (name, exprs) = debug_text::fields_of(e, &fields)?;
        let literal = self
            .cluster
            .callables
            .iter()
            .position(|c| match &c.kind {
                CallableKind::StructLiteral { self_ty, .. } => same_adt(self_ty, *id),
                CallableKind::Variant { self_ty, .. } => same_adt(self_ty, *id) && c.name == name,
                _ => false,
            })
            .ok_or_else(|| format!("`{}` has no literal the test can write", def.name))?;
        let params = self.cluster.callables[literal].params.clone();
        let args = params
            .iter()
            .zip(exprs)
            .map(|(p, x)| self.value(x, &p.ty))
            .collect::<Result<Vec<_>, _>>()?;
        self.stmts.push(Stmt {
            callable: literal,
            args,
        });
        Ok(self.stmts.len() - 1)
    }
}

fn same_adt(t: &Ty, id: usize) -> bool {
    matches!(t, Ty::Adt(i, _) if *i == id)
}
