//! Building and changing test cases: random tests, insertion, deletion and change of
//! statements, and the repair that keeps every test a valid Rust statement sequence (a value
//! moved once, borrowed only while it lives, never used twice by one call).

use super::made::Made;
use super::values::{built_by_statements, contains_adt, mutate_value, random_value, ValuePool};
use crate::cluster::{CallableId, CallableKind, Cluster, ModuleId, Receiver, Ty};
use crate::test_case::{Stmt, TestCase};
use hermetic_protocol::Value;
use rand::seq::SliceRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;

/// Longest test the search builds.
pub const MAX_STMTS: usize = 16;
/// How deep constructors of constructors' arguments go.
const MAX_DEPTH: usize = 3;
/// How often a value the test lacks is made by a copy of a sequence that made one before
/// (when there is one) rather than by a fresh call to a producer.
const P_MADE: f64 = 0.5;

/// What the operators need to know about the crate.
pub struct Space<'a> {
    pub cluster: &'a Cluster,
    pub pool: ValuePool,
    /// Callables whose code holds goals, the ones tests are about.
    pub targets: Vec<CallableId>,
    /// For each module, the callables a test living there may use.
    pub visible: Vec<Vec<CallableId>>,
    /// Callables by the type of the value they store for later statements.
    producers: BTreeMap<String, Vec<CallableId>>,
    /// Callables taking mocks that have a twin taking crate values instead (seed 003: such
    /// mocks are a last resort, allowed only with probability `mock_gate`).
    gated: Vec<bool>,
    /// The probability that a gated callable may be chosen; the search raises it once part of
    /// the budget is spent.
    pub mock_gate: f64,
    /// The probability that a test may get a fake of an isolated call (seed 000: fakes are a
    /// last resort); the search raises it once part of the budget is spent.
    pub fake_gate: f64,
    /// Sequences that made a value of a type in an earlier run.
    pub made: Made,
    /// For each callable, the key of the type it stores, if any (written once, not for every
    /// statement of every run).
    stored_keys: Vec<Option<String>>,
}

