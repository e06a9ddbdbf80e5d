//! Recorded values: the `Debug` text a probe captured, read back as the emitter's values,
//! guided by the type analysis found for the parameter or result.
//!
//! Derived `Debug` output of primitives, strings, collections, `Option`/`Result`, tuples and
//! the crate's plain structs and enums is Rust expression syntax, so `syn` parses it; the
//! type says what the expression means. Anything else (maps, hand-written `Debug`, skipped
//! fields) is refused with a reason.

use super::learnt::Learnt;
use crate::cluster::{Cluster, Fields, FloatTy, Ty, TypeDef, TypeId, TypeKind};
use hermetic_protocol::Observed;
use syn::{Expr, Lit};

pub type Why = String;

/// Parses `Debug` text as an expression.
pub fn parse(text: &str) -> Result<Expr, Why> {
    syn::parse_str::<Expr>(text)
        .map_err(|_| format!("its Debug text `{}` is not a Rust value", short(text)))
}

fn short(text: &str) -> String {
    if text.chars().count() <= 40 {
        text.to_string()
    } else {
        format!("{}…", text.chars().take(40).collect::<String>())
    }
}

/// A recorded result as an observed value.
/// `learnt`: what hand-written `Debug` texts stand for, as the run showed.
pub fn observed(cluster: &Cluster, learnt: &Learnt, expr: &Expr, ty: &Ty) -> Result<Observed, Why> {
    let rec = |e: &Expr, t: &Ty| observed(cluster, learnt, e, t);
    Ok(match (ty, strip(expr)) {
        (Ty::Box(t) | Ty::Ref(t) | Ty::RefMut(t), e) => rec(e, t)?,
        (Ty::Unit, Expr::Tuple(t)) if t.elems.is_empty() => Observed::Unit,
        (Ty::Bool, e) => Observed::Bool(bool_lit(e)?),
        (Ty::Int(_), e) => match int_lit(e)? {
            Int::Signed(i) => Observed::Int(i),
            Int::Big(u) => Observed::BigUint(u),
        },
        (Ty::Float(f), e) => Observed::Float(float_lit(e, *f)?.to_bits()),
        (Ty::Char, Expr::Lit(l)) => match &l.lit {
            Lit::Char(c) => Observed::Char(c.value()),
            _ => return Err("expected a char".into()),
        },
        (Ty::String | Ty::Str, e) => Observed::Str(str_lit(e)?),
        (Ty::Std(kind, _), e) if kind.is_text() => Observed::Str(str_lit(e)?),
        (Ty::Vec(t) | Ty::Slice(t) | Ty::Array(t, _), Expr::Array(a)) => Observed::Seq(
            a.elems
                .iter()
                .map(|e| rec(e, t))
                .collect::<Result<_, _>>()?,
        ),
        (Ty::Tuple(ts), Expr::Tuple(t)) if ts.len() == t.elems.len() => Observed::Tuple(
            t.elems
                .iter()
                .zip(ts)
                .map(|(e, t)| rec(e, t))
                .collect::<Result<_, _>>()?,
        ),
        (Ty::Option(t), e) => match ctor(e)? {
            (n, args) if n == "None" && args.is_empty() => Observed::Opt(None),
            ("Some", args) if args.len() == 1 => Observed::Opt(Some(Box::new(rec(args[0], t)?))),
            _ => return Err("expected Some or None".into()),
        },
        (Ty::Result(t, err), e) => match ctor(e)? {
            ("Ok", args) if args.len() == 1 => Observed::Ok(Box::new(rec(args[0], t)?)),
            ("Err", args) if args.len() == 1 => Observed::Err(Box::new(rec(args[0], err)?)),
            _ => return Err("expected Ok or Err".into()),
        },
        (Ty::Range(t, _), e) => match range_parts(e)? {
            (Some(start), Some(end), inclusive) => {
                Observed::Range(Box::new(rec(start, t)?), Box::new(rec(end, t)?), inclusive)
            }
            _ => return Err("expected a range with both bounds".into()),
        },
        (Ty::IoError, e) => Observed::Debug(io_error_kind(e)?),
        (Ty::Ordering, e) => match head(e)?.as_str() {
            n @ ("Less" | "Equal" | "Greater") => Observed::Variant(n.to_string(), Vec::new()),
            other => return Err(format!("`{other}` is not an Ordering")),
        },
        (Ty::Adt(id, _), e) => {
            let def = &cluster.types[*id];
            if hand_written_debug(learnt, def, *id) {
                return match learnt.shown(*id, e) {
                    Some(text) => Ok(Observed::Shown(text.to_string())),
                    None => Err(learnt.literals.why_unreadable(def, *id)),
                };
            }
            match &def.kind {
                TypeKind::Struct(fields) => {
                    let (_, values) = fields_of(e, fields)?;
                    Observed::Struct(observe_fields(cluster, learnt, fields, values)?)
                }
                TypeKind::Enum(variants) => {
                    let name = head(e)?;
                    let v = variants
                        .iter()
                        .find(|v| v.name == name)
                        .ok_or_else(|| format!("`{name}` is not a variant of `{}`", def.name))?;
                    let (_, values) = fields_of(e, &v.fields)?;
                    Observed::Variant(name, observe_fields(cluster, learnt, &v.fields, values)?)
                }
            }
        }
        _ => {
            return Err(format!(
                "cannot read `{}` as that type",
                short(&quote::quote!(#expr).to_string())
            ))
        }
    })
}

/// Whether values of crate type `id` were captured by their hand-written `Debug` (not as a
/// literal, `literals.rs`), a text that cannot be read back.
pub fn hand_written_debug(learnt: &Learnt, def: &TypeDef, id: TypeId) -> bool {
    def.impls.iter().any(|i| i == "Debug") && !learnt.literals.captured.contains(&id)
}

fn observe_fields(
    cluster: &Cluster,
    learnt: &Learnt,
    fields: &Fields,
    values: Vec<&Expr>,
) -> Result<Vec<(String, Observed)>, Why> {
    fields
        .all()
        .iter()
        .zip(values)
        .map(|(f, e)| {
            let ty =
                f.ty.as_ref()
                    .ok_or_else(|| format!("field `{}` has an unsupported type", f.name))?;
            Ok((f.name.clone(), observed(cluster, learnt, e, ty)?))
        })
        .collect()
}

/// The field expressions of a struct or variant expression, in declaration order.
pub fn fields_of<'e>(e: &'e Expr, fields: &Fields) -> Result<(String, Vec<&'e Expr>), Why> {
    let e = strip(e);
    match (fields, e) {
        (Fields::Unit, Expr::Path(p)) => Ok((last(&p.path)?, vec![])),
        (Fields::Tuple(fs), Expr::Call(c)) if c.args.len() == fs.len() => {
            let Expr::Path(p) = &*c.func else {
                return Err("expected a tuple struct".into());
            };
            Ok((last(&p.path)?, c.args.iter().collect()))
        }
        (Fields::Named(fs), Expr::Struct(s)) if s.rest.is_none() && s.dot2_token.is_none() => {
            let mut out = Vec::new();
            for f in fs {
                let v = s
                    .fields
                    .iter()
                    .find(|fv| match &fv.member {
                        syn::Member::Named(id) => id == f.name.as_str(),
                        _ => false,
                    })
                    .ok_or_else(|| format!("field `{}` is missing from the Debug text", f.name))?;
                out.push(&v.expr);
            }
            if s.fields.len() != fs.len() {
                return Err("the Debug text has other fields".into());
            }
            Ok((last(&s.path)?, out))
        }
        _ => Err("the Debug text does not match the type's fields".into()),
    }
}

/// The name at the head of `Name`, `Name(..)` or `Name { .. }`.
pub fn head(e: &Expr) -> Result<String, Why> {
    match strip(e) {
        Expr::Path(p) => last(&p.path),
        Expr::Call(c) => match &*c.func {
            Expr::Path(p) => last(&p.path),
            _ => Err("expected a name".into()),
        },
        Expr::Struct(s) => last(&s.path),
        _ => Err("expected a name".into()),
    }
}

fn last(p: &syn::Path) -> Result<String, Why> {
    p.segments
        .last()
        .map(|s| s.ident.to_string())
        .ok_or_else(|| "empty path".into())
}

/// `Name` or `Name(args)` as the name and its arguments.
pub fn ctor(e: &Expr) -> Result<(&'static str, Vec<&Expr>), Why> {
    let known = ["None", "Some", "Ok", "Err"];
    let (name, args) = match strip(e) {
        Expr::Path(p) => (last(&p.path)?, vec![]),
        Expr::Call(c) => match &*c.func {
            Expr::Path(p) => (last(&p.path)?, c.args.iter().collect()),
            _ => return Err("expected a constructor".into()),
        },
        _ => return Err("expected a constructor".into()),
    };
    let name = known
        .iter()
        .find(|k| **k == name)
        .ok_or_else(|| format!("unexpected `{name}`"))?;
    Ok((name, args))
}

fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        e => e,
    }
}

