//! The search loop on a fake executor: a closure stands in for the driver, so these tests run
//! in milliseconds and say exactly what the code under test "did".

use super::*;
use crate::analyze::analyze;
use crate::cluster::Cluster;
use hermetic_protocol::Value;
use hermetic_protocol::{Observed, StmtReport};
use values::ValuePool;

/// A fake driver: runs each request through `f`.
struct Fake<F: FnMut(&ExecRequest) -> ExecReport> {
    f: F,
    batches: usize,
}

impl<F: FnMut(&ExecRequest) -> ExecReport> Execute for Fake<F> {
    fn exec_batch(&mut self, requests: Vec<ExecRequest>) -> Result<Vec<ExecReport>> {
        self.batches += 1;
        Ok(requests.iter().map(&mut self.f).collect())
    }
}

fn fake<F: FnMut(&ExecRequest) -> ExecReport>(f: F) -> Fake<F> {
    Fake { f, batches: 0 }
}

/// A crate of one module; analysis gives the callables and their types.
fn cluster(source: &str) -> Cluster {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("src")).unwrap();
    std::fs::write(d.path().join("src/lib.rs"), source).unwrap();
    analyze(&d.path().join("src/lib.rs"), "demo").unwrap()
}

fn callable(c: &Cluster, name: &str) -> usize {
    c.callables.iter().position(|k| k.name == name).unwrap()
}

fn config(seed: u64, max: u64) -> SearchConfig {
    SearchConfig {
        seed,
        max_executions: Some(max),
        deadline: None,
        batch: 32,
        strategy: Strategy::Archive,
        env_parts: env::EnvParts::default(),
        mock_probability: 0.8,
        mock_start: 0.5,
        isolate_probability: 0.8,
        isolate_start: 0.5,
        stagnation_floor: Some(FLOOR),
        start_from: Vec::new(),
        kept_only: false,
    }
}

fn report(covered: Vec<u32>, returned: Option<Observed>) -> ExecReport {
    ExecReport {
        stmts: vec![StmtReport {
            returned,
            stored: false,
        }],
        covered,
        ..ExecReport::empty(Outcome::Completed)
    }
}

const SITE: u64 = 0x1000;
/// A small stagnation floor keeps these tests fast.
const FLOOR: u64 = 2_000;

/// `fn gate(x: i64) -> u8`: counter 0 always; counter 1 when `x < 0`; counter 2 when
/// `x == 1_234_567`, a comparison at `SITE` the fake reports with its operands and distance.
/// Every statement but the last is ignored (only the last call's coverage counts), so extra
/// statements are what minimisation must remove.
fn gate(request: &ExecRequest) -> ExecReport {
    let Some(Value::Int(x)) = request.calls.last().and_then(|c| c.args.first()) else {
        return report(vec![0], None);
    };
    let mut covered = vec![0];
    if *x < 0 {
        covered.push(1);
    }
    if *x == 1_234_567 {
        covered.push(2);
    }
    let mut r = report(covered, Some(Observed::Int(0)));
    r.stmts = vec![
        StmtReport {
            returned: Some(Observed::Int(0)),
            stored: false
        };
        request.calls.len()
    ];
    if *x != 1_234_567 {
        r.cmp_ints = vec![(SITE, *x as u64), (SITE, 1_234_567)];
    }
    r.cmp_closest = vec![(SITE, x.abs_diff(1_234_567) as u64)];
    r
}

const GATE: &str =
    "pub fn gate(x: i64) -> u8 { if x < 0 { 1 } else if x == 1_234_567 { 2 } else { 0 } }\n\
                    pub fn other(y: i64) -> u8 { y as u8 }\n";

fn run_gate(seed: u64, max: u64) -> SearchOutcome {
    let c = cluster(GATE);
    let targets = vec![callable(&c, "gate")];
    let usable = vec![true; c.callables.len()];
    let mut space = Space::new(&c, &usable, targets, ValuePool::default());
    let goals = GoalMap::for_tests(&[("gate", 3)], vec![(SITE, SITE + 1)]);
    run(
        &mut space,
        &goals,
        &mut fake(gate),
        &config(seed, max),
        &mut |_, _| {},
    )
    .unwrap()
}

#[test]
fn a_constant_the_code_compares_with_is_reached_and_the_search_stops_there() {
    let out = run_gate(1, 20_000);
    assert_eq!(out.covered, BTreeSet::from([0, 1, 2]));
    assert_eq!(out.stopped, StopReason::AllCovered);
    assert!(out.executions < 20_000, "{}", out.executions);
    // Minimised: each test is one call of `gate`.
    assert!(out.tests.iter().all(|t| t.case.stmts.len() == 1));
    let args: Vec<&Value> = out.tests.iter().map(|t| &t.case.stmts[0].args[0]).collect();
    assert!(args.contains(&&Value::Int(1_234_567)), "{args:?}");
}

#[test]
fn the_same_seed_gives_the_same_tests() {
    let cases =
        |o: SearchOutcome| -> Vec<TestCase> { o.tests.into_iter().map(|t| t.case).collect() };
    assert_eq!(cases(run_gate(7, 5_000)), cases(run_gate(7, 5_000)));
}

/// With `--max-executions` (the e2e tests also pass `--budget`), when mocks and fakes open up
/// is a matter of executions, never of the clock: on a loaded machine a search that has used
/// most of its time but a third of its executions has spent a third. (It was the larger of the
/// two shares, so the mocks e2e's seed-1 search went one way on an idle machine and another in
/// a cold CI checkout, where the build and the slower executions ate into `--budget 600`.)
#[test]
fn the_budget_spent_is_counted_in_executions_when_they_are_limited() {
    let now = Instant::now();
    // Nine tenths of the time gone (started 900 s ago, 100 s left).
    let Some(started) = now.checked_sub(std::time::Duration::from_secs(900)) else {
        return; // a clock younger than 15 minutes: nothing to show
    };
    let mut cfg = config(1, 6_000);
    cfg.deadline = Some(now + std::time::Duration::from_secs(100));
    assert_eq!(progress_fraction(&cfg, 2_000, started), 2_000.0 / 6_000.0);
    // Bounded by time alone, the time's share is the measure.
    cfg.max_executions = None;
    let by_time = progress_fraction(&cfg, 2_000, started);
    assert!((0.85..=0.95).contains(&by_time), "{by_time}");
}

#[test]
fn a_search_whose_coverage_stops_rising_ends_and_says_why() {
    let c = cluster(GATE);
    let targets = vec![callable(&c, "gate")];
    let usable = vec![true; c.callables.len()];
    let mut space = Space::new(&c, &usable, targets, ValuePool::default());
    // Goal 3 is never covered.
    let goals = GoalMap::for_tests(&[("gate", 4)], vec![(SITE, SITE + 1)]);
    let out = run(
        &mut space,
        &goals,
        &mut fake(gate),
        &config(1, 1_000_000),
        &mut |_, _| {},
    )
    .unwrap();
    let StopReason::Stagnated { last_gain, at } = out.stopped else {
        panic!("{:?}", out.stopped)
    };
    assert_eq!(out.covered.len(), 3);
    assert!(at - last_gain >= FLOOR && at - last_gain >= 4 * last_gain);
    assert!(at < 1_000_000);
    assert!(out.stopped.to_string().contains("coverage stopped rising"));
    // Without early stopping the budget is spent.
    let mut cfg = config(1, 1_000);
    cfg.stagnation_floor = None;
    let out = run(&mut space, &goals, &mut fake(gate), &cfg, &mut |_, _| {}).unwrap();
    assert_eq!(out.stopped, StopReason::Executions);
}

#[test]
fn a_step_runs_one_batch_and_the_archive_keeps_what_it_covered() {
    let c = cluster(GATE);
    let targets = vec![callable(&c, "gate")];
    let usable = vec![true; c.callables.len()];
    let mut space = Space::new(&c, &usable, targets, ValuePool::default());
    let goals = GoalMap::for_tests(&[("gate", 3)], vec![(SITE, SITE + 1)]);
    let cfg = config(3, 100);
    let mut search = Search::new(&mut space, &goals, &cfg);
    let mut exec = fake(gate);
    search.step(&mut exec).unwrap();
    assert_eq!((exec.batches, search.executions()), (1, 32));
    assert!(search.covered_goals() >= 1);
    // A batch learnt by hand: a test reaching goal 2 is archived.
    let case = TestCase {
        home: 0,
        stmts: vec![Stmt {
            callable: callable(&c, "gate"),
            args: vec![Value::Int(1_234_567)],
        }],
        env: Default::default(),
    };
    let r = gate(&case.request());
    search.learn(vec![case.clone()], vec![r]);
    assert!(search.archive.covers(2));
    assert_eq!(search.executions(), 33);
    let out = search.finish(&mut exec).unwrap();
    assert!(out.tests.iter().any(|t| t.case == case));
}

/// A step (a run past the comparison its parent's edit aimed at, gaining nothing) queues its
/// edits behind what waits; only a gain's go first. A loop over text steps every few runs
/// (each char compared with `\\`, `'`, `"`), and steps at the front buried the gains' edits for
/// good (tokenize, seed 4: 3,800 waiting at 20,000 runs, `--level` never tried).
#[test]
fn a_steps_edits_queue_behind_what_waits() {
    let c = cluster(GATE);
    let usable = vec![true; c.callables.len()];
    let mut space = Space::new(
        &c,
        &usable,
        vec![callable(&c, "gate")],
        ValuePool::default(),
    );
    let goals = GoalMap::for_tests(&[("gate", 3)], vec![(SITE, SITE + 0x100)]);
    let cfg = config(1, 0);
    let mut search = Search::new(&mut space, &goals, &cfg);
    let case = |x: i128| TestCase {
        home: 0,
        stmts: vec![Stmt {
            callable: callable(&c, "gate"),
            args: vec![Value::Int(x)],
        }],
        env: Default::default(),
    };
    // Goal 0 is covered: the runs below gain nothing.
    search.learn(vec![case(5)], vec![report(vec![0], None)]);
    search.eager.clear();
    search
        .eager
        .push_back((case(7), Origin::new(Kind::Int, None)));
    // Made towards `SITE`, the run got past it and now stops at `SITE + 4`.
    let aim = deciding::Aim::of(&[(SITE, 1, 2)], 1);
    search.origins = vec![Some(Origin::new(Kind::Deciding, aim))];
    let mut r = report(vec![0], None);
    r.cmp_last = vec![(SITE, 2, 2), (SITE + 4, 9, 3)];
    r.cmp_ints = vec![(SITE + 4, 9), (SITE + 4, 3)];
    search.learn(vec![case(9)], vec![r]);
    assert!(search.eager.len() > 1, "the step made no edits");
    assert_eq!(search.eager.front().unwrap().0, case(7));
    assert!(search.eager.iter().any(|(t, _)| *t == case(3)));
}