impl<'a> Space<'a> {
    pub fn new(
        cluster: &'a Cluster,
        usable: &[bool],
        targets: Vec<CallableId>,
        pool: ValuePool,
    ) -> Space<'a> {
        let visible = (0..cluster.modules.len())
            .map(|home| {
                (0..cluster.callables.len())
                    // Fakes join a test only where its calls meet their callee (`fakes`).
                    .filter(|&c| usable[c] && callable_visible(cluster, c, home))
                    .filter(|&c| !matches!(cluster.callables[c].kind, CallableKind::Fake(_)))
                    .collect()
            })
            .collect();
        let mut producers: BTreeMap<String, Vec<CallableId>> = BTreeMap::new();
        for (id, c) in cluster.callables.iter().enumerate() {
            if let Some(t) = c.ret.stored().filter(|_| usable[id]) {
                producers.entry(ty_key(t)).or_default().push(id);
            }
        }
        // Values a caller could make: a literal of private fields stands in for a type's
        // constructors only where it has none (it could hold a state they never produce).
        for ids in producers.values_mut() {
            let private_literal = |&c: &CallableId| {
                let c = &cluster.callables[c];
                matches!(c.kind, CallableKind::StructLiteral { .. })
                    && !cluster.is_public_api(c.module, c.vis)
            };
            let constructed = ids.iter().any(|&c| {
                let d = &cluster.callables[c];
                !matches!(
                    d.kind,
                    CallableKind::StructLiteral { .. } | CallableKind::Mock(_)
                ) && cluster.is_public_api(d.module, d.vis)
            });
            if constructed {
                ids.retain(|c| !private_literal(c));
            }
        }
        Space {
            cluster,
            pool,
            targets,
            visible,
            producers,
            gated: gated_callables(cluster),
            mock_gate: 0.0,
            fake_gate: 0.0,
            made: Made::default(),
            stored_keys: cluster
                .callables
                .iter()
                .map(|c| c.ret.stored().map(ty_key))
                .collect(),
        }
    }

    /// Whether some callable takes mocks that are a last resort.
    pub fn has_gated(&self) -> bool {
        self.gated.contains(&true)
    }

    /// Whether callable `c` may be chosen now.
    fn allowed(&self, rng: &mut ChaCha8Rng, c: CallableId) -> bool {
        !self.gated[c] || (self.mock_gate > 0.0 && rng.gen_bool(self.mock_gate.min(1.0)))
    }

    /// Picks one of `candidates` that may be chosen now.
    fn pick(&self, rng: &mut ChaCha8Rng, candidates: &[CallableId]) -> Option<CallableId> {
        let &c = candidates.choose(rng)?;
        if self.allowed(rng, c) {
            return Some(c);
        }
        let open: Vec<CallableId> = candidates
            .iter()
            .copied()
            .filter(|&c| !self.gated[c])
            .collect();
        open.choose(rng).copied()
    }

    /// Learns which sequences of a run made a value (its statements' reports).
    pub fn learn_made(&mut self, case: &TestCase, reports: &[hermetic_protocol::StmtReport]) {
        let keys = &self.stored_keys;
        self.made
            .learn(&case.stmts, reports, |s: &Stmt| keys[s.callable].clone());
    }

    /// The type stored by statement `stmt` of a test, if any.
    pub fn slot_ty(&self, stmt: &Stmt) -> Option<&'a Ty> {
        self.cluster.callables[stmt.callable].ret.stored()
    }

    /// Whether argument type `t` of callable `id` is bytes its code reads text out of
    /// (`from_utf8`): drawn and changed as text more often.
    pub fn text_bytes(&self, id: CallableId, t: &Ty) -> bool {
        let module = &self.cluster.modules[self.cluster.callables[id].module].path;
        let bytes = |e: &Ty| *e == Ty::Int(crate::cluster::IntTy::U8);
        let is_bytes = match t {
            Ty::Vec(e) | Ty::Slice(e) => bytes(e),
            Ty::Ref(s) => matches!(&**s, Ty::Slice(e) | Ty::Vec(e) if bytes(e)),
            _ => false,
        };
        is_bytes && self.pool.module_reads_text_bytes(module)
    }

    /// The argument types of a callable, receiver first.
    pub fn arg_types(&self, id: CallableId) -> Vec<Ty> {
        let c = &self.cluster.callables[id];
        let mut out = Vec::new();
        if let CallableKind::Method {
            self_ty, receiver, ..
        } = &c.kind
        {
            out.push(match receiver {
                Receiver::Ref => Ty::Ref(Box::new(self_ty.clone())),
                Receiver::RefMut => Ty::RefMut(Box::new(self_ty.clone())),
                Receiver::Value => self_ty.clone(),
            });
        }
        out.extend(c.params.iter().map(|p| p.ty.clone()));
        out
    }
}

/// Whether a callable's parameters or type arguments mention a mock.
pub fn takes_mocks(c: &crate::cluster::Callable) -> bool {
    let mock = |t: &Ty| t.mentions(&|t| matches!(t, Ty::Mock(_)));
    c.params.iter().any(|p| mock(&p.ty)) || c.generic_args.iter().any(mock)
}

/// The callables taking mocks whose twin (same item) takes none.
fn gated_callables(cluster: &Cluster) -> Vec<bool> {
    let same_item = |a: &crate::cluster::Callable, b: &crate::cluster::Callable| {
        a.module == b.module && a.name == b.name && a.kind.self_ty() == b.kind.self_ty()
    };
    cluster
        .callables
        .iter()
        .map(|c| {
            takes_mocks(c)
                && cluster
                    .callables
                    .iter()
                    .any(|d| same_item(c, d) && !takes_mocks(d))
        })
        .collect()
}

fn ty_key(t: &Ty) -> String {
    format!("{t:?}")
}

/// Whether a test in module `home` can call `c` (and name every type it needs).
pub fn callable_visible(cluster: &Cluster, c: CallableId, home: ModuleId) -> bool {
    let callable = &cluster.callables[c];
    let self_ty = callable.kind.self_ty();
    cluster.visible_from(callable.module, callable.vis, home)
        && self_ty.is_none_or(|t| cluster.ty_visible_from(t, home))
        && callable
            .params
            .iter()
            .all(|p| cluster.ty_visible_from(&p.ty, home))
        && cluster.ty_visible_from(&callable.ret, home)
}

