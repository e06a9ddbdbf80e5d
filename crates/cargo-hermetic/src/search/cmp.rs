//! Input-to-state substitution: when an integer of a test shows up as one side of a
//! comparison in the code under test, try the other side in its place. A value compared with
//! `42` becomes `42`; a mock's second return value compared with the expected one becomes it.
//! The comparison hooks log both operands per comparison site.

use crate::test_case::TestCase;
use hermetic_protocol::Value;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;

/// The test with one integer replaced by the operand it was compared with, or `None` when no
/// integer of the test was compared (`cmp_ints` are `(site, operand)` pairs of the test's run,
/// already limited to the code under test).
pub fn substitute(
    rng: &mut ChaCha8Rng,
    case: &TestCase,
    cmp_ints: &[(u64, u64)],
) -> Option<TestCase> {
    let mut by_site: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    for &(site, v) in cmp_ints {
        by_site.entry(site).or_default().push(v);
    }
    // (statement, argument, leaf index, replacement)
    let mut options: Vec<(usize, usize, usize, i128)> = Vec::new();
    for (i, stmt) in case.stmts.iter().enumerate() {
        for (k, arg) in stmt.args.iter().enumerate() {
            let mut leaves = Vec::new();
            ints(arg, &mut leaves);
            for (leaf, v) in leaves.into_iter().enumerate() {
                for operands in by_site.values() {
                    for width in [8u32, 16, 32, 64] {
                        let mask = if width == 64 {
                            u64::MAX
                        } else {
                            (1u64 << width) - 1
                        };
                        let mine = (v as u64) & mask;
                        if !operands.contains(&mine) {
                            continue;
                        }
                        for &other in operands.iter().filter(|&&o| o != mine) {
                            options.push((i, k, leaf, widen(other, width, v < 0)));
                        }
                    }
                }
            }
        }
    }
    options.sort_unstable();
    options.dedup();
    let &(i, k, leaf, new) = options.choose(rng)?;
    let mut out = case.clone();
    set_int(&mut out.stmts[i].args[k], &mut { leaf }, new);
    Some(out)
}

/// `other`, read as a `width`-bit value, signed when the value it replaces was negative.
fn widen(other: u64, width: u32, signed: bool) -> i128 {
    if !signed || width == 64 {
        return if signed {
            other as i64 as i128
        } else {
            other as i128
        };
    }
    let shift = 64 - width;
    (((other << shift) as i64) >> shift) as i128
}

/// The integers of a value, in order.
fn ints(v: &Value, out: &mut Vec<i128>) {
    match v {
        Value::Int(x) => out.push(*x),
        Value::Seq(items) | Value::Tuple(items) => items.iter().for_each(|i| ints(i, out)),
        Value::Opt(Some(i)) | Value::Ok(i) | Value::Err(i) => ints(i, out),
        _ => {}
    }
}

/// Sets the `n`-th integer of a value (in `ints` order).
fn set_int(v: &mut Value, n: &mut usize, new: i128) -> bool {
    match v {
        Value::Int(x) => {
            if *n == 0 {
                *x = new;
                return true;
            }
            *n -= 1;
            false
        }
        Value::Seq(items) | Value::Tuple(items) => items.iter_mut().any(|i| set_int(i, n, new)),
        Value::Opt(Some(i)) | Value::Ok(i) | Value::Err(i) => set_int(i, n, new),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_case::Stmt;
    use rand::SeedableRng;

    fn case(args: Vec<Value>) -> TestCase {
        TestCase {
            home: 0,
            stmts: vec![Stmt { callable: 0, args }],
            env: Default::default(),
        }
    }

    #[test]
    fn an_integer_compared_with_a_constant_becomes_the_constant() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let t = case(vec![Value::Seq(vec![
            Value::Int(5),
            Value::Int(1_317_929_979),
        ])]);
        // Site 7 compared 5 with 5 (not logged: equal), site 9 compared 1317929979 with 42.
        let got = substitute(&mut rng, &t, &[(9, 1_317_929_979), (9, 42)]).unwrap();
        assert_eq!(
            got.stmts[0].args,
            vec![Value::Seq(vec![Value::Int(5), Value::Int(42)])]
        );
    }

    #[test]
    fn negative_values_are_matched_and_replaced_at_their_width() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let t = case(vec![Value::Int(-3)]);
        // An i32 comparison of -3 with -100 logs both as 32-bit patterns.
        let got = substitute(
            &mut rng,
            &t,
            &[(1, 0xFFFF_FFFD), (1, (-100i32) as u32 as u64)],
        );
        assert_eq!(got.unwrap().stmts[0].args, vec![Value::Int(-100)]);
    }

    #[test]
    fn nothing_compared_nothing_to_do() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let t = case(vec![Value::Int(8), Value::Str("x".into())]);
        assert!(substitute(&mut rng, &t, &[(1, 3), (1, 4)]).is_none());
    }
}