#[test]
fn minimisation_keeps_only_the_statements_a_goal_needs() {
    let c = cluster(GATE);
    let (g, o) = (callable(&c, "gate"), callable(&c, "other"));
    let usable = vec![true; c.callables.len()];
    let mut space = Space::new(&c, &usable, vec![g], ValuePool::default());
    let goals = GoalMap::for_tests(&[("gate", 3)], vec![(SITE, SITE + 1)]);
    let cfg = config(3, 0);
    let mut search = Search::new(&mut space, &goals, &cfg);
    let stmt = |callable, x| Stmt {
        callable,
        args: vec![Value::Int(x)],
    };
    let long = TestCase {
        home: 0,
        stmts: vec![stmt(o, 5), stmt(g, 9), stmt(o, 6), stmt(g, -4)],
        env: Default::default(),
    };
    let r = gate(&long.request());
    search.learn(vec![long], vec![r]);
    let mut exec = fake(gate);
    let out = search.finish(&mut exec).unwrap();
    assert_eq!(out.tests.len(), 1);
    assert_eq!(out.tests[0].case.stmts, vec![stmt(g, -4)]);
    assert_eq!(out.covered, BTreeSet::from([0, 1]));
    assert_eq!(out.stopped, StopReason::Executions);
}

#[test]
fn a_call_that_crashed_is_a_finding_and_is_not_tried_again() {
    let c = cluster(GATE);
    let g = callable(&c, "gate");
    let usable = vec![true; c.callables.len()];
    let mut space = Space::new(&c, &usable, vec![g], ValuePool::default());
    // Goal 3 is never covered, so the search spends its budget.
    let goals = GoalMap::for_tests(&[("gate", 4)], vec![(SITE, SITE + 1)]);
    // Every call with an argument of 0 aborts.
    let crashing = |r: &ExecRequest| {
        if let Some(at) = r.calls.iter().position(|c| c.args == [Value::Int(0)]) {
            // The calls before it ran; the one with the 0 crashed.
            let mut rep = report(vec![0], None);
            rep.stmts = vec![rep.stmts[0].clone(); at];
            rep.outcome = Outcome::Crashed {
                stmt: at,
                signal: 6,
                stack_overflow: false,
            };
            rep
        } else {
            gate(r)
        }
    };
    let out = run(
        &mut space,
        &goals,
        &mut fake(crashing),
        &config(2, 1_000),
        &mut |_, _| {},
    )
    .unwrap();
    // One finding per crashing callable (`gate(0)`, and `other(0)` when it came last).
    assert!(!out.findings.is_empty());
    assert!(out
        .findings
        .iter()
        .all(|f| f.case.stmts.last().unwrap().args == [Value::Int(0)]));
    assert!(
        out.avoided > 0,
        "the crashing call was drawn again and skipped"
    );
    assert!(out
        .tests
        .iter()
        .all(|t| t.case.stmts[0].args != [Value::Int(0)]));
}

/// A byte slice's value, as the driver gets it.
fn byte_seq(b: &[u8]) -> Value {
    Value::Seq(b.iter().map(|&x| Value::Int(x.into())).collect())
}

/// One function of a byte slice, for the tests of binary edits.
const FRAME: &str = "pub fn frame(b: &[u8]) -> bool { b.len() == 6 }\n";

const PARSERS: &str = "pub fn setting(line: &str) -> bool { line.starts_with(\"retries=\") }\n\
                       pub fn open(frame: &[u8]) -> bool { frame.len() > 4 }\n";

fn one_call(c: &Cluster, name: &str, arg: Value) -> TestCase {
    call_with(c, name, vec![arg])
}

/// A test of one call to `name` with `args`.
fn call_with(c: &Cluster, name: &str, args: Vec<Value>) -> TestCase {
    TestCase {
        home: 0,
        stmts: vec![Stmt {
            callable: callable(c, name),
            args,
        }],
        env: Default::default(),
    }
}

#[test]
fn a_compared_operand_is_spliced_in_where_the_test_holds_the_other() {
    let c = cluster(PARSERS);
    let usable = vec![true; c.callables.len()];
    let space = Space::new(&c, &usable, vec![0, 1], ValuePool::default());
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    // `memcmp("retriez=", "retries=")`: the key goes in where the test has the near miss.
    let case = one_call(&c, "setting", Value::Str("x retriez=3".into()));
    let pairs = vec![b"retriez=".to_vec(), b"retries=".to_vec()];
    let got = cmp::splice(&mut rng, &space, &case, &pairs, &[], &[]).unwrap();
    assert_eq!(got.stmts[0].args, vec![Value::Str("x retries=3".into())]);
    // A checksum read from the last four bytes (little-endian) and compared with the right
    // one: the right one goes in, in the same byte order.
    let case = one_call(
        &c,
        "open",
        byte_seq(&[b'N', 0xC0, 0xDE, 0x78, 0x56, 0x34, 0x12]),
    );
    let got = cmp::splice(
        &mut rng,
        &space,
        &case,
        &[],
        &[],
        &[(9, 0x1234_5678), (9, 0x00AB_CDEF)],
    );
    assert_eq!(
        got.unwrap().stmts[0].args,
        vec![byte_seq(&[b'N', 0xC0, 0xDE, 0xEF, 0xCD, 0xAB, 0x00])]
    );
    // As decimal text: `retries > 10` compared 12 with 10.
    let case = one_call(&c, "setting", Value::Str("retries=12".into()));
    let got = cmp::splice(&mut rng, &space, &case, &[], &[(9, 12), (9, 10)], &[]).unwrap();
    assert_eq!(got.stmts[0].args, vec![Value::Str("retries=10".into())]);
    // A shorter operand also at the width of the text: `day == 0` of `2024-11-11`.
    let case = one_call(&c, "setting", Value::Str("2024-11-31".into()));
    let made: Vec<Value> = (0..64)
        .filter_map(|_| cmp::splice(&mut rng, &space, &case, &[], &[(9, 31), (9, 0)], &[]))
        .map(|t| t.stmts[0].args[0].clone())
        .collect();
    assert!(made.contains(&Value::Str("2024-11-00".into())), "{made:?}");
    assert!(made.contains(&Value::Str("2024-11-0".into())), "{made:?}");
    // Nothing of the operands in the test: nothing to do.
    let case = one_call(&c, "setting", Value::Str("abc".into()));
    assert!(cmp::splice(&mut rng, &space, &case, &pairs, &[(9, 12), (9, 10)], &[]).is_none());
}

#[test]
fn bytes_a_callee_took_go_into_the_bytes_of_its_callers_alone_twice_and_around_theirs() {
    let c = cluster(
        "pub fn record(b: &[u8]) -> Option<usize> { (b.len() > 2).then_some(3) }\n\
         pub fn chain(b: &[u8]) -> usize { let mut n = 0; while let Some(k) = record(&b[n..]) { n += k; } n }\n",
    );
    let usable = vec![true; c.callables.len()];
    let space = Space::new(&c, &usable, vec![0, 1], ValuePool::default());
    let case = call_with(&c, "chain", vec![byte_seq(b"x")]);
    let args: Vec<Value> = cross::byte_pieces(&space, &case, b"R1!", callable(&c, "record"))
        .into_iter()
        .map(|(_, t)| t.stmts[0].args[0].clone())
        .collect();
    let want = [
        b"R1!".to_vec(),
        b"R1!R1!".to_vec(),
        b"R1!x".to_vec(),
        b"xR1!".to_vec(),
    ];
    assert_eq!(args, want.iter().map(|b| byte_seq(b)).collect::<Vec<_>>());
    // Not into the callee's own bytes.
    let case = call_with(&c, "record", vec![byte_seq(b"x")]);
    assert!(cross::byte_pieces(&space, &case, b"R1!", callable(&c, "record")).is_empty());
}

/// A magic number compared as an integer inside the standard library's generic code (a short
/// slice against a constant array: outside the code under test) still goes where the input
/// holds the bytes it was compared with, in an eager follow-up.
#[test]
fn bytes_compared_as_an_integer_at_any_site_are_replaced_eagerly() {
    let c = cluster(PARSERS);
    let usable = vec![true; c.callables.len()];
    let space = Space::new(&c, &usable, vec![0, 1], ValuePool::default());
    let case = one_call(&c, "open", byte_seq(b"Nname"));
    // `[0x61, 0x6d]` ("am") read as a little-endian u16 and compared with 0xDEC0.
    let anywhere = [(0x9000, 0x6d61), (0x9000, 0xdec0)];
    let (_, spliced) = cmp::eager(&space, &case, &[], &[], &anywhere);
    let got: Vec<_> = spliced
        .iter()
        .map(|(_, e)| e.apply(&case).stmts[0].args.clone())
        .collect();
    assert_eq!(got, vec![vec![byte_seq(&[b'N', b'n', 0xC0, 0xDE, b'e'])]]);
    // A checksum field still holding 1 (`[1, 0, 0, 0]`, little-endian) takes the one computed.
    let case = one_call(&c, "open", byte_seq(&[b'A', 0xC0, 0xDE, 1, 0, 0, 0]));
    let anywhere = [(0x9000, 1), (0x9000, 0x0042_0042)];
    let (_, spliced) = cmp::eager(&space, &case, &[], &[], &anywhere);
    let got: Vec<_> = spliced
        .iter()
        .map(|(_, e)| e.apply(&case).stmts[0].args.clone())
        .collect();
    assert!(got.contains(&vec![byte_seq(&[b'A', 0xC0, 0xDE, 0x42, 0, 0x42, 0])]));
    // Two values of a byte each are no signal: `n` (0x6e) compared with 0x41 is not replaced.
    let (_, spliced) = cmp::eager(&space, &case, &[], &[], &[(0x9000, 0x6e), (0x9000, 0x41)]);
    assert!(spliced.is_empty());
}

/// An ordering compares the shorter length's bytes, then the lengths: where a text's start was
/// compared with a shorter operand (a `BTreeMap<String, _>` key), the text also becomes that
/// operand whole, besides having it spliced in.
#[test]
fn a_text_whose_start_was_compared_with_a_shorter_operand_becomes_it_whole() {
    let c = cluster(READER);
    let usable = vec![true; c.callables.len()];
    let space = Space::new(&c, &usable, vec![0], ValuePool::default());
    let case = one_call(&c, "read", Value::Str("t9ue".into()));
    let compared = [b"t9".to_vec(), b"ab".to_vec()];
    let (_, spliced) = cmp::eager(&space, &case, &[], &compared, &[]);
    let got: Vec<_> = spliced
        .iter()
        .map(|(_, e)| e.apply(&case).stmts[0].args[0].clone())
        .collect();
    assert_eq!(got, [Value::Str("abue".into()), Value::Str("ab".into())]);
    // A text compared whole has nothing more to drop.
    let case = one_call(&c, "read", Value::Str("t9".into()));
    let (_, spliced) = cmp::eager(&space, &case, &[], &compared, &[]);
    assert_eq!(spliced.len(), 1);
}