/// A new test about a random target.
pub fn random_test(rng: &mut ChaCha8Rng, space: &Space) -> Option<TestCase> {
    let target = space.pick(rng, &space.targets)?;
    let home = space.cluster.callables[target].module;
    let mut test = TestCase {
        home,
        stmts: Vec::new(),
        env: Default::default(),
    };
    // Some state first, now and then: calls on the objects the target will use.
    if !append_call(rng, space, &mut test, target, 0) {
        return None;
    }
    if rng.gen_bool(0.3) {
        append_random_call(rng, space, &mut test);
    }
    Some(test)
}

/// Appends a call to `callable` at the end, adding statements that build its arguments.
pub fn append_call(
    rng: &mut ChaCha8Rng,
    space: &Space,
    test: &mut TestCase,
    callable: CallableId,
    depth: usize,
) -> bool {
    if depth > MAX_DEPTH || test.stmts.len() >= MAX_STMTS {
        return false;
    }
    let mut args = Vec::new();
    let mut taken = Vec::new();
    for t in space.arg_types(callable) {
        if space.text_bytes(callable, &t) {
            args.push(space.pool.random_text_bytes(rng, &t));
            continue;
        }
        match build_arg(rng, space, test, &t, &mut taken, depth) {
            Some(v) => args.push(v),
            None => return false,
        }
    }
    test.stmts.push(Stmt { callable, args });
    true
}

/// Appends a call chosen at random among the test's home module's callables, favouring
/// targets and methods of objects the test already has.
pub fn append_random_call(rng: &mut ChaCha8Rng, space: &Space, test: &mut TestCase) -> bool {
    let visible = &space.visible[test.home];
    let roll = rng.gen_range(0..10);
    let candidates: Vec<CallableId> = if roll < 4 {
        // Methods on values the test holds.
        let held: Vec<&Ty> = test.stmts.iter().filter_map(|s| space.slot_ty(s)).collect();
        visible
            .iter()
            .copied()
            .filter(|&c| match &space.cluster.callables[c].kind {
                CallableKind::Method { self_ty, .. } => held.contains(&self_ty),
                _ => false,
            })
            .collect()
    } else if roll < 8 {
        space
            .targets
            .iter()
            .copied()
            .filter(|c| visible.contains(c))
            .collect()
    } else {
        visible.clone()
    };
    let Some(c) = space
        .pick(rng, &candidates)
        .or_else(|| space.pick(rng, visible))
    else {
        return false;
    };
    let before = test.clone();
    if append_call(rng, space, test, c, 0) {
        true
    } else {
        *test = before;
        false
    }
}

/// Builds one argument; for crate types, picks a live earlier result or appends statements that
/// make one. `taken` lists the statements this call already uses.
fn build_arg(
    rng: &mut ChaCha8Rng,
    space: &Space,
    test: &mut TestCase,
    t: &Ty,
    taken: &mut Vec<usize>,
    depth: usize,
) -> Option<Value> {
    if !contains_adt(t) {
        return Some(random_value(rng, &space.pool, t, 0));
    }
    match t {
        Ty::Adt(..) | Ty::Mock(_) | Ty::Box(_) if built_by_statements(strip_box(t)) => {
            slot_for(rng, space, test, strip_box(t), taken, depth).map(Value::Use)
        }
        Ty::Ref(inner) if built_by_statements(inner) => {
            slot_for(rng, space, test, inner, taken, depth).map(Value::Borrow)
        }
        Ty::RefMut(inner) if built_by_statements(inner) => {
            slot_for(rng, space, test, inner, taken, depth).map(Value::BorrowMut)
        }
        Ty::Option(inner) => {
            if rng.gen_bool(0.3) {
                Some(Value::Opt(None))
            } else {
                Some(Value::Opt(Some(Box::new(build_arg(
                    rng, space, test, inner, taken, depth,
                )?))))
            }
        }
        Ty::Vec(inner) | Ty::Slice(inner) => {
            let n = rng.gen_range(0..3);
            let items = (0..n)
                .map(|_| build_arg(rng, space, test, inner, taken, depth))
                .collect::<Option<Vec<_>>>()?;
            Some(Value::Seq(items))
        }
        Ty::Array(inner, n) => {
            let items = (0..*n)
                .map(|_| build_arg(rng, space, test, inner, taken, depth))
                .collect::<Option<Vec<_>>>()?;
            Some(Value::Seq(items))
        }
        Ty::Tuple(items) => {
            let items = items
                .iter()
                .map(|i| build_arg(rng, space, test, i, taken, depth))
                .collect::<Option<Vec<_>>>()?;
            Some(Value::Tuple(items))
        }
        Ty::Result(ok, err) => {
            if rng.gen_bool(0.5) {
                Some(Value::Ok(Box::new(build_arg(
                    rng, space, test, ok, taken, depth,
                )?)))
            } else {
                Some(Value::Err(Box::new(build_arg(
                    rng, space, test, err, taken, depth,
                )?)))
            }
        }
        // Maps and sets of crate values: their entries, as a vector's.
        Ty::Std(kind, args) if kind.value_form(args).is_some() => {
            let form = kind.value_form(args).expect("a value form");
            build_arg(rng, space, test, &form, taken, depth)
        }
        // Borrows inside containers are not supported by the driver.
        _ => None,
    }
}