pub fn bool_lit(e: &Expr) -> Result<bool, Why> {
    match strip(e) {
        Expr::Lit(l) => match &l.lit {
            Lit::Bool(b) => Ok(b.value),
            _ => Err("expected a bool".into()),
        },
        _ => Err("expected a bool".into()),
    }
}

pub enum Int {
    Signed(i128),
    /// Above `i128::MAX`: only a `u128` holds it.
    Big(u128),
}

/// A range's `Debug` text (`3..7`, `3..=7`, `..`, `a..`, `..=b`): its bounds and whether the
/// end is inclusive.
pub fn range_parts(e: &Expr) -> Result<(Option<&Expr>, Option<&Expr>, bool), Why> {
    match strip(e) {
        Expr::Range(r) => Ok((
            r.start.as_deref(),
            r.end.as_deref(),
            matches!(r.limits, syn::RangeLimits::Closed(_)),
        )),
        _ => Err("expected a range".into()),
    }
}

pub fn int_lit(e: &Expr) -> Result<Int, Why> {
    match strip(e) {
        Expr::Lit(l) => match &l.lit {
            Lit::Int(i) => match i.base10_parse::<i128>() {
                Ok(v) => Ok(Int::Signed(v)),
                Err(_) => i
                    .base10_parse::<u128>()
                    .map(Int::Big)
                    .map_err(|e| e.to_string()),
            },
            _ => Err("expected an integer".into()),
        },
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => match int_lit(&u.expr)? {
            Int::Signed(v) => Ok(Int::Signed(-v)),
            // `i128::MIN`'s magnitude is beyond `i128::MAX`.
            Int::Big(u) => 0i128
                .checked_sub_unsigned(u)
                .map(Int::Signed)
                .ok_or_else(|| "integer out of range".into()),
        },
        _ => Err("expected an integer".into()),
    }
}