/// Tests of the last run go first and are kept as they are, even a longer one than the search
/// would write (two calls) and one whose goals another kept test covers; the search stops at
/// once when they cover everything.
#[test]
fn the_last_run_s_tests_are_kept_as_they_are() {
    let c = cluster(GATE);
    let gate_fn = callable(&c, "gate");
    let call = |x: i128| Stmt {
        callable: gate_fn,
        args: vec![Value::Int(x)],
    };
    let case = |stmts: Vec<Stmt>| TestCase {
        home: 0,
        stmts,
        env: Default::default(),
    };
    let long = case(vec![call(5), call(1_234_567)]);
    let negative = case(vec![call(-3)]);
    let also_negative = case(vec![call(-4)]);
    let targets = vec![gate_fn];
    let usable = vec![true; c.callables.len()];
    let mut space = Space::new(&c, &usable, targets, ValuePool::default());
    let goals = GoalMap::for_tests(&[("gate", 3)], vec![(SITE, SITE + 1)]);
    let mut cfg = config(1, 20_000);
    cfg.start_from = vec![long.clone(), negative.clone(), also_negative.clone()];
    let out = run(&mut space, &goals, &mut fake(gate), &cfg, &mut |_, _| {}).unwrap();
    assert_eq!(out.stopped, StopReason::AllCovered);
    assert_eq!(
        out.executions,
        3 + 3 * 2,
        "the kept tests, then their fresh and warm reruns"
    );
    let cases: Vec<TestCase> = out.tests.into_iter().map(|t| t.case).collect();
    assert_eq!(cases.len(), 3, "{cases:?}");
    for kept in [long, negative, also_negative] {
        assert!(cases.contains(&kept), "{kept:?} not kept in {cases:?}");
    }
}

/// On unchanged sources (`kept_only`) the search stops once the last run's tests are kept,
/// even with goals left that a search would reach; a kept test that no longer runs as before
/// lets the search go on.
#[test]
fn on_unchanged_sources_the_kept_tests_are_all_there_is() {
    let c = cluster(GATE);
    let gate_fn = callable(&c, "gate");
    let case = |x: i128| TestCase {
        home: 0,
        stmts: vec![Stmt {
            callable: gate_fn,
            args: vec![Value::Int(x)],
        }],
        env: Default::default(),
    };
    let goals = GoalMap::for_tests(&[("gate", 3)], vec![(SITE, SITE + 1)]);
    let usable = vec![true; c.callables.len()];
    let search = |start_from: Vec<TestCase>, kept_only: bool| {
        let mut space = Space::new(&c, &usable, vec![gate_fn], ValuePool::default());
        let mut cfg = config(1, 20_000);
        cfg.start_from = start_from;
        cfg.kept_only = kept_only;
        run(&mut space, &goals, &mut fake(gate), &cfg, &mut |_, _| {}).unwrap()
    };

    let out = search(vec![case(-3)], true);
    assert_eq!(out.stopped, StopReason::Unchanged, "{}", out.stopped);
    let cases: Vec<TestCase> = out.tests.into_iter().map(|t| t.case).collect();
    assert_eq!(cases, vec![case(-3)]);
    // Its run, then its fresh and warm reruns.
    assert!(out.executions <= 3, "{} executions", out.executions);

    // The same kept test without `kept_only`: the search goes on for the third branch.
    let out = search(vec![case(-3)], false);
    assert_eq!(out.stopped, StopReason::AllCovered, "{}", out.stopped);
    assert!(out.tests.len() > 1);

    // A kept test the sandbox stops now is not kept: the search goes on.
    let mut space = Space::new(&c, &usable, vec![gate_fn], ValuePool::default());
    let mut cfg = config(1, 20_000);
    cfg.start_from = vec![case(-3), case(7)];
    cfg.kept_only = true;
    let blocked_for_7 = |r: &ExecRequest| {
        let mut report = gate(r);
        if matches!(
            r.calls.last().and_then(|c| c.args.first()),
            Some(Value::Int(7))
        ) {
            report.sandbox_blocked = 1;
        }
        report
    };
    let out = run(
        &mut space,
        &goals,
        &mut fake(blocked_for_7),
        &cfg,
        &mut |_, _| {},
    )
    .unwrap();
    assert_eq!(out.stopped, StopReason::AllCovered, "{}", out.stopped);
}

/// `pay` takes its branch only when `db::balance()`, an isolated call, returns more than 100:
/// only a fake can make it.
const PAY: &str = "pub mod db { pub fn balance() -> i64 { 0 } }\n\
                   pub fn pay() -> u8 { if db::balance() > 100 { 1 } else { 0 } }\n";

/// The driver for [`PAY`]: the balance is the fake's first value when the test set one up.
fn pay(c: &Cluster, request: &ExecRequest) -> ExecReport {
    pay_with(c, request, vec![Observed::Int(0)], false)
}

/// [`pay`] whose real balance returned `real_values`, and `touched` the environment or not.
fn pay_with(
    c: &Cluster,
    request: &ExecRequest,
    real_values: Vec<Observed>,
    touched: bool,
) -> ExecReport {
    let fake = c
        .callables
        .iter()
        .position(|k| matches!(k.kind, CallableKind::Fake(_)))
        .unwrap();
    let faked = request.calls.iter().find_map(|call| match &call.args[..] {
        [Value::Seq(values)] if call.callable == fake => values.first().cloned(),
        _ => None,
    });
    let balance = match &faked {
        Some(Value::Int(b)) => *b,
        _ => 0,
    };
    let mut r = report(
        if balance > 100 { vec![0, 1] } else { vec![0] },
        Some(Observed::Int(0)),
    );
    r.stmts = vec![r.stmts[0].clone(); request.calls.len()];
    r.fake_calls = vec![hermetic_protocol::FakeCalls {
        callable: fake,
        faked: faked.is_some() as u32,
        real: faked.is_none() as u32,
        real_values: if faked.is_none() { real_values } else { vec![] },
        touched: touched && faked.is_none(),
        ..Default::default()
    }];
    r
}

#[test]
fn a_pure_callee_the_tests_steer_is_never_faked() {
    let mut c = cluster(PAY);
    let chosen = vec![true; c.callables.len()];
    let isolation = crate::isolate::Isolation::plan(
        Some(crate::isolate::Isolate::On),
        &mut c,
        &chosen,
        std::path::Path::new("Cargo.toml"),
    );
    assert_eq!(isolation.units.len(), 1);
    let usable = vec![true; c.callables.len()];
    let goals = GoalMap::for_tests(&[("pay", 2)], vec![]);
    let mut cfg = config(1, 3_000);
    cfg.isolate_start = 0.0;
    // The balance returned 0 and 1 for real and touched nothing: pure, steered by the test.
    let two = vec![Observed::Int(0), Observed::Int(1)];
    for (touched, faked) in [(false, false), (true, true)] {
        let mut space = Space::new(&c, &usable, vec![callable(&c, "pay")], ValuePool::default());
        let driver = |r: &ExecRequest| pay_with(&c, r, two.clone(), touched);
        let out = run(&mut space, &goals, &mut fake(driver), &cfg, &mut |_, _| {}).unwrap();
        assert_eq!(
            out.goals_needing_fakes,
            usize::from(faked),
            "touched: {touched}"
        );
        assert_eq!(
            out.covered.len(),
            1 + usize::from(faked),
            "touched: {touched}"
        );
    }
}

/// Seed 000: a gain whose run called an isolated callee for real is followed at once by a test
/// that fakes it, after the gain's first edits.
#[test]
fn a_gain_that_called_an_isolated_callee_for_real_is_followed_by_its_fake() {
    let mut c = cluster(PAY);
    let chosen = vec![true; c.callables.len()];
    crate::isolate::Isolation::plan(
        Some(crate::isolate::Isolate::On),
        &mut c,
        &chosen,
        std::path::Path::new("Cargo.toml"),
    );
    let usable = vec![true; c.callables.len()];
    let goals = GoalMap::for_tests(&[("pay", 2)], vec![]);
    let fake = c
        .callables
        .iter()
        .position(|k| matches!(k.kind, CallableKind::Fake(_)))
        .unwrap();
    let followed = |gate: f64| {
        let mut space = Space::new(&c, &usable, vec![callable(&c, "pay")], ValuePool::default());
        space.fake_gate = gate;
        let cfg = config(1, 0);
        let mut search = Search::new(&mut space, &goals, &cfg);
        let case = call_with(&c, "pay", vec![]);
        // The run gained `pay`'s first branch; its real balance touched the environment.
        let mut r = report(vec![0], Some(Observed::Int(0)));
        r.fake_calls = vec![hermetic_protocol::FakeCalls {
            callable: fake,
            real: 1,
            real_values: vec![Observed::Int(0)],
            touched: true,
            ..Default::default()
        }];
        search.learn(vec![case], vec![r]);
        let faking = search
            .eager
            .iter()
            .filter(|(t, _)| t.stmts.iter().any(|s| s.callable == fake))
            .count();
        let last = search.eager.back().map(|(_, o)| o.kind);
        (faking, last)
    };
    let (faking, last) = followed(1.0);
    assert!(faking >= 1, "no fake followed the gain");
    assert_eq!(
        last,
        Some(Kind::Fake),
        "the fakes go after the gain's first edits"
    );
    // Before fakes are allowed, none.
    assert_eq!(followed(0.0).0, 0);
}

/// A fake's value is never made by the callee it fakes (`process(..)` for `process`'s fake
/// returns what the real call does): the struct literal makes it.
#[test]
fn a_fake_value_is_not_made_by_the_callee_it_fakes() {
    const SERVICE: &str = "pub mod svc {\n\
                               pub struct Out { pub ok: bool }\n\
                               pub fn call(n: u8) -> Out { Out { ok: n > 200 } }\n\
                           }\n\
                           pub fn run(n: u8) -> u8 { if svc::call(n).ok { 1 } else { 0 } }\n";
    let mut c = cluster(SERVICE);
    let chosen = vec![true; c.callables.len()];
    crate::isolate::Isolation::plan(
        Some(crate::isolate::Isolate::On),
        &mut c,
        &chosen,
        std::path::Path::new("Cargo.toml"),
    );
    let fake = c
        .callables
        .iter()
        .position(|k| matches!(k.kind, CallableKind::Fake(_)))
        .unwrap();
    let real_call = callable(&c, "call");
    let usable = vec![true; c.callables.len()];
    let space = Space::new(&c, &usable, vec![callable(&c, "run")], ValuePool::default());
    let case = one_call(&c, "run", Value::Int(3));
    let mut r = report(vec![0], Some(Observed::Int(0)));
    r.fake_calls = vec![hermetic_protocol::FakeCalls {
        callable: fake,
        real: 1,
        touched: true,
        ..Default::default()
    }];
    // The real call touched the environment: worth faking, though the unit steers it.
    let mut real = fakes::RealValues::new(&c);
    real.learn(&r);
    let mut built = 0;
    for seed in 0..50 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for t in fakes::insert_each(&mut rng, &space, &real, &case, &r) {
            built += 1;
            assert!(
                !t.stmts.iter().any(|s| s.callable == real_call),
                "{:?}",
                t.stmts
            );
        }
    }
    assert!(built > 0, "no fake was built");
}