fn strip_box(t: &Ty) -> &Ty {
    match t {
        Ty::Box(inner) => strip_box(inner),
        other => other,
    }
}

/// A statement whose stored value has type `t` and can still be used, reusing one now and then
/// and otherwise appending a new producer.
fn slot_for(
    rng: &mut ChaCha8Rng,
    space: &Space,
    test: &mut TestCase,
    t: &Ty,
    taken: &mut Vec<usize>,
    depth: usize,
) -> Option<usize> {
    let moved = moved_slots(space, test);
    let live: Vec<usize> = (0..test.stmts.len())
        .filter(|&j| {
            space.slot_ty(&test.stmts[j]) == Some(t) && !moved.contains(&j) && !taken.contains(&j)
        })
        .collect();
    if !live.is_empty() && rng.gen_bool(0.8) {
        let j = *live.choose(rng).expect("non-empty");
        taken.push(j);
        return Some(j);
    }
    if let Some(j) = copy_made(rng, space, test, t) {
        taken.push(j);
        return Some(j);
    }
    let producers: Vec<CallableId> = space
        .producers
        .get(&ty_key(t))
        .map(|p| {
            p.iter()
                .copied()
                .filter(|c| space.visible[test.home].contains(c))
                .collect()
        })
        .unwrap_or_default();
    let producer = space.pick(rng, &producers)?;
    let before = test.stmts.len();
    if !append_call(rng, space, test, producer, depth + 1) {
        test.stmts.truncate(before);
        return None;
    }
    let j = test.stmts.len() - 1;
    taken.push(j);
    Some(j)
}

/// Now and then, appends a copy of a sequence that made a value of type `t` in an earlier run
/// (one the test's module can call); returns the statement holding the value.
fn copy_made(rng: &mut ChaCha8Rng, space: &Space, test: &mut TestCase, t: &Ty) -> Option<usize> {
    let room = MAX_STMTS.saturating_sub(test.stmts.len());
    let visible = &space.visible[test.home];
    let fits: Vec<&Vec<Stmt>> = space
        .made
        .of(&ty_key(t))
        .iter()
        .filter(|seq| seq.len() <= room && seq.iter().all(|s| visible.contains(&s.callable)))
        .collect();
    if fits.is_empty() || !rng.gen_bool(P_MADE) {
        return None;
    }
    let seq = fits.choose(rng).expect("non-empty");
    let base = test.stmts.len();
    for s in seq.iter() {
        let mut s = s.clone();
        for a in &mut s.args {
            shift(a, 0, base);
        }
        test.stmts.push(s);
    }
    Some(test.stmts.len() - 1)
}

/// Statements whose value has been moved by some statement.
fn moved_slots(space: &Space, test: &TestCase) -> Vec<usize> {
    let mut out = Vec::new();
    for s in &test.stmts {
        moves_of(space, s, &mut out);
    }
    out
}

/// The statements whose values `stmt` moves: those it passes by value, and those whose borrow
/// its result keeps (`Callable::held`: the driver keeps them for good).
fn moves_of(space: &Space, stmt: &Stmt, out: &mut Vec<usize>) {
    let held = &space.cluster.callables[stmt.callable].held;
    for (k, a) in stmt.args.iter().enumerate() {
        if held.contains(&k) {
            a.referenced_slots(out);
        } else {
            collect_moves(a, out);
        }
    }
}