pub fn float_lit(e: &Expr, f: FloatTy) -> Result<f64, Why> {
    let x = match strip(e) {
        Expr::Lit(l) => match &l.lit {
            Lit::Float(x) => x.base10_parse::<f64>().map_err(|e| e.to_string())?,
            Lit::Int(i) => i.base10_parse::<f64>().map_err(|e| e.to_string())?,
            _ => return Err("expected a float".into()),
        },
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => -float_lit(&u.expr, f)?,
        Expr::Path(p) if p.path.is_ident("NaN") => f64::NAN,
        Expr::Path(p) if p.path.is_ident("inf") => f64::INFINITY,
        _ => return Err("expected a float".into()),
    };
    Ok(match f {
        // The text is the f32's shortest form; going through f32 gives back its exact value.
        FloatTy::F32 => x as f32 as f64,
        FloatTy::F64 => x,
    })
}

pub fn str_lit(e: &Expr) -> Result<String, Why> {
    match strip(e) {
        Expr::Lit(l) => match &l.lit {
            Lit::Str(s) => Ok(s.value()),
            _ => Err("expected a string".into()),
        },
        _ => Err("expected a string".into()),
    }
}

/// The `ErrorKind` of an `io::Error`'s Debug text: `Os { kind: NotFound, .. }`,
/// `Custom { kind: Other, .. }` or `Kind(NotFound)`.
fn io_error_kind(e: &Expr) -> Result<String, Why> {
    match strip(e) {
        Expr::Struct(s) => s
            .fields
            .iter()
            .find_map(|f| match (&f.member, &f.expr) {
                (syn::Member::Named(id), Expr::Path(p)) if id == "kind" => last(&p.path).ok(),
                _ => None,
            })
            .ok_or_else(|| "an io::Error without a kind".into()),
        Expr::Call(c) => match c.args.first() {
            Some(Expr::Path(p)) => last(&p.path),
            _ => Err("an io::Error without a kind".into()),
        },
        _ => Err("an io::Error without a kind".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::{IntTy, RangeKind};

    fn obs(text: &str, ty: &Ty) -> Observed {
        observed(
            &Cluster::default(),
            &Learnt::default(),
            &parse(text).unwrap(),
            ty,
        )
        .unwrap()
    }

    #[test]
    fn reads_128_bit_edges_and_ranges() {
        let u128_max = "340282366920938463463374607431768211455";
        assert_eq!(
            obs(u128_max, &Ty::Int(IntTy::U128)),
            Observed::BigUint(u128::MAX)
        );
        assert_eq!(
            obs(
                "-170141183460469231731687303715884105728",
                &Ty::Int(IntTy::I128)
            ),
            Observed::Int(i128::MIN)
        );
        let range = |k| Ty::Range(Box::new(Ty::Int(IntTy::U32)), k);
        assert_eq!(
            obs("7..3", &range(RangeKind::HalfOpen)),
            Observed::Range(
                Box::new(Observed::Int(7)),
                Box::new(Observed::Int(3)),
                false
            )
        );
        assert_eq!(
            obs(
                "'a'..='e'",
                &Ty::Range(Box::new(Ty::Char), RangeKind::Inclusive)
            ),
            Observed::Range(
                Box::new(Observed::Char('a')),
                Box::new(Observed::Char('e')),
                true
            )
        );
        let to_8 = parse("..=8").unwrap();
        let (start, end, inclusive) = range_parts(&to_8).unwrap();
        assert!(start.is_none() && end.is_some() && inclusive);
        // What `hermetic::record::Bounds` shows for an excluded start is no Rust value.
        assert!(parse("(excluded 3)..8").is_err());
    }

    #[test]
    fn reads_std_values_by_type() {
        assert_eq!(obs("-3", &Ty::Int(IntTy::I32)), Observed::Int(-3));
        assert_eq!(
            obs("Some(\"a\\n\")", &Ty::Option(Box::new(Ty::String))),
            Observed::Opt(Some(Box::new(Observed::Str("a\n".into()))))
        );
        assert_eq!(
            obs("[1.5, NaN]", &Ty::Vec(Box::new(Ty::Float(FloatTy::F64)))).clone(),
            Observed::Seq(vec![
                Observed::Float(1.5f64.to_bits()),
                Observed::Float(f64::NAN.to_bits())
            ])
        );
        assert_eq!(
            obs(
                "Err(Os { code: 2, kind: NotFound, message: \"No such file or directory\" })",
                &Ty::Result(Box::new(Ty::Unit), Box::new(Ty::IoError))
            ),
            Observed::Err(Box::new(Observed::Debug("NotFound".into())))
        );
        assert_eq!(obs("()", &Ty::Unit), Observed::Unit);
        assert_eq!(
            obs("Some(Less)", &Ty::Option(Box::new(Ty::Ordering))),
            Observed::Opt(Some(Box::new(Observed::Variant("Less".into(), vec![]))))
        );
        assert!(observed(
            &Cluster::default(),
            &Learnt::default(),
            &parse("Lesser").unwrap(),
            &Ty::Ordering
        )
        .is_err());
    }

    #[test]
    fn maps_are_refused() {
        assert!(
            parse("{\"a\": 1}").is_err()
                || observed(
                    &Cluster::default(),
                    &Learnt::default(),
                    &parse("{\"a\": 1}").unwrap(),
                    &Ty::String
                )
                .is_err()
        );
    }
}