#[test]
fn a_search_that_stalls_before_its_last_resorts_tries_them_before_it_stops() {
    let mut c = cluster(PAY);
    let chosen = vec![true; c.callables.len()];
    let isolation = crate::isolate::Isolation::plan(
        Some(crate::isolate::Isolate::On),
        &mut c,
        &chosen,
        std::path::Path::new("Cargo.toml"),
    );
    assert_eq!(isolation.units.len(), 1);
    let targets = vec![callable(&c, "pay")];
    let usable = vec![true; c.callables.len()];
    let mut space = Space::new(&c, &usable, targets, ValuePool::default());
    let goals = GoalMap::for_tests(&[("pay", 2)], vec![]);
    // Fakes would be allowed only after 99% of a million executions.
    let mut cfg = config(1, 1_000_000);
    cfg.isolate_start = 0.99;
    let out = run(
        &mut space,
        &goals,
        &mut fake(|r: &ExecRequest| pay(&c, r)),
        &cfg,
        &mut |_, _| {},
    )
    .unwrap();
    assert_eq!(out.stopped, StopReason::AllCovered, "{}", out.stopped);
    assert!(out.executions < 2 * FLOOR + 1_000, "{}", out.executions);
    assert_eq!(out.goals_needing_fakes, 1);
    // Once allowed, the last resorts get the floor's executions before the search stops.
    let goals = GoalMap::for_tests(&[("pay", 3)], vec![]);
    let out = run(
        &mut space,
        &goals,
        &mut fake(|r: &ExecRequest| pay(&c, r)),
        &cfg,
        &mut |_, _| {},
    )
    .unwrap();
    let StopReason::Stagnated { at, .. } = out.stopped else {
        panic!("{:?}", out.stopped)
    };
    assert!((2 * FLOOR..1_000_000).contains(&at), "{at}");
}

#[test]
fn near_misses_are_followed_up_at_once_and_each_place_once() {
    const KEYS: &str = "pub fn key(line: &str) -> bool { line == \"name\" }\n\
                        pub fn second(x: i64) -> bool { x == 42 }\n";
    let c = cluster(KEYS);
    let usable = vec![true; c.callables.len()];
    let targets = vec![callable(&c, "key"), callable(&c, "second")];
    let mut space = Space::new(&c, &usable, targets, ValuePool::default());
    let goals = GoalMap::for_tests(&[("key", 2)], vec![(SITE, SITE + 1)]);
    let cfg = config(1, 0);
    let mut search = Search::new(&mut space, &goals, &cfg);
    // `"nope" == "name"` compared four bytes; `41 == 42` compared at SITE.
    let case = TestCase {
        home: 0,
        stmts: vec![
            Stmt {
                callable: callable(&c, "key"),
                args: vec![Value::Str("x=nope".into())],
            },
            Stmt {
                callable: callable(&c, "second"),
                args: vec![Value::Int(41)],
            },
        ],
        env: Default::default(),
    };
    let mut r = report(vec![0], None);
    r.cmp_bytes = vec![b"nope".to_vec(), b"name".to_vec()];
    r.cmp_ints = vec![(SITE, 41), (SITE, 42)];
    search.learn(vec![case.clone()], vec![r.clone()]);
    let args: Vec<Vec<Value>> = search
        .eager
        .iter()
        .map(|(t, _)| t.stmts.iter().flat_map(|s| s.args.clone()).collect())
        .collect();
    assert!(
        args.contains(&vec![Value::Str("x=name".into()), Value::Int(41)]),
        "{args:?}"
    );
    assert!(
        args.contains(&vec![Value::Str("x=nope".into()), Value::Int(42)]),
        "{args:?}"
    );
    // The same near miss again: those operands were put in those places already.
    let before = search.eager.len();
    search.learn(vec![case], vec![r]);
    assert_eq!(search.eager.len(), before);
}

/// What `httpdate` does before it reads a date: `s.len() != 29`, then `s[16] != b' '`, then
/// `s[23].wrapping_sub(b'0') < 10`. The length is met by padding, the byte at its one offset,
/// the digit through the base the code subtracted.
#[test]
fn strings_are_resized_to_a_compared_length_and_a_compared_byte_goes_to_its_offset() {
    const DATES: &str = "pub fn date(s: &str) -> bool { s.len() == 29 }\n\
                         pub fn raw(s: &[u8]) -> bool { s.len() == 29 }\n";
    let c = cluster(DATES);
    let usable = vec![true; c.callables.len()];
    let space = Space::new(&c, &usable, vec![0, 1], ValuePool::default());
    let edited = |case: &TestCase, ints: &[(u64, u64)]| -> Vec<Value> {
        cmp::reshapes(&space, case, ints, &|_| 0)
            .iter()
            .filter_map(|r| cmp::reshape(&space, case, r))
            .map(|t| t.stmts[0].args[0].clone())
            .collect()
    };
    // `"  ab".trim().len()` (2) compared with 29: padded to 29 + 2, with bytes not in it.
    let case = one_call(&c, "date", Value::Str("  ab".into()));
    let got = edited(&case, &[(SITE, 2), (SITE, 29)]);
    let Value::Str(padded) = &got[0] else {
        panic!("{got:?}")
    };
    assert_eq!(
        padded, "  abABCDEFGHIJKLMNOPQRSTUVWXYZc",
        "`a` and `b` are not padding"
    );
    // Longer than compared: cut.
    let case = one_call(&c, "date", Value::Str("x".repeat(40)));
    assert!(edited(&case, &[(SITE, 40), (SITE, 29)]).contains(&Value::Str("x".repeat(29))));
    // `s[16] != b' '` saw b'Q' (81): only the offset holding it changes.
    let s = "ABCDEFGHIJKLMNOPQRSTUVWXYZabc";
    let case = one_call(&c, "date", Value::Str(s.into()));
    let got = edited(&case, &[(SITE + 8, 81), (SITE + 8, 32)]);
    assert!(
        got.contains(&Value::Str("ABCDEFGHIJKLMNOP RSTUVWXYZabc".into())),
        "{got:?}"
    );
    let others = got.iter().filter(|v| match v {
        Value::Str(t) => t.len() == s.len() && t.as_bytes()[16] == b'Q',
        _ => false,
    });
    assert_eq!(others.count(), 0, "no other offset changes: {got:?}");
    // `s[23].wrapping_sub(b'0') < 10` saw b'X' - b'0' = 40: a digit goes there (`'9'` for
    // `< 10`, `':'` for `<= 10`); the same in a byte slice.
    let got = edited(&case, &[(SITE + 9, 40), (SITE + 9, 10)]);
    assert!(
        got.contains(&Value::Str("ABCDEFGHIJKLMNOPQRSTUVW9YZabc".into())),
        "{got:?}"
    );
    let case = one_call(&c, "raw", byte_seq(s.as_bytes()));
    let got = edited(&case, &[(SITE + 9, 40), (SITE + 9, 10)]);
    assert!(
        got.contains(&byte_seq(b"ABCDEFGHIJKLMNOPQRSTUVW9YZabc")),
        "{got:?}"
    );
    // Nothing near the length and no byte of the test compared: nothing to do.
    assert!(edited(&case, &[(SITE, 1000), (SITE, 2000)]).is_empty());
}

/// The comparisons that decided a run are followed at once, in the form the test holds their
/// operand: a `match` on a byte (the driver logs the byte with each arm's value) edits that
/// byte only, not the arms' letters found elsewhere in the string; a checksum read from a
/// little-endian trailer gets the computed one in its place.
#[test]
fn the_deciding_comparison_is_met_in_the_form_the_test_holds_its_operand() {
    const SRC: &str = "pub fn month(s: &str) -> bool { s.len() == 8 }\n\
                       pub fn frame(b: &[u8]) -> bool { b.len() == 6 }\n";
    let c = cluster(SRC);
    let usable = vec![true; c.callables.len()];
    let space = Space::new(&c, &usable, vec![0, 1], ValuePool::default());
    let month = TestCase {
        home: 0,
        stmts: vec![Stmt {
            callable: callable(&c, "month"),
            args: vec![Value::Str("Sun Xyz ".into())],
        }],
        env: Default::default(),
    };
    // An earlier site, then the switch on s[4] ('X') with arms 'J', 'S'.
    let last = [
        (SITE, 3, 8),
        (SITE + 8, b'X' as u64, b'J' as u64),
        (SITE + 8, b'X' as u64, b'S' as u64),
    ];
    let got: Vec<Value> = deciding::follow(&space, &month, &deciding::deciding(&last))
        .into_iter()
        .map(|(_, t)| t.stmts[0].args[0].clone())
        .collect();
    assert_eq!(got[0], Value::Str("Sun Syz ".into()), "{got:?}");
    assert_eq!(got[1], Value::Str("Sun Jyz ".into()), "{got:?}");
    assert!(
        !got.iter()
            .any(|v| matches!(v, Value::Str(s) if !s.starts_with("Sun "))),
        "the arms' letters elsewhere stay: {got:?}"
    );
    let frame = TestCase {
        home: 0,
        stmts: vec![Stmt {
            callable: callable(&c, "frame"),
            args: vec![byte_seq(&[b'N', 0xC0, 0xDE, 1, 2, 3, 4])],
        }],
        env: Default::default(),
    };
    let last = [
        (SITE, 0x0403_0201, 0x00AB_00CD),
        (SITE, 0x00AB_00CD, 0x0403_0201),
    ];
    let got: Vec<Value> = deciding::follow(&space, &frame, &deciding::deciding(&last))
        .into_iter()
        .map(|(_, t)| t.stmts[0].args[0].clone())
        .collect();
    assert!(
        got.contains(&byte_seq(&[b'N', 0xC0, 0xDE, 0xCD, 0, 0xAB, 0])),
        "{got:?}"
    );
}