fn collect_moves(v: &Value, out: &mut Vec<usize>) {
    match v {
        Value::Use(n) => out.push(*n),
        Value::Seq(items) | Value::Tuple(items) => items.iter().for_each(|i| collect_moves(i, out)),
        Value::Opt(Some(i)) | Value::Ok(i) | Value::Err(i) => collect_moves(i, out),
        _ => {}
    }
}

/// Removes statement `i` and, transitively, every statement that uses its value.
pub fn remove_stmt(test: &mut TestCase, i: usize) {
    let mut gone = vec![false; test.stmts.len()];
    gone[i] = true;
    for j in i + 1..test.stmts.len() {
        if test.stmts[j].uses().iter().any(|&u| gone[u]) {
            gone[j] = true;
        }
    }
    let mut new_index = vec![usize::MAX; test.stmts.len()];
    let mut kept = Vec::new();
    for (j, s) in std::mem::take(&mut test.stmts).into_iter().enumerate() {
        if !gone[j] {
            new_index[j] = kept.len();
            kept.push(s);
        }
    }
    for s in &mut kept {
        for a in &mut s.args {
            renumber(a, &new_index);
        }
    }
    test.stmts = kept;
}

pub(super) fn renumber(v: &mut Value, map: &[usize]) {
    match v {
        Value::Use(n) | Value::Borrow(n) | Value::BorrowMut(n) => *n = map[*n],
        Value::Seq(items) | Value::Tuple(items) => items.iter_mut().for_each(|i| renumber(i, map)),
        Value::Opt(Some(i)) | Value::Ok(i) | Value::Err(i) => renumber(i, map),
        _ => {}
    }
}

/// Removes statements until every use refers to an earlier, stored, not yet moved value, and
/// no call uses one value twice.
pub fn repair(space: &Space, test: &mut TestCase) {
    while let Some(bad) = first_invalid(space, test) {
        remove_stmt(test, bad);
    }
}

fn first_invalid(space: &Space, test: &TestCase) -> Option<usize> {
    let mut moved = vec![false; test.stmts.len()];
    for (i, s) in test.stmts.iter().enumerate() {
        let uses = s.uses();
        let mut seen = Vec::new();
        for &u in &uses {
            if u >= i || moved[u] || seen.contains(&u) || space.slot_ty(&test.stmts[u]).is_none() {
                return Some(i);
            }
            seen.push(u);
        }
        let mut m = Vec::new();
        moves_of(space, s, &mut m);
        for u in m {
            moved[u] = true;
        }
    }
    None
}

/// One to three random changes: delete, change or insert statements (EvoSuite's operators).
pub fn mutate(rng: &mut ChaCha8Rng, space: &Space, parent: &TestCase) -> TestCase {
    let mut test = parent.clone();
    let rounds = rng.gen_range(1..=3);
    for _ in 0..rounds {
        match rng.gen_range(0..10) {
            0 | 1 if test.stmts.len() > 1 => {
                let i = rng.gen_range(0..test.stmts.len());
                remove_stmt(&mut test, i);
            }
            2..=5 if !test.stmts.is_empty() => change_stmt(rng, space, &mut test),
            6 if !test.stmts.is_empty() => insert_before_last(rng, space, &mut test),
            _ => {
                append_random_call(rng, space, &mut test);
            }
        }
    }
    repair(space, &mut test);
    test
}

/// Changes one data argument of a statement, or points a crate-typed argument elsewhere.
fn change_stmt(rng: &mut ChaCha8Rng, space: &Space, test: &mut TestCase) {
    // Prefer statements with data arguments.
    let with_data: Vec<usize> = (0..test.stmts.len())
        .filter(|&i| !test.stmts[i].args.is_empty())
        .collect();
    let Some(&i) = with_data.choose(rng) else {
        return;
    };
    let types = space.arg_types(test.stmts[i].callable);
    let k = rng.gen_range(0..types.len());
    let t = &types[k];
    if contains_adt(t) {
        // Rebuild it from the statements before this one.
        replace_arg(test, i, k, |prefix, taken| {
            build_arg(rng, space, prefix, t, taken, 1)
        });
    } else if space.text_bytes(test.stmts[i].callable, t) {
        let v = space.pool.mutate_text_bytes(rng, t, &test.stmts[i].args[k]);
        test.stmts[i].args[k] = v;
    } else {
        let v = mutate_value(rng, &space.pool, t, &test.stmts[i].args[k]);
        test.stmts[i].args[k] = v;
    }
}

/// Appends `n` new items to the sequence argument `k` of statement `i` (a mock's return
/// values), adding statements before it for items built from crate values. False when an item
/// cannot be built.
pub fn extend_seq_arg(
    rng: &mut ChaCha8Rng,
    space: &Space,
    test: &mut TestCase,
    i: usize,
    k: usize,
    n: usize,
) -> bool {
    let types = space.arg_types(test.stmts[i].callable);
    let Some(Ty::Vec(elem)) = types.get(k) else {
        return false;
    };
    let Value::Seq(old) = &test.stmts[i].args[k] else {
        return false;
    };
    let old = old.clone();
    replace_arg(test, i, k, |prefix, taken| {
        let mut items = old;
        for _ in 0..n {
            items.push(build_arg(rng, space, prefix, elem, taken, 1)?);
        }
        Some(Value::Seq(items))
    })
}

/// Replaces argument `k` of statement `i` by what `build` makes; `build` may append statements
/// to the prefix of the test before statement `i` (they are spliced in). False when it makes
/// nothing (the test is unchanged).
fn replace_arg(
    test: &mut TestCase,
    i: usize,
    k: usize,
    build: impl FnOnce(&mut TestCase, &mut Vec<usize>) -> Option<Value>,
) -> bool {
    let mut prefix = TestCase {
        home: test.home,
        stmts: test.stmts[..i].to_vec(),
        env: test.env.clone(),
    };
    let mut taken: Vec<usize> = test.stmts[i].uses();
    let before = prefix.stmts.len();
    let Some(v) = build(&mut prefix, &mut taken) else {
        return false;
    };
    let added = prefix.stmts.len() - before;
    let mut stmt = test.stmts[i].clone();
    stmt.args[k] = v;
    splice(test, i, prefix.stmts.split_off(before), added, stmt);
    true
}

/// Replaces statement `i` by `new_stmts` followed by `stmt`, shifting later references.
fn splice(test: &mut TestCase, i: usize, new_stmts: Vec<Stmt>, added: usize, stmt: Stmt) {
    let suffix: Vec<Stmt> = test.stmts.split_off(i + 1);
    test.stmts.truncate(i);
    test.stmts.extend(new_stmts);
    test.stmts.push(stmt);
    for mut s in suffix {
        for a in &mut s.args {
            shift(a, i, added);
        }
        test.stmts.push(s);
    }
}

/// Moves references to statements from `from` on by `by` (statements were inserted before).
pub(crate) fn shift(v: &mut Value, from: usize, by: usize) {
    match v {
        Value::Use(n) | Value::Borrow(n) | Value::BorrowMut(n) if *n >= from => *n += by,
        Value::Seq(items) | Value::Tuple(items) => {
            items.iter_mut().for_each(|x| shift(x, from, by))
        }
        Value::Opt(Some(x)) | Value::Ok(x) | Value::Err(x) => shift(x, from, by),
        _ => {}
    }
}

/// Inserts a call before the last statement, to set up state for it.
fn insert_before_last(rng: &mut ChaCha8Rng, space: &Space, test: &mut TestCase) {
    let last = test.stmts.len() - 1;
    let mut prefix = TestCase {
        home: test.home,
        stmts: test.stmts[..last].to_vec(),
        env: test.env.clone(),
    };
    if append_random_call(rng, space, &mut prefix) {
        let added = prefix.stmts.len() - last;
        let new_stmts = prefix.stmts.split_off(last);
        let stmt = test.stmts[last].clone();
        let mut stmt_holder = TestCase {
            home: test.home,
            stmts: vec![stmt],
            env: test.env.clone(),
        };
        for a in &mut stmt_holder.stmts[0].args {
            shift(a, last, added);
        }
        test.stmts.truncate(last);
        test.stmts.extend(new_stmts);
        test.stmts.extend(stmt_holder.stmts);
    }
}