/// A checksum a run failed is put right where the test holds it in binary, once the site's
/// other operand showed it computed (three values) and some run met the site: a magic
/// number (one value) and a site never met are left alone, and each repaired test is made once.
#[test]
fn a_checksum_the_run_failed_is_put_right_once_it_shows_computed() {
    let c = cluster(FRAME);
    let usable = vec![true; c.callables.len()];
    let space = Space::new(&c, &usable, vec![0], ValuePool::default());
    let frame = |b: &[u8]| call_with(&c, "frame", vec![byte_seq(b)]);
    let case = frame(&[b'A', 0xC0, 0xDE, 1, 2, 3, 4]);
    let found = 0x0403_0201;
    let mut sums = repair::Checksums::default();
    let met = |_| true;
    // A constant compared with what the trailer holds: one value, no repair.
    for _ in 0..4 {
        let pairs = [(SITE, found, 0x0042_0042)];
        assert!(sums.repair(&space, &case, &pairs, met).is_none());
    }
    // The other operand changes with the body: computed, from its third value on.
    let other = SITE + 8;
    assert!(sums
        .repair(&space, &case, &[(other, found, 0x11)], met)
        .is_none());
    assert!(sums
        .repair(&space, &case, &[(other, found, 0x0100_0101)], met)
        .is_none());
    assert!(sums
        .repair(&space, &case, &[(other, found, 0x0200_0202)], |_| false)
        .is_none());
    let fixed = sums.repair(&space, &case, &[(other, found, 0x0300_0303)], met);
    assert_eq!(fixed, Some(frame(&[b'A', 0xC0, 0xDE, 3, 3, 0, 3])));
    // The same test repaired again: not made twice.
    assert!(sums
        .repair(&space, &case, &[(other, found, 0x0300_0303)], met)
        .is_none());
    // After a later comparison (the error formatted), the checksum still counts.
    let pairs = [(SITE + 16, 0x58, 1 << 63), (other, found, 0x0400_0404)];
    assert_eq!(
        sums.repair(&space, &case, &pairs, met),
        Some(frame(&[b'A', 0xC0, 0xDE, 4, 4, 0, 4]))
    );
}

/// The standard library's checks of pointers compare sizes with distances between addresses,
/// which move with the crate's path, the environment's size and what the driver allocated
/// before the fork: a distance's bytes spliced into a test (`08 00`, a size, replaced by the
/// distance) would give other tests from the same seed. Runs whose reports differ only there
/// make the same executions.
#[test]
fn where_the_addresses_lie_does_not_change_the_search() {
    const CHECK: u64 = 0x8000;
    let c = cluster(FRAME);
    let search = |distance: u64| {
        let usable = vec![true; c.callables.len()];
        let mut space = Space::new(&c, &usable, vec![0], ValuePool::default());
        let goals = GoalMap::for_tests(&[("frame", 3)], vec![(SITE, SITE + 1)])
            .with_pointer_checks(vec![(CHECK, CHECK + 1)]);
        let mut executed = Vec::new();
        run(
            &mut space,
            &goals,
            &mut fake(|request: &ExecRequest| {
                executed.push(request.calls.clone());
                let Some(Value::Seq(b)) = request.calls.last().and_then(|c| c.args.first()) else {
                    return report(vec![0], None);
                };
                let mut r = report(vec![0], Some(Observed::Bool(b.len() == 6)));
                r.cmp_ints = vec![(SITE, b.len() as u64), (SITE, 6)];
                // A copy of the slice: its size (8) and the distance between the two places.
                r.cmp_ints
                    .extend([(CHECK, 8), (CHECK, distance + b.len() as u64)]);
                r.cmp_last = vec![(CHECK, distance, 8), (SITE, b.len() as u64, 6)];
                r.cmp_closest = vec![(SITE, b.len().abs_diff(6) as u64), (CHECK, distance)];
                if b.len() == 6 {
                    r.covered.push(1);
                }
                if b.windows(2)
                    .any(|w| w == [Value::Int(0x21), Value::Int(0x43)])
                {
                    r.covered.push(2);
                }
                r
            }),
            &config(3, 3_000),
            &mut |_, _| {},
        )
        .unwrap();
        executed
    };
    // Two places on the heap, as far apart as what the driver allocated before made them.
    let (near, far) = (search(0x4321), search(0x4711));
    assert!(near == far, "the executions differ with the addresses");
}

/// A length compared of what follows a binary record's first byte is met by cutting bytes
/// from inside, after that byte, so the trailer stays: `A` + 18 bytes + trailer, its body's
/// length (19) compared with 0, becomes `A` + trailer.
#[test]
fn a_binary_payload_is_cut_from_inside_its_tag_and_trailer_kept() {
    let c = cluster(FRAME);
    let usable = vec![true; c.callables.len()];
    let space = Space::new(&c, &usable, vec![0], ValuePool::default());
    let mut held = vec![b'A'];
    held.extend(b"bcdefghijklmnopqrs");
    held.extend([0xC0, 0xDE, 1, 2, 3, 4]);
    let case = call_with(&c, "frame", vec![byte_seq(&held)]);
    let got: Vec<Value> = deciding::follow(&space, &case, &[(SITE, 19, 0)])
        .into_iter()
        .map(|(_, t)| t.stmts[0].args[0].clone())
        .collect();
    assert!(
        got.contains(&byte_seq(&[b'A', 0xC0, 0xDE, 1, 2, 3, 4])),
        "{got:?}"
    );
    // Cut at the end too, as text is.
    assert!(got.contains(&byte_seq(&held[..6])), "{got:?}");
}

/// A compared value the test does not hold (`credit + coin` against a limit) moves each integer
/// it holds by the difference, and by one less and one more; the items of a sequence do not.
#[test]
fn a_worked_out_operand_moves_each_integer_the_test_holds_by_the_difference() {
    let c = cluster(
        "pub fn full(credit: u32, coin: u32, slots: [u8; 2]) -> bool { credit + coin > 500 && slots[0] > 0 }\n",
    );
    let usable = vec![true; c.callables.len()];
    let space = Space::new(&c, &usable, vec![0], ValuePool::default());
    let case = call_with(
        &c,
        "full",
        vec![Value::Int(5), Value::Int(10), byte_seq(&[7, 8])],
    );
    let got: Vec<Vec<Value>> = deciding::follow(&space, &case, &[(SITE, 15, 500)])
        .into_iter()
        .map(|(_, t)| t.stmts[0].args.clone())
        .collect();
    let with =
        |credit: i128, coin: i128| vec![Value::Int(credit), Value::Int(coin), byte_seq(&[7, 8])];
    let want = [
        with(490, 10),
        with(5, 495),
        with(489, 10),
        with(5, 494),
        with(491, 10),
        with(5, 496),
    ];
    assert_eq!(got, want);
    // Below zero does not fit a `u32`.
    assert!(deciding::follow(&space, &case, &[(SITE, 15, 1)]).is_empty());
}

/// The last run of each kept test comes after its calls ran once in a bare environment: a value
/// that then differs (a static the first run set) makes no assertion, and a test that ends
/// otherwise (its panic happened only while a `Once` ran for the first time) is not kept.
#[test]
fn what_holds_only_for_the_first_caller_is_not_asserted() {
    let c = cluster(GATE);
    let targets = vec![callable(&c, "gate")];
    let usable = vec![true; c.callables.len()];
    let mut space = Space::new(&c, &usable, targets, ValuePool::default());
    let goals = GoalMap::for_tests(&[("gate", 3)], vec![(SITE, SITE + 1)]);
    let mut warm_requests = 0;
    let out = run(
        &mut space,
        &goals,
        &mut fake(|request: &ExecRequest| {
            let mut r = gate(request);
            if request.warm_up {
                warm_requests += 1;
                // A negative `x` panicked the first time only; the others return what the
                // first run left.
                if r.covered.contains(&1) {
                    r.outcome = Outcome::Completed;
                } else {
                    r.stmts.last_mut().unwrap().returned = Some(Observed::Int(7));
                }
            } else if r.covered.contains(&1) {
                r.outcome = Outcome::Panicked {
                    stmt: request.calls.len() - 1,
                    message: "first".into(),
                };
            }
            r
        }),
        &config(1, 20_000),
        &mut |_, _| {},
    )
    .unwrap();
    assert!(warm_requests > 0, "no test ran warm");
    assert!(!out.tests.is_empty());
    for t in &out.tests {
        assert!(
            !matches!(t.report.outcome, Outcome::Panicked { .. }),
            "kept a test whose panic needs a first call: {:?}",
            t.case
        );
        let last = t.report.stmts.last().unwrap();
        assert_eq!(
            last.returned, None,
            "asserts what only a first call returns"
        );
    }
}

/// A search execution may run in a reused child, where a second run sees what the process kept
/// (a virtual descriptor's number, a thread id): what only such runs return makes no assertion,
/// because each kept test also runs fresh.
#[test]
fn what_only_a_reused_child_returns_is_not_asserted() {
    let c = cluster(GATE);
    let targets = vec![callable(&c, "gate")];
    let usable = vec![true; c.callables.len()];
    let mut space = Space::new(&c, &usable, targets, ValuePool::default());
    let goals = GoalMap::for_tests(&[("gate", 3)], vec![(SITE, SITE + 1)]);
    let (mut fresh_requests, mut reused) = (0, 0);
    let out = run(
        &mut space,
        &goals,
        &mut fake(|request: &ExecRequest| {
            let mut r = gate(request);
            // A reused child and a warm rerun see the process's second run; a fresh run its first.
            let second = request.reuse || request.warm_up;
            if request.reuse {
                reused += 1;
            } else if !request.warm_up {
                fresh_requests += 1;
            }
            r.stmts.last_mut().unwrap().returned = Some(Observed::Int(if second { 2 } else { 1 }));
            r
        }),
        &config(1, 20_000),
        &mut |_, _| {},
    )
    .unwrap();
    assert!(
        reused > 0 && fresh_requests > 0,
        "{reused} {fresh_requests}"
    );
    assert!(!out.tests.is_empty());
    for t in &out.tests {
        let last = t.report.stmts.last().unwrap();
        assert_eq!(
            last.returned, None,
            "asserts what a reused child returned: {:?}",
            t.case
        );
    }
}

const READER: &str = "pub fn read(text: &str) -> Result<u8, String> {\n\
                          let mut n = 0;\n\
                          for line in text.lines() {\n\
                              let (key, value) = line.split_once('=').ok_or(\"no equals\")?;\n\
                              match key { \"name\" => {}\n\
                                  \"retries\" => n = value.parse::<u8>().map_err(|e| e.to_string())?,\n\
                                  _ => return Err(\"unknown\".into()) }\n\
                          }\n\
                          if n > 10 { return Err(\"too many\".into()); }\n\
                          Ok(n)\n\
                      }\n\
                      pub fn act(token: u64, action: &str) -> bool {\n\
                          token == 42 && action == \"rotate-logs-now\"\n\
                      }\n";

/// The texts the dictionary edits of `case` put in its argument `k`: the whole texts and the
/// tokens, then tier by tier.
fn word_texts(
    space: &Space,
    case: &TestCase,
    k: usize,
    ints: &[(u64, u64)],
) -> (Vec<String>, [Vec<String>; words::TIERS]) {
    let dict = words::dictionary(space, case, ints, |_| true);
    let edits = words::edits(space, case, &dict, &[], &BTreeSet::new());
    let texts = |list: Vec<(cmp::Tried, TestCase)>| -> Vec<String> {
        list.into_iter()
            .map(|(_, t)| match &t.stmts[0].args[k] {
                Value::Str(s) => s.clone(),
                other => panic!("not text: {other:?}"),
            })
            .collect()
    };
    let mut all = texts(edits.whole);
    all.extend(texts(edits.tokens));
    (all, edits.tiers.map(texts))
}

fn rest_has(texts: &[&String], want: &str) -> bool {
    texts.iter().any(|t| *t == want)
}

#[test]
fn the_modules_words_go_in_as_keys_values_and_added_lines() {
    let c = cluster(READER);
    let usable = vec![true; c.callables.len()];
    let pool = ValuePool::from_literals(&c.literals);
    let space = Space::new(&c, &usable, vec![0, 1], pool);
    let case = one_call(&c, "read", Value::Str("name=a".into()));
    // The run compared a retry count with 10: 10 and 11 are values to try.
    let (tokens, tiers) = word_texts(&space, &case, 0, &[(7, 3), (7, 10)]);
    let all: Vec<&String> = tokens.iter().chain(tiers.iter().flatten()).collect();
    for want in [
        "retries=a",
        "name=a\nretries=a",
        "name=a\nname=a",
        "name=11",
        "rotate-logs-now",
    ] {
        assert!(all.iter().any(|t| *t == want), "{want:?} not in {all:?}");
    }
    // A line added with a limit the code has yet to pass as its value.
    assert!(rest_has(&all, "name=a\nretries=11"), "{all:?}");
    // A number is a value, not a key.
    assert!(!all.iter().any(|t| t.starts_with("11")), "{all:?}");
    // A line the code refuses is dropped, so the lines after it are read.
    let case = one_call(&c, "read", Value::Str("junk\nname=a".into()));
    let (_, [first, ..]) = word_texts(&space, &case, 0, &[]);
    assert!(first.iter().any(|t| t == "name=a"), "{first:?}");
}

#[test]
fn a_line_of_fields_gets_one_more() {
    // `0.0` split at '.' has two fields where the code reads three.
    let c = cluster(
        "pub fn parse(v: &str) -> Option<u8> {\n\
             let mut parts = v.split('.');\n\
             let a: u8 = parts.next()?.parse().ok()?;\n\
             let b: u8 = parts.next()?.parse().ok()?;\n\
             let c: u8 = parts.next()?.parse().ok()?;\n\
             Some(a + b + c)\n\
         }\n",
    );
    let usable = vec![true; c.callables.len()];
    let pool = ValuePool::from_literals(&c.literals);
    let space = Space::new(&c, &usable, vec![0], pool);
    let case = one_call(&c, "parse", Value::Str("0.12".into()));
    let (tokens, _) = word_texts(&space, &case, 0, &[]);
    assert!(tokens.iter().any(|t| t == "0.12.12"), "{tokens:?}");
}

#[test]
fn the_last_field_of_the_line_a_reader_stopped_at_gets_each_word() {
    // `GET /a 32` passed the method and the path; its version is compared whole, lengths first.
    let c = cluster(
        "pub fn parse(text: &str) -> Result<u8, ()> {\n\
             let line = text.lines().next().ok_or(())?;\n\
             let parts: Vec<&str> = line.split(' ').collect();\n\
             if parts.len() != 3 { return Err(()); }\n\
             match parts[0] { \"GET\" => {} _ => return Err(()) }\n\
             if line.split_once(':').is_none() { return Err(()); }\n\
             match parts[2] { \"HTTP/1.1\" => Ok(1), _ => Err(()) }\n\
         }\n",
    );
    let usable = vec![true; c.callables.len()];
    let pool = ValuePool::from_literals(&c.literals);
    let space = Space::new(&c, &usable, vec![0], pool);
    let case = one_call(&c, "parse", Value::Str("GET /a 32\nzz".into()));
    let dict = words::dictionary(&space, &case, &[], |_| true);
    let tokens = |compared: &[Vec<u8>]| -> Vec<String> {
        let edits = words::edits(&space, &case, &dict, compared, &BTreeSet::new());
        edits
            .tokens
            .into_iter()
            .map(|(_, t)| match &t.stmts[0].args[0] {
                Value::Str(s) => s.clone(),
                other => panic!("not text: {other:?}"),
            })
            .collect()
    };
    // The run compared the method last: the reader stopped at the first line.
    let stopped = tokens(&[b"GET".to_vec(), b"GET".to_vec()]);
    assert!(
        stopped.iter().any(|t| t == "GET /a HTTP/1.1\nzz"),
        "{stopped:?}"
    );
    // A key with a blank in it, where the code splits at ':', becomes each word whole.
    let case = one_call(&c, "parse", Value::Str("GET /a 32\nGET / :x".into()));
    let edits = words::edits(
        &space,
        &case,
        &dict,
        &[b"GET".to_vec(), b"GET".to_vec()],
        &BTreeSet::new(),
    );
    let keyed: Vec<String> = edits
        .tokens
        .into_iter()
        .map(|(_, t)| format!("{:?}", t.stmts[0].args[0]))
        .collect();
    assert!(
        keyed.iter().any(|t| t == r#"Str("GET /a 32\nGET:x")"#),
        "{keyed:?}"
    );
    // Nothing says where it stopped: no such token.
    let unknown = tokens(&[]);
    assert!(
        !unknown.iter().any(|t| t == "GET /a HTTP/1.1\nzz"),
        "{unknown:?}"
    );
}

#[test]
fn a_line_that_starts_or_ends_with_a_blank_the_code_splits_on_gets_a_word_there() {
    // ` - ` split at ' ' has an empty first field: the method goes before the blank.
    let c = cluster(
        "pub fn parse(line: &str) -> Result<u8, ()> {\n\
             let parts: Vec<&str> = line.split(' ').collect();\n\
             if parts.len() != 3 { return Err(()); }\n\
             match parts[0] { \"GET\" => Ok(1), _ => Err(()) }\n\
         }\n",
    );
    let usable = vec![true; c.callables.len()];
    let pool = ValuePool::from_literals(&c.literals);
    let space = Space::new(&c, &usable, vec![0], pool);
    // Every text the word edits of `text` give.
    let all = |text: &str| {
        let case = one_call(&c, "parse", Value::Str(text.into()));
        let (tokens, tiers) = word_texts(&space, &case, 0, &[]);
        tokens
            .into_iter()
            .chain(tiers.into_iter().flatten())
            .collect::<Vec<String>>()
    };
    let texts = all(" - ");
    assert!(texts.iter().any(|t| t == "GET - "), "{texts:?}");
    // And one that ends with it has an empty last field: a word goes after the blank.
    let texts = all("GET / ");
    assert!(texts.iter().any(|t| t == "GET / GET"), "{texts:?}");
}

#[test]
fn a_text_without_structure_gets_the_sources_separators_and_its_lines_marks() {
    let c = cluster(READER);
    let usable = vec![true; c.callables.len()];
    let pool = ValuePool::from_literals(&c.literals);
    let space = Space::new(&c, &usable, vec![0, 1], pool);
    // One word: joined to a value by the `=` the code splits on, before any word of the
    // dictionary goes in.
    let case = one_call(&c, "read", Value::Str("abc".into()));
    let (tokens, [first, _, third, _]) = word_texts(&space, &case, 0, &[(7, 3)]);
    for want in ["abc=abc", "abc=3"] {
        assert!(first.iter().any(|t| t == want), "{want:?} not in {first:?}");
    }
    // And, a token compared whole, every word of the source in its place.
    for want in ["rotate-logs-now", "name", "retries"] {
        assert!(
            tokens.iter().any(|t| t == want),
            "{want:?} not in {tokens:?}"
        );
    }
    assert!(third.iter().any(|t| t == "name=abc"), "{third:?}");
    // A line that starts at its separator gets a key before it; a value a mark of the source
    // before it, or nothing.
    let case = one_call(&c, "read", Value::Str("=1\nname=a".into()));
    let (_, [first, second, ..]) = word_texts(&space, &case, 0, &[]);
    assert!(
        second.iter().any(|t| t == "retries=1\nname=a"),
        "{second:?}"
    );
    for want in ["=1\nname==a", "=1\nname="] {
        assert!(first.iter().any(|t| t == want), "{want:?} not in {first:?}");
    }
    // A number's limits come first; a word's with the dictionary.
    let case = one_call(&c, "read", Value::Str("retries=3".into()));
    let (_, [first, ..]) = word_texts(&space, &case, 0, &[(7, 10)]);
    assert!(first.iter().any(|t| t == "retries=11"), "{first:?}");
    let case = one_call(&c, "read", Value::Str("retries=x".into()));
    let (_, [first, ..]) = word_texts(&space, &case, 0, &[(7, 10)]);
    assert!(!first.iter().any(|t| t == "retries=11"), "{first:?}");
}

#[test]
fn a_word_goes_in_while_the_other_argument_keeps_its_value() {
    let c = cluster(READER);
    let usable = vec![true; c.callables.len()];
    let pool = ValuePool::from_literals(&c.literals);
    let space = Space::new(&c, &usable, vec![0, 1], pool);
    let case = call_with(
        &c,
        "act",
        vec![Value::Int(42), Value::Str("reloadX".into())],
    );
    let dict = words::dictionary(&space, &case, &[], |_| true);
    let hit = words::edits(&space, &case, &dict, &[], &BTreeSet::new())
        .whole
        .into_iter()
        .find(|(_, t)| t.stmts[0].args[1] == Value::Str("rotate-logs-now".into()))
        .expect("the action literal is proposed");
    assert_eq!(hit.1.stmts[0].args[0], Value::Int(42));
}

/// `make(n)` gives a `Key` only for `n == 7` (counter 1); `pair(&a, &b)` (counter 2) needs two.
const TWO_KEYS: &str = "pub struct Key(u8);\n\
                        pub fn make(n: u8) -> Option<Key> { (n == 7).then_some(Key(n)) }\n\
                        pub fn pair(a: &Key, b: &Key) -> bool { a.0 == b.0 }\n";

/// Runs the calls as the driver would: a `Key` is stored only when `make` got 7, and a call
/// borrowing a statement that stored nothing is invalid.
fn two_keys(make: usize, pair: usize, request: &ExecRequest) -> ExecReport {
    let mut covered = vec![0];
    let mut stmts: Vec<StmtReport> = Vec::new();
    for (i, call) in request.calls.iter().enumerate() {
        if call.callable == pair {
            let available = call.args.iter().all(|a| match a {
                Value::Borrow(j) => stmts.get(*j).is_some_and(|s| s.stored),
                _ => false,
            });
            if !available {
                return ExecReport {
                    stmts,
                    covered,
                    ..ExecReport::empty(Outcome::Invalid {
                        stmt: i,
                        message: "the value is not available".into(),
                    })
                };
            }
            covered.push(2);
        }
        let made = call.callable == make && call.args == [Value::Int(7)];
        if made {
            covered.push(1);
        }
        stmts.push(StmtReport {
            returned: None,
            stored: made,
        });
    }
    ExecReport {
        stmts,
        covered,
        ..ExecReport::empty(Outcome::Completed)
    }
}

/// Once one test made a `Key`, tests of `pair` copy how it was made instead of hoping that two
/// fresh `make` calls both succeed.
#[test]
fn a_value_made_once_is_made_again_for_calls_that_need_two() {
    let c = cluster(TWO_KEYS);
    let (make, pair) = (callable(&c, "make"), callable(&c, "pair"));
    for seed in 1..=5 {
        let usable = vec![true; c.callables.len()];
        let mut space = Space::new(&c, &usable, vec![make, pair], ValuePool::default());
        let goals = GoalMap::for_tests(&[("make", 2), ("pair", 1)], vec![]);
        let mut fake = fake(|r: &ExecRequest| two_keys(make, pair, r));
        let cfg = config(seed, 3_000);
        let out = run(&mut space, &goals, &mut fake, &cfg, &mut |_, _| {}).unwrap();
        // Gains are (executions, branches covered): `make`'s success is the second branch,
        // `pair` the third. Two fresh `make`s seldom both succeed: `pair` waits for a mutant
        // of a test holding one `Key` that gets a second (64 to 352 executions in these seeds).
        let at = |n| out.branch_gains.iter().find(|g| g.1 == n).map(|g| g.0);
        let (made, paired) = (at(2), at(3));
        assert!(
            made.zip(paired).is_some_and(|(m, p)| p <= m + 32),
            "seed {seed}: `pair` not reached in the batch after the first `Key`: {:?}",
            out.branch_gains
        );
    }
}

#[test]
fn values_and_keys_come_before_added_lines_and_every_tier_has_slots() {
    let c = cluster(READER);
    let usable = vec![true; c.callables.len()];
    let pool = ValuePool::from_literals(&c.literals);
    let space = Space::new(&c, &usable, vec![0, 1], pool);
    // A value the code matches by length (`true`, `yes`) is a word of the dictionary at the
    // value: every word at the last line's value (a token), in the tier after the shape edits
    // at another line's; keys there too; copies of the line come a tier later.
    let case = one_call(&c, "read", Value::Str("name=a".into()));
    let (tokens, [_, second, third, _]) = word_texts(&space, &case, 0, &[]);
    assert!(
        tokens.iter().any(|t| t == "name=rotate-logs-now"),
        "{tokens:?}"
    );
    assert!(second.iter().any(|t| t == "retries=a"), "{second:?}");
    let case = one_call(&c, "read", Value::Str("name=a\nretries=3".into()));
    let (_, [_, second, ..]) = word_texts(&space, &case, 0, &[]);
    assert!(
        second
            .iter()
            .any(|t| t == "name=rotate-logs-now\nretries=3"),
        "{second:?}"
    );
    assert!(third.iter().any(|t| t == "name=a\nretries=a"), "{third:?}");
    assert!(
        !second.iter().any(|t| t == "name=a\nretries=a"),
        "{second:?}"
    );
    assert_eq!(words::QUOTA.iter().sum::<usize>(), WORDS_ON_GAIN);
    assert!(words::QUOTA.iter().all(|&q| q > 0));
}

/// A reader that refused a value in the middle of its text compared that line's key last:
/// the words go to that value as tokens, as they go to the last line's.
#[test]
fn the_value_of_the_line_a_reader_stopped_at_gets_every_word() {
    let c = cluster(READER);
    let usable = vec![true; c.callables.len()];
    let pool = ValuePool::from_literals(&c.literals);
    let space = Space::new(&c, &usable, vec![0, 1], pool);
    let case = one_call(&c, "read", Value::Str("name=a\nretries=zz\nlog=b".into()));
    let tokens = |compared: &[Vec<u8>]| {
        let dict = words::dictionary(&space, &case, &[], |_| true);
        words::edits(&space, &case, &dict, compared, &BTreeSet::new())
            .tokens
            .into_iter()
            .map(|(_, t)| t.stmts[0].args[0].clone())
            .collect::<Vec<_>>()
    };
    let stopped = Value::Str("name=a\nretries=rotate-logs-now\nlog=b".into());
    let compared = [
        b"name".to_vec(),
        b"name".to_vec(),
        b"retries".to_vec(),
        b"reload".to_vec(),
    ];
    assert!(
        tokens(&compared).contains(&stopped),
        "{:?}",
        tokens(&compared)
    );
    // Without the comparisons, only the last line's value.
    assert!(!tokens(&[]).contains(&stopped));
    assert!(tokens(&[]).contains(&Value::Str(
        "name=a\nretries=zz\nlog=rotate-logs-now".into()
    )));
    // Each line said twice (a duplicate key) is a token too.
    let twice = Value::Str("name=a\nretries=zz\nretries=zz\nlog=b".into());
    assert!(tokens(&[]).contains(&twice));
    // A text of three lines is not replaced whole; one of two is (a token with a stray line).
    let dict = words::dictionary(&space, &case, &[], |_| true);
    assert!(words::edits(&space, &case, &dict, &[], &BTreeSet::new())
        .whole
        .is_empty());
    let two = call_with(
        &c,
        "act",
        vec![Value::Int(42), Value::Str("8:452:no\nno:-l".into())],
    );
    let dict = words::dictionary(&space, &two, &[], |_| true);
    assert!(words::edits(&space, &two, &dict, &[], &BTreeSet::new())
        .whole
        .iter()
        .any(|(_, t)| t.stmts[0].args[1] == Value::Str("rotate-logs-now".into())));
}

/// Once the code showed it turns characters into digits, a text of one line gets its letters
/// and digits made digits among a gain's whole texts, around its punctuation and around the
/// punctuation the code compared alone; before, it gets none.
#[test]
fn digit_shapes_follow_a_gain_once_the_code_converts_digits() {
    let c = cluster(READER);
    let usable = vec![true; c.callables.len()];
    let pool = ValuePool::from_literals(&c.literals);
    let space = Space::new(&c, &usable, vec![0, 1], pool);
    let case = one_call(&c, "read", Value::Str("ba: s:qu".into()));
    let whole = |dict: &words::Dictionary| -> Vec<Value> {
        words::edits(&space, &case, dict, &[], &BTreeSet::new())
            .whole
            .iter()
            .map(|(_, t)| t.stmts[0].args[0].clone())
            .collect()
    };
    // `b'0'` against a digit the text holds, or against one it does not.
    assert!(!words::converts_digits(
        &space,
        &case,
        &[(SITE, 0x31, 0x30)]
    ));
    let digits = one_call(&c, "read", Value::Str("1a:".into()));
    assert!(words::converts_digits(
        &space,
        &digits,
        &[(SITE, 0x31, 0x30)]
    ));
    assert!(!words::converts_digits(
        &space,
        &digits,
        &[(SITE, 0x31, 0x32)]
    ));
    let mut dict = words::dictionary(&space, &case, &[], |_| true);
    assert!(!whole(&dict).contains(&Value::Str("11: 1:11".into())));
    dict.digits = true;
    dict.punctuation.insert(':');
    let got = whole(&dict);
    for want in ["11: 1:11", "11:11:11", "99:99:99", "00:00:00"] {
        assert!(got.contains(&Value::Str(want.into())), "{want}: {got:?}");
    }
    // The same shapes for an archived test, once the code shows it converts digits.
    let swept: Vec<Value> = words::digit_edits(&space, &case, &dict.punctuation, false)
        .into_iter()
        .map(|(_, t)| t.stmts[0].args[0].clone())
        .collect();
    assert!(swept.contains(&Value::Str("11:11:11".into())), "{swept:?}");
}

const OPTIONS: &str = "pub fn opt(word: &str) -> Result<u8, String> {\n\
                           let Some(long) = word.strip_prefix(\"--\") else { return Ok(0) };\n\
                           match long.split_once('=') {\n\
                               Some((\"level\", v)) => v.parse::<u8>().map_err(|e| e.to_string()),\n\
                               None if long == \"verbose\" => Ok(1),\n\
                               _ => Err(\"unknown\".into()),\n\
                           }\n\
                       }\n";

#[test]
fn a_literal_of_marks_goes_before_the_words_the_code_matches_after_stripping_it() {
    let c = cluster(OPTIONS);
    let usable = vec![true; c.callables.len()];
    let pool = ValuePool::from_literals(&c.literals);
    let space = Space::new(&c, &usable, vec![0], pool);
    let case = one_call(&c, "opt", Value::Str("x".into()));
    let (_, [_, second, third, _]) = word_texts(&space, &case, 0, &[(3, 0)]);
    for want in ["--verbose", "--level"] {
        assert!(
            second.iter().any(|t| t == want),
            "{want:?} not in {second:?}"
        );
    }
    // With a mark of the source and a compared number after the word, a tier later.
    assert!(third.iter().any(|t| t == "--level=0"), "{third:?}");
    // A literal of marks is no word to put after one.
    assert!(!second.iter().any(|t| t == "----"), "{second:?}");
}

const MAILER: &str = "pub fn feed(line: &str) -> u16 {\n\
                          let (verb, arg) = line.split_once(' ').unwrap_or((line, \"\"));\n\
                          if verb != \"MAIL\" { return 500; }\n\
                          match address(arg) { Some(_) => 250, None => 501 }\n\
                      }\n\
                      fn address(arg: &str) -> Option<&str> {\n\
                          let rest = arg.strip_prefix(\"FROM:\")?;\n\
                          let inner = rest.strip_prefix('<')?.strip_suffix('>')?;\n\
                          let (user, host) = inner.split_once('@')?;\n\
                          (!user.is_empty() && !host.is_empty()).then_some(inner)\n\
                      }\n";

#[test]
fn a_literal_ending_with_a_mark_gets_a_value_shaped_by_the_sources_brackets_and_marks() {
    let c = cluster(MAILER);
    let usable = vec![true; c.callables.len()];
    let pool = ValuePool::from_literals(&c.literals);
    let space = Space::new(&c, &usable, vec![0], pool);
    // In place of the argument after the verb, and after a verb alone: among the texts all
    // tried.
    for text in ["MAIL x", "MAIL"] {
        let case = one_call(&c, "feed", Value::Str(text.into()));
        let (all, _) = word_texts(&space, &case, 0, &[]);
        for want in ["MAIL FROM:<a@a>", "MAIL FROM:<a>", "MAIL FROM:a"] {
            assert!(all.iter().any(|t| t == want), "{want:?} not in {all:?}");
        }
    }
}

/// The whole texts and tokens are capped: the calls whose goals the run covered first get
/// their share first, the latest first (`feed("RCPT")` after calls that set the session up,
/// whose texts of many words would take every slot).
#[test]
fn the_latest_calls_texts_are_edited_first() {
    let c = cluster(MAILER);
    let usable = vec![true; c.callables.len()];
    let pool = ValuePool::from_literals(&c.literals);
    let space = Space::new(&c, &usable, vec![0], pool);
    let feed = |text: &str| Stmt {
        callable: callable(&c, "feed"),
        args: vec![Value::Str(text.into())],
    };
    let case = TestCase {
        stmts: vec![feed("a b\nc d\ne f"), feed("MAIL")],
        ..one_call(&c, "feed", Value::Str(String::new()))
    };
    let dict = words::dictionary(&space, &case, &[], |_| true);
    // Both calls covered new goals of `feed`: the latest goes first.
    let edits = words::edits(&space, &case, &dict, &[], &BTreeSet::from([0, 1]));
    let first = edits.tokens.first().expect("tokens");
    assert_eq!(first.1.stmts[0], case.stmts[0], "{:?}", first.1);
    // Had only the first gained, its texts would go first.
    let edits = words::edits(&space, &case, &dict, &[], &BTreeSet::from([0]));
    let first = edits.tokens.first().expect("tokens");
    assert_eq!(first.1.stmts[1], case.stmts[1], "{:?}", first.1);
    // With no call gaining, in the test's order.
    let edits = words::edits(&space, &case, &dict, &[], &BTreeSet::new());
    let first = edits.tokens.first().expect("tokens");
    assert_eq!(first.1.stmts[1], case.stmts[1], "{:?}", first.1);
}

/// A run that gains nothing but holds, in its text, the operand a comparison never met read
/// (`retries=2` against `retries > 10`, whose short way the default of 3 took long before) is
/// followed towards it: the other operand, one less, one more, in the form the test holds it.
/// Once per operand read there, and never once the site is met.
#[test]
fn a_run_that_gains_nothing_is_followed_towards_a_comparison_never_met() {
    let c = cluster(READER);
    let usable = vec![true; c.callables.len()];
    let pool = ValuePool::from_literals(&c.literals);
    let read = callable(&c, "read");
    let mut space = Space::new(&c, &usable, vec![read], pool);
    let goals = GoalMap::for_tests(&[("read", 2)], vec![(0x100, 0x200)]);
    let cfg = config(1, 1_000);
    let mut search = Search::new(&mut space, &goals, &cfg);
    const SITE: u64 = 0x150;
    let run = |n: u64| ExecReport {
        covered: vec![0],
        cmp_ints: vec![(SITE, n), (SITE, 10)],
        cmp_last: vec![(SITE, n, 10)],
        cmp_closest: vec![(SITE, n.abs_diff(10))],
        ..ExecReport::empty(Outcome::Completed)
    };
    let text = |s: &str| one_call(&c, "read", Value::Str(s.into()));
    // The first run gains the branch (the default of 3, not in the text).
    search.learn(vec![text("name=a")], vec![run(3)]);
    search.eager.clear();
    search.learn(vec![text("name=a\nretries=2")], vec![run(2)]);
    let made: Vec<String> = search
        .eager
        .iter()
        .map(|(t, _)| match &t.stmts[0].args[0] {
            Value::Str(s) => s.clone(),
            other => panic!("not text: {other:?}"),
        })
        .collect();
    for want in [
        "name=a\nretries=10",
        "name=a\nretries=9",
        "name=a\nretries=11",
    ] {
        assert!(made.iter().any(|t| t == want), "{want:?} not in {made:?}");
    }
    // The same operand read again: nothing new.
    search.eager.clear();
    search.learn(vec![text("name=b\nretries=2")], vec![run(2)]);
    assert!(search.eager.iter().all(|(_, o)| o.kind != Kind::Approach));
    // Met: no more edits towards it.
    search.learn(vec![text("name=a\nretries=10")], vec![run(10)]);
    search.eager.clear();
    search.learn(vec![text("name=a\nretries=4")], vec![run(4)]);
    assert!(search.eager.iter().all(|(_, o)| o.kind != Kind::Approach));
}

/// A word the code stripped a prefix literal off (`--verbose`) gets each word of the source
/// after that prefix, bare and with a value, in its place among the texts all tried: the
/// `match` on the rest compares lengths first and shows no operand to follow.
#[test]
fn a_word_after_a_prefix_literal_gets_every_prefixed_word_all_tried() {
    let c = cluster(OPTIONS);
    let usable = vec![true; c.callables.len()];
    let pool = ValuePool::from_literals(&c.literals);
    let space = Space::new(&c, &usable, vec![0], pool);
    for (text, wants) in [
        ("--x", ["--level", "--level=7", "--verbose"]),
        ("a --x b", ["a --level b", "a --level=7 b", "a --verbose b"]),
    ] {
        let case = one_call(&c, "opt", Value::Str(text.into()));
        let (all, _) = word_texts(&space, &case, 0, &[(0x10, 7)]);
        for want in wants {
            assert!(all.contains(&want.to_string()), "{want:?} not in {all:?}");
        }
    }
    // A word without the prefix gets none of them.
    let case = one_call(&c, "opt", Value::Str("verbose".into()));
    let (all, _) = word_texts(&space, &case, 0, &[(0x10, 7)]);
    assert!(!all.iter().any(|t| t == "--level=7"), "{all:?}");
}

const HEAD: &str = "pub fn head(data: &[u8]) -> u8 {\n\
                        let Ok(text) = std::str::from_utf8(data) else { return 0 };\n\
                        let mut lines = text.split(\"\\r\\n\");\n\
                        match lines.next() { Some(\"GET\") => 1, _ => 2 }\n\
                    }\n";

/// The texts the dictionary edits of a one-call `case` put in its byte argument.
fn byte_texts(space: &Space, case: &TestCase) -> Vec<String> {
    let dict = words::dictionary(space, case, &[], |_| true);
    let edits = words::edits(space, case, &dict, &[], &BTreeSet::new());
    let tiers = edits.tiers.into_iter().flatten();
    edits
        .whole
        .into_iter()
        .chain(edits.tokens)
        .chain(tiers)
        .map(|(_, t)| match &t.stmts[0].args[0] {
            Value::Seq(bytes) => bytes
                .iter()
                .map(|b| match b {
                    Value::Int(b) => char::from(u8::try_from(*b).unwrap()),
                    other => panic!("not a byte: {other:?}"),
                })
                .collect(),
            other => panic!("not bytes: {other:?}"),
        })
        .collect()
}

/// Bytes the code reads as text (`from_utf8`) get the edits text gets, with the line break
/// the source splits on (`\r\n`: a line added after a request line is a header); bytes of
/// code that reads none get none.
#[test]
fn bytes_the_code_reads_as_text_get_the_edits_of_text_with_its_line_break() {
    let c = cluster(HEAD);
    let usable = vec![true; c.callables.len()];
    let pool = ValuePool::from_literals(&c.literals);
    assert_eq!(pool.line_break(), "\r\n");
    let space = Space::new(&c, &usable, vec![0], pool);
    let bytes = |s: &str| Value::Seq(s.bytes().map(|b| Value::Int(b.into())).collect());
    let texts = byte_texts(&space, &one_call(&c, "head", bytes("x")));
    for want in ["GET", "x\r\nx"] {
        assert!(
            texts.contains(&want.to_string()),
            "{want:?} not in {texts:?}"
        );
    }
    let bare_break = |t: &String| t.contains("\r\r") || t.replace("\r\n", "").contains('\n');
    assert!(!texts.iter().any(bare_break), "{texts:?}");
    // Code that reads no text out of its bytes.
    let c = cluster("pub fn tag(data: &[u8]) -> bool { data == b\"GET\" }\n");
    let usable = vec![true; c.callables.len()];
    let pool = ValuePool::from_literals(&c.literals);
    let space = Space::new(&c, &usable, vec![0], pool);
    let texts = byte_texts(&space, &one_call(&c, "tag", bytes("x")));
    assert!(!texts.contains(&"GET".to_string()), "{texts:?}");
}

/// Bytes of a function whose code reads text out of them are drawn and changed as text most
/// of the time; other bytes as before.
#[test]
fn bytes_the_code_reads_as_text_are_drawn_and_changed_as_text() {
    use rand::SeedableRng;
    let c = cluster(HEAD);
    let usable = vec![true; c.callables.len()];
    let pool = ValuePool::from_literals(&c.literals);
    let space = Space::new(&c, &usable, vec![0], pool);
    let head = callable(&c, "head");
    let ty = space.arg_types(head).remove(0);
    assert!(space.text_bytes(head, &ty));
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let text = |v: &Value| match v {
        Value::Seq(items) => items
            .iter()
            .map(|b| match b {
                Value::Int(b) => u8::try_from(*b).ok(),
                _ => None,
            })
            .collect::<Option<Vec<u8>>>()
            .and_then(|b| String::from_utf8(b).ok()),
        _ => None,
    };
    let drawn: Vec<Value> = (0..200)
        .map(|_| space.pool.random_text_bytes(&mut rng, &ty))
        .collect();
    let texts = drawn.iter().filter_map(text).filter(|t| !t.is_empty());
    assert!(texts.count() >= 120);
    let request = Value::Seq(
        b"GET / HTTP/1.1"
            .iter()
            .map(|&b| Value::Int(b.into()))
            .collect(),
    );
    let changed: Vec<Value> = (0..200)
        .map(|_| space.pool.mutate_text_bytes(&mut rng, &ty, &request))
        .collect();
    assert!(changed.iter().filter(|v| text(v).is_some()).count() >= 100);
    // Code that reads no text out of its bytes.
    let c = cluster("pub fn tag(data: &[u8]) -> bool { data == b\"GET\" }\n");
    let usable = vec![true; c.callables.len()];
    let space = Space::new(&c, &usable, vec![0], ValuePool::from_literals(&c.literals));
    let tag = callable(&c, "tag");
    assert!(!space.text_bytes(tag, &space.arg_types(tag)[0]));
}
