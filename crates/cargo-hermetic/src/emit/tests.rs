//! Tests of emission on a small hand-built cluster: exact text, rustfmt-cleanliness, placement.

use super::place::plan;
use super::place::{Applied, ModLine};
use super::*;
use crate::cluster::{
    Callable, Field, IntTy, Module, Param, Receiver, StdTy, TypeDef, Variant, Vis, Written,
};
use crate::test_case::{Stmt, TestCase};
use hermetic_protocol::{ExecReport, Observed, StmtReport};
use std::collections::HashSet;

fn module(path: &[&str], parent: Option<usize>, file: &str, mod_rs: bool) -> Module {
    Module {
        path: path.iter().map(|s| s.to_string()).collect(),
        parent,
        vis: Vis::Pub,
        file: file.into(),
        body: ModuleBody::File,
        mod_rs,
        shadowed_prelude: Vec::new(),
    }
}

fn field(name: &str, ty: Ty, vis: Vis) -> Field {
    Field {
        name: name.into(),
        ty: Some(ty),
        vis,
    }
}

fn ty_def(name: &str, derives: &[&str], kind: TypeKind) -> TypeDef {
    TypeDef {
        name: name.into(),
        module: 0,
        vis: Vis::Pub,
        generics: vec![],
        bounds: vec![],
        unsupported_generics: None,
        lifetimes: 0,
        derives: derives.iter().map(|s| s.to_string()).collect(),
        impls: vec![],
        kind,
    }
}

fn param(name: &str, ty: Ty) -> Param {
    Param {
        name: name.into(),
        ty,
        written: Written::AsIs,
    }
}

fn callable(name: &str, kind: CallableKind, params: Vec<Param>, ret: Ty) -> Callable {
    Callable {
        module: 0,
        name: name.into(),
        kind,
        vis: Vis::Pub,
        params,
        ret,
        generic_args: vec![],
        generics_inferred: false,
        held: Vec::new(),
        unsafe_fn: false,
        collect: None,
    }
}

const I64: Ty = Ty::Int(IntTy::I64);
const USIZE: Ty = Ty::Int(IntTy::Usize);
const F64: Ty = Ty::Float(FloatTy::F64);
// Type ids.
const POINT: usize = 0;
const STACK: usize = 1;
const STACK_ERROR: usize = 2;
const CONFIG: usize = 3;
const KIND: usize = 4;
const METERS: usize = 5;
const TOKEN: usize = 6;
// Callable ids.
const CLASSIFY: usize = 0;
const NEW: usize = 1;
const PUSH: usize = 2;
const POP: usize = 3;
const DIVIDE: usize = 4;
const LOAD: usize = 5;
const SQRT: usize = 6;
const SPLIT: usize = 7;
const POINT_LIT: usize = 8;
const DISTANCE: usize = 9;
const METERS_FN: usize = 10;
const ORIGIN: usize = 11;
const TOKENIZE: usize = 12;
const TRY_LOAD: usize = 13;
const GREET: usize = 14;
const CODE: usize = 15;

fn adt(id: usize) -> Ty {
    Ty::Adt(id, vec![])
}

fn cluster() -> Cluster {
    let method = |self_ty: usize, receiver| CallableKind::Method {
        self_ty: adt(self_ty),
        receiver,
        of_trait: None,
    };
    Cluster {
        crate_name: "demo".into(),
        modules: vec![
            module(&[], None, "src/lib.rs", true),
            module(&["shapes"], Some(0), "src/shapes.rs", false),
        ],
        types: vec![
            ty_def(
                "Point",
                &["Debug", "Clone", "PartialEq"],
                TypeKind::Struct(Fields::Named(vec![
                    field("x", F64, Vis::Pub),
                    field("y", F64, Vis::Pub),
                ])),
            ),
            ty_def(
                "BoundedStack",
                &["Debug"],
                TypeKind::Struct(Fields::Named(vec![
                    field("items", Ty::Vec(Box::new(I64)), Vis::Private),
                    field("capacity", USIZE, Vis::Private),
                ])),
            ),
            ty_def(
                "StackError",
                &["Debug", "PartialEq"],
                TypeKind::Enum(vec![
                    Variant {
                        name: "Full".into(),
                        fields: Fields::Named(vec![field("capacity", USIZE, Vis::Pub)]),
                    },
                    Variant {
                        name: "ZeroCapacity".into(),
                        fields: Fields::Unit,
                    },
                ]),
            ),
            TypeDef {
                module: 1,
                ..ty_def(
                    "Config",
                    &["Debug"],
                    TypeKind::Struct(Fields::Named(vec![
                        field("port", Ty::Int(IntTy::U16), Vis::Pub),
                        field("host", Ty::String, Vis::Pub),
                        field("secret", Ty::String, Vis::Private),
                    ])),
                )
            },
            ty_def(
                "Kind",
                &["Debug", "PartialEq"],
                TypeKind::Enum(vec![
                    Variant {
                        name: "Scalene".into(),
                        fields: Fields::Unit,
                    },
                    Variant {
                        name: "Isosceles".into(),
                        fields: Fields::Unit,
                    },
                ]),
            ),
            ty_def(
                "Meters",
                &["Debug"],
                TypeKind::Struct(Fields::Tuple(vec![field("0", F64, Vis::Private)])),
            ),
            TypeDef {
                module: 1,
                ..ty_def(
                    "Token",
                    &["Debug", "Clone"],
                    TypeKind::Struct(Fields::Named(vec![
                        field("text", Ty::String, Vis::Private),
                        field("at", Ty::Option(Box::new(USIZE)), Vis::Private),
                    ])),
                )
            },
        ],
        callables: vec![
            callable(
                "classify",
                CallableKind::Function,
                vec![param("a", I64), param("b", I64), param("c", I64)],
                adt(KIND),
            ),
            callable(
                "new",
                CallableKind::AssocFn {
                    self_ty: adt(STACK),
                    of_trait: None,
                },
                vec![param("capacity", USIZE)],
                Ty::Result(Box::new(adt(STACK)), Box::new(adt(STACK_ERROR))),
            ),
            callable(
                "push",
                method(STACK, Receiver::RefMut),
                vec![param("value", I64)],
                Ty::Result(Box::new(Ty::Unit), Box::new(adt(STACK_ERROR))),
            ),
            callable(
                "pop",
                method(STACK, Receiver::RefMut),
                vec![],
                Ty::Option(Box::new(I64)),
            ),
            callable(
                "divide",
                CallableKind::Function,
                vec![param("a", I64), param("b", I64)],
                I64,
            ),
            Callable {
                module: 1,
                ..callable(
                    "load",
                    CallableKind::Function,
                    vec![param("text", Ty::Str)],
                    adt(CONFIG),
                )
            },
            callable("sqrt", CallableKind::Function, vec![param("x", F64)], F64),
            callable(
                "split_words",
                CallableKind::Function,
                vec![param("text", Ty::Str)],
                Ty::Vec(Box::new(Ty::String)),
            ),
            callable(
                "Point",
                CallableKind::StructLiteral {
                    self_ty: adt(POINT),
                    tuple: false,
                },
                vec![param("x", F64), param("y", F64)],
                adt(POINT),
            ),
            callable(
                "distance",
                method(POINT, Receiver::Ref),
                vec![param("other", Ty::Ref(Box::new(adt(POINT))))],
                F64,
            ),
            callable(
                "meters",
                CallableKind::Function,
                vec![param("x", F64)],
                adt(METERS),
            ),
            callable(
                "origin",
                CallableKind::Function,
                vec![],
                Ty::Option(Box::new(Ty::Ref(Box::new(adt(POINT))))),
            ),
            Callable {
                module: 1,
                ..callable(
                    "tokenize",
                    CallableKind::Function,
                    vec![param("text", Ty::Str)],
                    Ty::Vec(Box::new(adt(TOKEN))),
                )
            },
            callable(
                "try_load",
                CallableKind::Function,
                vec![param("text", Ty::Str)],
                Ty::Result(Box::new(adt(CONFIG)), Box::new(Ty::String)),
            ),
            callable(
                "greet",
                CallableKind::Function,
                vec![
                    param("name", Ty::String),
                    param("tags", Ty::Slice(Box::new(Ty::Char))),
                ],
                Ty::Option(Box::new(Ty::String)),
            ),
            callable(
                "code",
                CallableKind::Function,
                vec![param("letter", Ty::Ref(Box::new(Ty::Char)))],
                Ty::Tuple(vec![Ty::Char, Ty::Int(IntTy::U128)]),
            ),
        ],
        ..Cluster::default()
    }
}

fn stmt(callable: usize, args: Vec<Value>) -> Stmt {
    Stmt { callable, args }
}

fn returned(obs: Option<Observed>, stored: bool) -> StmtReport {
    StmtReport {
        returned: obs,
        stored,
    }
}

fn test(home: usize, stmts: Vec<Stmt>, outcome: Outcome, reports: Vec<StmtReport>) -> FinishedTest {
    FinishedTest {
        case: TestCase {
            home,
            stmts,
            env: Default::default(),
        },
        report: ExecReport {
            stmts: reports,
            ..ExecReport::empty(outcome)
        },
        uses_private: false,
        uses_mocks: false,
        uses_fakes: false,
        unseen_fakes: Vec::new(),
        assertions: None,
    }
}

fn completed(home: usize, stmts: Vec<Stmt>, returns: Vec<Option<Observed>>) -> FinishedTest {
    let reports = returns.into_iter().map(|o| returned(o, true)).collect();
    test(home, stmts, Outcome::Completed, reports)
}

fn variant(name: &str, fields: Vec<(&str, Observed)>) -> Observed {
    Observed::Variant(
        name.into(),
        fields
            .into_iter()
            .map(|(n, o)| (n.to_string(), o))
            .collect(),
    )
}

fn strukt(fields: Vec<(&str, Observed)>) -> Observed {
    Observed::Struct(
        fields
            .into_iter()
            .map(|(n, o)| (n.to_string(), o))
            .collect(),
    )
}

const COMMAND: &str = "cargo hermetic generate";

/// The emitted file for tests all living in one module.
fn emit_one(tests: &[FinishedTest]) -> GeneratedFile {
    let files = emit(&cluster(), tests, Suite::Generated, COMMAND);
    assert_eq!(files.len(), 1, "{files:#?}");
    let file = files.into_iter().next().unwrap();
    check_valid_and_formatted(&file.contents);
    file
}

/// The text parses as Rust and `rustfmt --check` has nothing to change.
fn check_valid_and_formatted(text: &str) {
    syn::parse_file(text).expect("emitted code parses");
    // Through stdin, so that rustfmt does not look for the files of `mod x;` declarations.
    let out = std::process::Command::new("rustfmt")
        .args(["--check", "--edition", "2021"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(text.as_bytes())?;
            child.wait_with_output()
        });
    match out {
        // On stdin, `--check` exits with 0 even when it prints a diff.
        Ok(out) => assert!(
            out.status.success() && out.stdout.is_empty(),
            "rustfmt would change the emitted file:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(e) => eprintln!("rustfmt not available ({e}); formatting not checked"),
    }
}

fn panicked(stmts: Vec<Stmt>, message: &str, returns: Vec<Option<Observed>>) -> FinishedTest {
    let stmt = stmts.len() - 1;
    let reports = returns.into_iter().map(|o| returned(o, true)).collect();
    let outcome = Outcome::Panicked {
        stmt,
        message: message.into(),
    };
    test(0, stmts, outcome, reports)
}

fn ints(values: &[i128]) -> Vec<Value> {
    values.iter().map(|&i| Value::Int(i)).collect()
}

fn float(x: f64) -> Observed {
    Observed::Float(x.to_bits())
}

fn stack_test(pushes: &[i128], last: Stmt, last_returns: Observed) -> FinishedTest {
    let mut stmts = vec![stmt(NEW, ints(&[2]))];
    let mut returns = vec![Some(Observed::Ok(Box::new(strukt(vec![]))))];
    for &p in pushes {
        stmts.push(stmt(PUSH, vec![Value::BorrowMut(0), Value::Int(p)]));
        returns.push(Some(Observed::Ok(Box::new(Observed::Unit))));
    }
    stmts.push(last);
    returns.push(Some(last_returns));
    completed(0, stmts, returns)
}

#[test]
fn emits_calls_lets_and_assertions() {
    let tests = [
        stack_test(
            &[7],
            stmt(POP, vec![Value::BorrowMut(0)]),
            Observed::Opt(Some(Box::new(Observed::Int(7)))),
        ),
        completed(
            0,
            vec![stmt(CLASSIFY, ints(&[3, 4, 5]))],
            vec![Some(variant("Scalene", vec![]))],
        ),
        stack_test(
            &[1, 2],
            stmt(PUSH, vec![Value::BorrowMut(0), Value::Int(-3)]),
            Observed::Err(Box::new(variant(
                "Full",
                vec![("capacity", Observed::Int(2))],
            ))),
        ),
        completed(
            0,
            vec![stmt(NEW, ints(&[0]))],
            vec![Some(Observed::Err(Box::new(variant(
                "ZeroCapacity",
                vec![],
            ))))],
        ),
        completed(
            0,
            vec![
                stmt(POINT_LIT, vec![Value::float(0.0), Value::float(0.0)]),
                stmt(POINT_LIT, vec![Value::float(3.0), Value::float(4.0)]),
                stmt(DISTANCE, vec![Value::Borrow(0), Value::Borrow(1)]),
            ],
            vec![Some(strukt(vec![])), Some(strukt(vec![])), Some(float(5.0))],
        ),
        completed(
            0,
            vec![stmt(ORIGIN, vec![])],
            vec![Some(Observed::Opt(Some(Box::new(strukt(vec![
                ("x", float(0.0)),
                ("y", float(-0.5)),
            ])))))],
        ),
    ];
    let file = emit_one(&tests);
    assert_eq!(file.path, Path::new("src/hermetic_tests.rs"));
    assert_eq!(
        file.contents,
        r#"// @generated by cargo-hermetic — `cargo hermetic generate` rewrites this file
use super::*;

#[test]
fn classify_returns_scalene() {
    assert_eq!(classify(3, 4, 5), Kind::Scalene);
}

#[test]
fn new_fails_with_zero_capacity() {
    assert_eq!(BoundedStack::new(0).unwrap_err(), StackError::ZeroCapacity);
}

#[test]
fn push_fails_with_full() {
    let mut bounded_stack = BoundedStack::new(2).unwrap();
    assert_eq!(bounded_stack.push(1), Ok(()));
    assert_eq!(bounded_stack.push(2), Ok(()));
    assert_eq!(
        bounded_stack.push(-3),
        Err(StackError::Full { capacity: 2 })
    );
}

#[test]
fn pop_returns_some_7() {
    let mut bounded_stack = BoundedStack::new(2).unwrap();
    assert_eq!(bounded_stack.push(7), Ok(()));
    assert_eq!(bounded_stack.pop(), Some(7));
}

#[test]
fn distance_returns_5() {
    let point = Point { x: 0.0, y: 0.0 };
    let point_2 = Point { x: 3.0, y: 4.0 };
    assert_eq!(point.distance(&point_2), 5.0);
}

#[test]
fn origin_returns_some() {
    assert_eq!(origin(), Some(&Point { x: 0.0, y: -0.5 }));
}
"#
    );
    assert_eq!(
        file.test_names,
        [
            "classify_returns_scalene",
            "new_fails_with_zero_capacity",
            "push_fails_with_full",
            "pop_returns_some_7",
            "distance_returns_5",
            "origin_returns_some"
        ]
    );
}

#[test]
fn panics_become_should_panic() {
    let long = "index out of bounds: the len is 3 but the index is 7 and that is far too long";
    let tests = [
        panicked(
            vec![stmt(DIVIDE, ints(&[1, 0]))],
            "attempt to divide by zero",
            vec![],
        ),
        panicked(vec![stmt(DIVIDE, ints(&[2, 0]))], "Box<dyn Any>", vec![]),
        panicked(
            vec![stmt(NEW, ints(&[1])), stmt(POP, vec![Value::BorrowMut(0)])],
            long,
            vec![Some(Observed::Ok(Box::new(strukt(vec![]))))],
        ),
    ];
    let file = emit_one(&tests);
    assert_eq!(
        file.contents,
        r#"// @generated by cargo-hermetic — `cargo hermetic generate` rewrites this file
use super::*;

#[test]
#[should_panic(expected = "index out of bounds: the len is 3 but the index is 7 and")]
fn pop_panics_with_index_out_of_bounds() {
    let mut bounded_stack = BoundedStack::new(1).unwrap();
    let _ = bounded_stack.pop();
}

#[test]
#[should_panic]
fn divide_panics() {
    let _ = divide(2, 0);
}

#[test]
#[should_panic(expected = "attempt to divide by zero")]
fn divide_panics_with_attempt_to_divide_by_zero() {
    let _ = divide(1, 0);
}
"#
    );
}

#[test]
fn floats_nan_and_strings() {
    let tests = [
        completed(
            0,
            vec![stmt(SQRT, vec![Value::float(-1.0)])],
            vec![Some(float(f64::NAN))],
        ),
        completed(
            0,
            vec![stmt(SQRT, vec![Value::float(f64::INFINITY)])],
            vec![Some(float(f64::INFINITY))],
        ),
        completed(
            0,
            vec![stmt(SQRT, vec![Value::float(0.01)])],
            vec![Some(float(0.1))],
        ),
        completed(
            0,
            vec![stmt(SPLIT, vec![Value::Str("a \"b\"\n".into())])],
            vec![Some(Observed::Seq(vec![
                Observed::Str("a".into()),
                Observed::Str("\"b\"".into()),
            ]))],
        ),
        completed(
            0,
            vec![stmt(SPLIT, vec![Value::Str(String::new())])],
            vec![Some(Observed::Seq(vec![]))],
        ),
    ];
    let file = emit_one(&tests);
    assert_eq!(
        file.contents,
        r#"// @generated by cargo-hermetic — `cargo hermetic generate` rewrites this file
use super::*;

#[test]
fn sqrt_returns_0_1() {
    assert_eq!(sqrt(0.01), 0.1);
}

#[test]
fn sqrt_returns_infinity() {
    assert_eq!(sqrt(f64::INFINITY), f64::INFINITY);
}

#[test]
fn sqrt_returns_nan() {
    assert!(sqrt(-1.0).is_nan());
}

#[test]
fn split_words_returns_2_items() {
    assert_eq!(
        split_words("a \"b\"\n"),
        vec!["a".to_string(), "\"b\"".to_string()]
    );
}

#[test]
fn split_words_returns_empty() {
    assert!(split_words("").is_empty());
}
"#
    );
}

#[test]
fn hidden_fields_fall_back_to_visible_fields_or_debug_text() {
    let config = strukt(vec![
        ("port", Observed::Int(8080)),
        ("host", Observed::Str("localhost".into())),
        ("secret", Observed::Str("hunter2".into())),
    ]);
    let token = |text: &str, at: Option<i128>| {
        strukt(vec![
            ("text", Observed::Str(text.into())),
            ("at", Observed::Opt(at.map(|a| Box::new(Observed::Int(a))))),
        ])
    };
    let tests = [
        // From the root, `Config::secret` and all of `Token` are hidden.
        completed(
            0,
            vec![stmt(LOAD, vec![Value::Str("port = 8080".into())])],
            vec![Some(config.clone())],
        ),
        completed(
            0,
            vec![stmt(TOKENIZE, vec![Value::Str("a b".into())])],
            vec![Some(Observed::Seq(vec![
                token("a", Some(0)),
                token("b", None),
            ]))],
        ),
        completed(
            0,
            vec![stmt(METERS_FN, vec![Value::float(3.5)])],
            vec![Some(strukt(vec![("0", float(3.5))]))],
        ),
        // In its own module, a private field is visible.
        completed(
            1,
            vec![stmt(LOAD, vec![Value::Str("port = 8080".into())])],
            vec![Some(config)],
        ),
    ];
    let files = emit(&cluster(), &tests, Suite::Generated, COMMAND);
    assert_eq!(files.len(), 2);
    for f in &files {
        check_valid_and_formatted(&f.contents);
    }
    assert_eq!(
        files[0].contents,
        r#"// @generated by cargo-hermetic — `cargo hermetic generate` rewrites this file
use super::*;

#[test]
fn load_returns_config() {
    let config = crate::shapes::load("port = 8080");
    assert_eq!(config.port, 8080);
    assert_eq!(config.host, "localhost");
}

#[test]
fn meters_returns_meters() {
    let meters_2 = meters(3.5);
    assert_eq!(meters_2.0, 3.5);
}

#[test]
fn tokenize_returns_2_items() {
    assert_eq!(
        format!("{:?}", crate::shapes::tokenize("a b")),
        "[Token { text: \"a\", at: Some(0) }, Token { text: \"b\", at: None }]",
    );
}
"#
    );
    assert_eq!(files[1].path, Path::new("src/shapes/hermetic_tests.rs"));
    assert_eq!(
        files[1].contents,
        r#"// @generated by cargo-hermetic — `cargo hermetic generate` rewrites this file
use super::*;

#[test]
fn load_returns_config() {
    let config = load("port = 8080");
    assert_eq!(config.port, 8080);
    assert_eq!(config.host, "localhost");
    assert_eq!(config.secret, "hunter2");
}
"#
    );
}

#[test]
fn equal_names_get_hints_from_the_arguments_of_every_call() {
    let classify = |args: &[i128]| {
        completed(
            0,
            vec![stmt(CLASSIFY, ints(args))],
            vec![Some(variant("Scalene", vec![]))],
        )
    };
    let pop_none = |capacity: i128| {
        completed(
            0,
            vec![
                stmt(NEW, ints(&[capacity])),
                stmt(POP, vec![Value::BorrowMut(0)]),
            ],
            vec![
                Some(Observed::Ok(Box::new(strukt(vec![])))),
                Some(Observed::Opt(None)),
            ],
        )
    };
    let tests = [
        classify(&[3, 4, 5]),
        classify(&[2, 4, 5]),
        pop_none(1),
        pop_none(2),
    ];
    let file = emit_one(&tests);
    assert_eq!(
        file.test_names,
        [
            "classify_returns_scalene_for_2",
            "classify_returns_scalene_for_3",
            // `pop` takes nothing: the constructor's capacity tells the tests apart.
            "pop_returns_none_for_1",
            "pop_returns_none_for_2"
        ]
    );
    let unique: HashSet<_> = file.test_names.iter().collect();
    assert_eq!(unique.len(), file.test_names.len());
    // Same input, same output.
    assert_eq!(
        emit(&cluster(), &tests, Suite::Generated, COMMAND),
        emit(&cluster(), &tests, Suite::Generated, COMMAND)
    );
}

#[test]
fn tests_that_did_not_complete_or_panic_are_left_out() {
    let crashed = test(
        0,
        vec![stmt(DIVIDE, ints(&[1, 0]))],
        Outcome::Crashed {
            stmt: 0,
            signal: 6,
            stack_overflow: false,
        },
        vec![],
    );
    let out_of_range = test(
        0,
        vec![stmt(DIVIDE, ints(&[1, 0]))],
        Outcome::Panicked {
            stmt: 3,
            message: "x".into(),
        },
        vec![],
    );
    assert!(emit(
        &cluster(),
        &[crashed, out_of_range],
        Suite::Generated,
        COMMAND
    )
    .is_empty());
}

#[test]
fn test_files_sit_where_child_modules_go() {
    let mut c = cluster();
    c.modules.push(Module {
        body: ModuleBody::Inline { close_brace: 0 },
        ..module(&["shapes", "inner"], Some(1), "src/shapes.rs", false)
    });
    c.modules
        .push(module(&["a"], Some(0), "src/a/mod.rs", true));
    let path = |m| test_file_path(&c, m, Suite::Generated, None);
    assert_eq!(path(0), Path::new("src/hermetic_tests.rs"));
    assert_eq!(path(1), Path::new("src/shapes/hermetic_tests.rs"));
    assert_eq!(path(2), Path::new("src/shapes/inner/hermetic_tests.rs"));
    assert_eq!(path(3), Path::new("src/a/hermetic_tests.rs"));
    let root = Path::new("/x/demo");
    c.modules[3].file = root.join("src/a/mod.rs");
    assert_eq!(
        test_file_path(&c, 3, Suite::Generated, Some(root)),
        Path::new("src/a/hermetic_tests.rs")
    );
}

/// A crate on disk with the cluster's two module files.
fn crate_dir(lib_rs: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(
        dir.path().join("Cargo.toml"),
        "[package]\nname = \"demo\"\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("src/lib.rs"), lib_rs).unwrap();
    std::fs::write(dir.path().join("src/shapes.rs"), "pub fn load() {}").unwrap();
    dir
}

fn read(dir: &tempfile::TempDir, path: &str) -> String {
    std::fs::read_to_string(dir.path().join(path)).unwrap()
}

/// A test in each of the cluster's modules.
fn two_modules() -> Vec<GeneratedFile> {
    emit(&cluster(), &two_modules_tests(), Suite::Generated, COMMAND)
}

fn two_modules_tests() -> Vec<FinishedTest> {
    vec![
        completed(
            0,
            vec![stmt(CLASSIFY, ints(&[3, 4, 5]))],
            vec![Some(variant("Scalene", vec![]))],
        ),
        completed(
            1,
            vec![stmt(LOAD, vec![Value::Str("port = 1".into())])],
            vec![Some(Observed::Debug("Config { port: 1 }".into()))],
        ),
    ]
}

const LIB_RS: &str = "pub mod shapes;\n\npub fn classify() {}\n";

#[test]
fn plan_writes_nothing_and_apply_writes_files_and_mod_lines_once() {
    let dir = crate_dir(LIB_RS);
    let files = two_modules();
    let planned: Applied = plan(dir.path(), &cluster(), Suite::Generated, &files).unwrap();
    assert_eq!(
        planned.created,
        [
            Path::new("src/hermetic_tests.rs"),
            Path::new("src/shapes/hermetic_tests.rs")
        ]
    );
    assert_eq!(planned.mod_lines.len(), 2);
    assert_eq!(read(&dir, "src/lib.rs"), LIB_RS);
    assert!(!dir.path().join("src/hermetic_tests.rs").exists());

    let applied = apply(dir.path(), &cluster(), Suite::Generated, &files).unwrap();
    assert_eq!(applied, planned);
    assert_eq!(read(&dir, "src/hermetic_tests.rs"), files[0].contents);
    assert_eq!(
        read(&dir, "src/shapes/hermetic_tests.rs"),
        files[1].contents
    );
    assert_eq!(
        read(&dir, "src/lib.rs"),
        "pub mod shapes;\n\npub fn classify() {}\n\n#[cfg(test)]\nmod hermetic_tests;\n"
    );
    assert_eq!(
        read(&dir, "src/shapes.rs"),
        "pub fn load() {}\n\n#[cfg(test)]\nmod hermetic_tests;\n"
    );
    // No temporary files are left behind.
    let mut entries: Vec<_> = std::fs::read_dir(dir.path().join("src"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    entries.sort();
    assert_eq!(
        entries,
        ["hermetic_tests.rs", "lib.rs", "shapes", "shapes.rs"]
    );

    // Again: nothing to add, the generated files are replaced in place.
    let again = apply(dir.path(), &cluster(), Suite::Generated, &files).unwrap();
    assert_eq!(again.unchanged.len(), 2);
    assert!(again.mod_lines.is_empty() && again.created.is_empty());
    assert_eq!(
        read(&dir, "src/lib.rs")
            .matches("mod hermetic_tests;")
            .count(),
        1
    );
}

#[test]
fn apply_refuses_a_hand_written_test_file_and_writes_nothing() {
    let dir = crate_dir(LIB_RS);
    std::fs::write(dir.path().join("src/hermetic_tests.rs"), "// mine\n").unwrap();
    let files = two_modules();
    let err = apply(dir.path(), &cluster(), Suite::Generated, &files)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("src/hermetic_tests.rs exists and was not generated"),
        "{err}"
    );
    assert!(err.contains("Rename or delete it"), "{err}");
    assert!(plan(dir.path(), &cluster(), Suite::Generated, &files).is_err());
    assert_eq!(read(&dir, "src/hermetic_tests.rs"), "// mine\n");
    assert_eq!(read(&dir, "src/lib.rs"), LIB_RS);
    assert_eq!(read(&dir, "src/shapes.rs"), "pub fn load() {}");
    assert!(!dir.path().join("src/shapes").exists());
}

#[test]
fn apply_refuses_a_module_that_declares_its_own_hermetic_tests() {
    for lib_rs in [
        "pub mod shapes;\n#[cfg(test)]\nmod hermetic_tests {\n}\n",
        "pub mod shapes;\n#[path = \"x.rs\"]\nmod hermetic_tests;\n",
        "pub mod shapes;\nfn hermetic_tests() {}\n",
    ] {
        let dir = crate_dir(lib_rs);
        let err = apply(dir.path(), &cluster(), Suite::Generated, &two_modules())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("module `crate` in src/lib.rs already declares"),
            "{err}"
        );
        assert_eq!(read(&dir, "src/lib.rs"), lib_rs);
        assert!(!dir.path().join("src/hermetic_tests.rs").exists());
        assert!(!dir.path().join("src/shapes/hermetic_tests.rs").exists());
    }
}

#[test]
fn inline_modules_get_the_declaration_before_their_closing_brace() {
    let lib_rs =
        "pub mod shapes;\n\nmod inner {\n    pub fn g() -> bool {\n        true\n    }\n}\n";
    let dir = crate_dir(lib_rs);
    let mut c = cluster();
    c.modules.push(Module {
        body: ModuleBody::Inline {
            close_brace: lib_rs.rfind('}').unwrap(),
        },
        ..module(&["inner"], Some(0), "src/lib.rs", true)
    });
    let g = c.callables.len();
    c.callables.push(Callable {
        module: 2,
        ..callable("g", CallableKind::Function, vec![], Ty::Bool)
    });
    let tests = [
        completed(2, vec![stmt(g, vec![])], vec![Some(Observed::Bool(true))]),
        completed(
            0,
            vec![stmt(CLASSIFY, ints(&[3, 4, 5]))],
            vec![Some(variant("Scalene", vec![]))],
        ),
    ];
    let files = emit(&c, &tests, Suite::Generated, COMMAND);
    assert_eq!(files[1].path, Path::new("src/inner/hermetic_tests.rs"));
    assert_eq!(files[1].test_names, ["g_returns_true"]);
    apply(dir.path(), &c, Suite::Generated, &files).unwrap();
    assert_eq!(
        read(&dir, "src/lib.rs"),
        "pub mod shapes;\n\nmod inner {\n    pub fn g() -> bool {\n        true\n    }\n\n    \
         #[cfg(test)]\n    mod hermetic_tests;\n}\n\n#[cfg(test)]\nmod hermetic_tests;\n"
    );
    assert!(dir.path().join("src/inner/hermetic_tests.rs").is_file());
    check_valid_and_formatted(&read(&dir, "src/lib.rs"));
}

#[test]
fn generated_files_of_modules_without_tests_are_reported_not_deleted() {
    let dir = crate_dir(LIB_RS);
    let files = two_modules();
    apply(dir.path(), &cluster(), Suite::Generated, &files).unwrap();
    let applied = apply(dir.path(), &cluster(), Suite::Generated, &files[..1]).unwrap();
    assert_eq!(applied.stale, [Path::new("src/shapes/hermetic_tests.rs")]);
    assert!(dir.path().join("src/shapes/hermetic_tests.rs").exists());
}

/// `generate` and `record` each write their own files and `mod` lines: a run of one leaves the
/// other's tests as they were, never reports them stale, and adds its line once.
#[test]
fn generated_and_recorded_files_live_side_by_side() {
    let dir = crate_dir(LIB_RS);
    let generated = two_modules();
    apply(dir.path(), &cluster(), Suite::Generated, &generated).unwrap();
    let recorded = emit(
        &cluster(),
        &two_modules_tests()[..1],
        Suite::Recorded,
        "cargo hermetic record",
    );
    assert_eq!(recorded[0].path, Path::new("src/hermetic_recorded.rs"));
    assert!(recorded[0]
        .contents
        .starts_with("// @generated by cargo-hermetic — `cargo hermetic record` rewrites"));
    check_in_the_way(dir.path(), &cluster(), Suite::Recorded).unwrap();
    let applied = apply(dir.path(), &cluster(), Suite::Recorded, &recorded).unwrap();
    assert!(applied.stale.is_empty(), "{applied:?}");
    assert_eq!(read(&dir, "src/hermetic_tests.rs"), generated[0].contents);
    assert_eq!(read(&dir, "src/hermetic_recorded.rs"), recorded[0].contents);
    // Again, and generate again: each line once, each file its own.
    apply(dir.path(), &cluster(), Suite::Recorded, &recorded).unwrap();
    let again = apply(dir.path(), &cluster(), Suite::Generated, &generated[1..]).unwrap();
    assert_eq!(again.stale, [Path::new("src/hermetic_tests.rs")]);
    assert_eq!(
        read(&dir, "src/lib.rs"),
        "pub mod shapes;\n\npub fn classify() {}\n\n#[cfg(test)]\nmod hermetic_tests;\n\n\
         #[cfg(test)]\nmod hermetic_recorded;\n"
    );
    assert_eq!(read(&dir, "src/hermetic_recorded.rs"), recorded[0].contents);

    // A hand-written file where record writes stops record, not generate.
    std::fs::write(
        dir.path().join("src/shapes/hermetic_recorded.rs"),
        "// mine\n",
    )
    .unwrap();
    let err = check_in_the_way(dir.path(), &cluster(), Suite::Recorded).unwrap_err();
    assert!(
        err.to_string().contains("src/shapes/hermetic_recorded.rs"),
        "{err}"
    );
    check_in_the_way(dir.path(), &cluster(), Suite::Generated).unwrap();
}

#[test]
fn absolute_module_paths_under_the_crate_root_are_made_relative() {
    let dir = crate_dir(LIB_RS);
    let mut c = cluster();
    for m in &mut c.modules {
        m.file = dir.path().join(&m.file);
    }
    let files = emit(&c, &two_modules_tests(), Suite::Generated, COMMAND);
    assert_eq!(files[0].path, Path::new("src/hermetic_tests.rs"));
    let applied = apply(dir.path(), &c, Suite::Generated, &files).unwrap();
    assert_eq!(applied.mod_lines[1].file, Path::new("src/shapes.rs"));
    let _: &ModLine = &applied.mod_lines[0];
}

#[test]
fn results_unwrap_into_field_checks_and_strings_compare_as_literals() {
    let tests = [
        completed(
            0,
            vec![stmt(TRY_LOAD, vec![Value::Str("port = 8080".into())])],
            vec![Some(Observed::Ok(Box::new(strukt(vec![
                ("port", Observed::Int(8080)),
                ("host", Observed::Str("h".into())),
                ("secret", Observed::Str("s".into())),
            ]))))],
        ),
        completed(
            0,
            vec![stmt(
                GREET,
                vec![
                    Value::Str("Ann".into()),
                    Value::Seq(vec![Value::Char('\''), Value::Char('x')]),
                ],
            )],
            vec![Some(Observed::Opt(Some(Box::new(Observed::Str(
                "hi Ann".into(),
            )))))],
        ),
        completed(
            0,
            vec![stmt(CODE, vec![Value::Char('a')])],
            vec![Some(Observed::Tuple(vec![
                Observed::Char('\n'),
                Observed::BigUint(u128::MAX),
            ]))],
        ),
    ];
    let file = emit_one(&tests);
    assert_eq!(
        file.contents,
        r#"// @generated by cargo-hermetic — `cargo hermetic generate` rewrites this file
use super::*;

#[test]
fn try_load_returns_ok() {
    let config = try_load("port = 8080").unwrap();
    assert_eq!(config.port, 8080);
    assert_eq!(config.host, "h");
}

#[test]
fn greet_returns_some_hi_ann() {
    assert_eq!(
        greet("Ann".to_string(), &['\'', 'x']),
        Some("hi Ann".to_string())
    );
}

#[test]
fn code_returns_value() {
    assert_eq!(code(&'a'), ('\n', 340282366920938463463374607431768211455));
}
"#
    );
}

/// A cluster of one module whose callables are `fns` (free functions), for tests of values.
fn functions(fns: Vec<(&str, Vec<Param>, Ty)>) -> Cluster {
    Cluster {
        crate_name: "demo".into(),
        modules: vec![module(&[], None, "src/lib.rs", true)],
        callables: fns
            .into_iter()
            .map(|(name, params, ret)| callable(name, CallableKind::Function, params, ret))
            .collect(),
        ..Cluster::default()
    }
}

fn emit_with(cluster: &Cluster, tests: &[FinishedTest]) -> String {
    let files = emit(cluster, tests, Suite::Generated, COMMAND);
    assert_eq!(files.len(), 1, "{files:#?}");
    check_valid_and_formatted(&files[0].contents);
    files[0].contents.clone()
}

fn std_ty(kind: StdTy) -> Ty {
    Ty::Std(kind, Vec::new())
}

#[test]
fn paths_and_os_strings_are_written_by_their_std_constructors_and_imported() {
    let cluster = functions(vec![
        (
            "backup_of",
            vec![param("path", std_ty(StdTy::PathBuf))],
            Ty::Option(Box::new(std_ty(StdTy::PathBuf))),
        ),
        (
            "kind",
            vec![
                param("path", std_ty(StdTy::PathRef)),
                param("name", std_ty(StdTy::OsStrRef)),
            ],
            std_ty(StdTy::PathRef),
        ),
        (
            "load",
            vec![param("path", std_ty(StdTy::PathStr))],
            Ty::Vec(Box::new(std_ty(StdTy::OsString))),
        ),
    ]);
    let str_ = |s: &str| Value::Str(s.into());
    let obs = |s: &str| Observed::Str(s.into());
    let tests = [
        completed(
            0,
            vec![stmt(0, vec![str_("app.conf")])],
            vec![Some(Observed::Opt(Some(Box::new(obs("app.conf.bak")))))],
        ),
        completed(
            0,
            vec![stmt(1, vec![str_("/etc"), str_("x")])],
            vec![Some(obs("/etc"))],
        ),
        completed(
            0,
            vec![stmt(2, vec![str_("/etc/app.conf")])],
            vec![Some(Observed::Seq(vec![obs("a")]))],
        ),
    ];
    let file = emit_with(&cluster, &tests);
    for expected in [
        "use std::ffi::{OsStr, OsString};\nuse std::path::{Path, PathBuf};\n",
        "backup_of(PathBuf::from(\"app.conf\")),\n        Some(PathBuf::from(\"app.conf.bak\"))",
        "assert_eq!(kind(Path::new(\"/etc\"), OsStr::new(\"x\")), Path::new(\"/etc\"));",
        "assert_eq!(load(\"/etc/app.conf\"), vec![OsString::from(\"a\")]);",
    ] {
        assert!(file.contains(expected), "no {expected}:\n{file}");
    }
    // A module whose own `Path` is not std's spells std's in full, and imports nothing.
    let mut shadowed = cluster.clone();
    shadowed.modules[0].shadowed_prelude = vec!["Path".into()];
    let file = emit_with(&shadowed, &tests[1..2]);
    assert!(!file.contains("use std::path"), "{file}");
    assert!(
        file.contains("kind(std::path::Path::new(\"/etc\"), OsStr::new(\"x\"))"),
        "{file}"
    );
}

#[test]
fn cow_text_is_built_from_a_literal_and_compared_with_one() {
    let cow = std_ty(StdTy::CowStr);
    let cluster = functions(vec![(
        "expand",
        vec![param("input", cow.clone())],
        Ty::Option(Box::new(cow)),
    )]);
    let tests = [completed(
        0,
        vec![stmt(0, vec![Value::Str("~/a".into())])],
        vec![Some(Observed::Opt(Some(Box::new(Observed::Str(
            "/home/u/a".into(),
        )))))],
    )];
    let file = emit_with(&cluster, &tests);
    for expected in [
        "use std::borrow::Cow;\n",
        "expand(Cow::from(\"~/a\")), Some(Cow::from(\"/home/u/a\")));",
    ] {
        assert!(file.contains(expected), "no {expected}:\n{file}");
    }
}

#[test]
fn cows_of_paths_and_slices_are_built_from_what_they_borrow_or_own() {
    let cluster = functions(vec![
        (
            "expand",
            vec![param("p", std_ty(StdTy::CowPath))],
            std_ty(StdTy::CowPath),
        ),
        (
            "bytes",
            vec![param(
                "b",
                Ty::Std(StdTy::CowSlice, vec![Ty::Int(IntTy::U8)]),
            )],
            Ty::Std(StdTy::CowSlice, vec![Ty::Int(IntTy::U8)]),
        ),
    ]);
    let tests = [
        completed(
            0,
            vec![stmt(0, vec![Value::Str("~/a".into())])],
            vec![Some(Observed::Str("/home/u/a".into()))],
        ),
        completed(
            0,
            vec![stmt(
                1,
                vec![Value::Seq(vec![Value::Int(1), Value::Int(2)])],
            )],
            vec![Some(Observed::Seq(vec![Observed::Int(1)]))],
        ),
    ];
    let file = emit_with(&cluster, &tests);
    for expected in [
        "use std::borrow::Cow;\n",
        "use std::path::Path;\n",
        "expand(Cow::from(Path::new(\"~/a\"))),\n        Cow::from(Path::new(\"/home/u/a\"))\n",
        "bytes(Cow::from(vec![1, 2])), Cow::from(vec![1]));",
    ] {
        assert!(file.contains(expected), "no {expected}:\n{file}");
    }
}

#[test]
fn type_arguments_a_literal_gives_need_no_turbofish() {
    let path = std_ty(StdTy::PathStr);
    let mut cluster = functions(vec![
        ("open", vec![param("path", path.clone())], Ty::Bool),
        ("show", vec![param("x", I64)], Ty::Bool),
    ]);
    cluster.callables[0].generic_args = vec![path];
    cluster.callables[0].generics_inferred = true;
    cluster.callables[1].generic_args = vec![I64];
    cluster.callables[1].generics_inferred = true;
    let yes = || vec![Some(Observed::Bool(true))];
    let tests = [
        completed(0, vec![stmt(0, vec![Value::Str("a.txt".into())])], yes()),
        completed(0, vec![stmt(1, vec![Value::Int(7)])], yes()),
    ];
    let file = emit_with(&cluster, &tests);
    assert!(file.contains("open(\"a.txt\")"), "{file}");
    // `7` alone would be an `i32`.
    assert!(file.contains("show::<i64>(7)"), "{file}");
}

#[test]
fn times_are_written_in_their_largest_whole_unit_from_the_epoch() {
    let duration = std_ty(StdTy::Duration);
    let time = std_ty(StdTy::SystemTime);
    let cluster = functions(vec![
        (
            "label",
            vec![param("d", duration.clone())],
            duration.clone(),
        ),
        (
            "deadline",
            vec![param("start", time.clone()), param("d", duration.clone())],
            Ty::Option(Box::new(time.clone())),
        ),
    ]);
    let secs = |s: i128| s * 1_000_000_000;
    let max = (u64::MAX as i128 + 1) * 1_000_000_000 - 1;
    let call = |args: Vec<i128>, obs: Observed| {
        let f = if args.len() == 1 { 0 } else { 1 };
        completed(
            0,
            vec![stmt(f, args.into_iter().map(Value::Int).collect())],
            vec![Some(obs)],
        )
    };
    let some = |n: i128| Observed::Opt(Some(Box::new(Observed::Int(n))));
    let tests = [
        call(vec![secs(90)], Observed::Int(1_500_000_000)),
        call(vec![0], Observed::Int(max)),
        call(vec![2_500_000], Observed::Int(secs(2) + 5)),
        call(
            vec![secs(1_704_067_200), secs(60)],
            some(secs(1_704_067_260)),
        ),
        call(vec![-secs(1), 0], some(0)),
    ];
    let file = emit_with(&cluster, &tests);
    let flat: String = file.chars().filter(|c| !c.is_whitespace()).collect();
    for expected in [
        "usestd::time::{Duration,SystemTime};",
        "assert_eq!(label(Duration::from_secs(90)),Duration::from_millis(1500));",
        "assert_eq!(label(Duration::ZERO),Duration::MAX);",
        "assert_eq!(label(Duration::from_micros(2500)),Duration::new(2,5));",
        "deadline(SystemTime::UNIX_EPOCH+Duration::from_secs(1_704_067_200),",
        "Some(SystemTime::UNIX_EPOCH+Duration::from_secs(1_704_067_260))",
        "deadline(SystemTime::UNIX_EPOCH-Duration::from_secs(1),Duration::ZERO)",
        "Some(SystemTime::UNIX_EPOCH)",
    ] {
        assert!(flat.contains(expected), "no {expected}:\n{file}");
    }
}

#[test]
fn maps_and_sets_are_written_from_their_entries_and_checked_in_any_order() {
    let map = Ty::Std(StdTy::HashMap, vec![Ty::String, I64]);
    let set = Ty::Std(StdTy::BTreeSet, vec![I64]);
    let cluster = functions(vec![
        ("counts", vec![param("m", map.clone())], map.clone()),
        (
            "keep",
            vec![param("s", Ty::Ref(Box::new(set.clone())))],
            set.clone(),
        ),
    ]);
    let entry = |k: &str, v| Value::Tuple(vec![Value::Str(k.into()), Value::Int(v)]);
    let seen = |k: &str, v| Observed::Tuple(vec![Observed::Str(k.into()), Observed::Int(v)]);
    let tests = [
        completed(
            0,
            vec![stmt(
                0,
                vec![Value::Seq(vec![entry("b", 2), entry("a", 1)])],
            )],
            vec![Some(Observed::Seq(vec![seen("a", 1), seen("b", 2)]))],
        ),
        completed(
            0,
            vec![stmt(
                1,
                vec![Value::Seq(vec![Value::Int(3), Value::Int(1)])],
            )],
            vec![Some(Observed::Seq(vec![
                Observed::Int(1),
                Observed::Int(3),
            ]))],
        ),
        completed(
            0,
            vec![stmt(1, vec![Value::Seq(vec![])])],
            vec![Some(Observed::Seq(vec![]))],
        ),
    ];
    let file = emit_with(&cluster, &tests);
    let flat: String = file.chars().filter(|c| !c.is_whitespace()).collect();
    for expected in [
        "usestd::collections::{BTreeSet,HashMap};",
        "counts(HashMap::from([(\"b\".to_string(),2),(\"a\".to_string(),1)])),",
        "HashMap::from([(\"a\".to_string(),1),(\"b\".to_string(),2)])",
        "assert_eq!(keep(&BTreeSet::from([3,1])),BTreeSet::from([1,3]));",
        "assert!(keep(&BTreeSet::new()).is_empty());",
    ] {
        assert!(flat.contains(expected), "no {expected}:\n{file}");
    }
}

/// A call whose result a later statement uses may keep what it borrows (`Parser::new(&mut
/// map)`): a map built in the call would be a temporary dropped at the end of the statement,
/// so it is bound first. A call whose result is not kept borrows in place.
#[test]
fn values_a_kept_result_borrows_are_bound_before_the_call() {
    let map = Ty::Std(StdTy::HashMap, vec![Ty::String, I64]);
    let set = Ty::Std(StdTy::BTreeSet, vec![I64]);
    let cluster = functions(vec![
        (
            "tally",
            vec![
                param("counts", Ty::RefMut(Box::new(map))),
                param("seen", Ty::Ref(Box::new(set))),
                param("limit", Ty::Ref(Box::new(I64))),
            ],
            USIZE,
        ),
        ("twice", vec![param("n", USIZE)], USIZE),
    ]);
    let entry = Value::Tuple(vec![Value::Str("a".into()), Value::Int(1)]);
    let args = vec![
        Value::Seq(vec![entry]),
        Value::Seq(vec![Value::Int(3)]),
        Value::Int(9),
    ];
    let kept = completed(
        0,
        vec![stmt(0, args.clone()), stmt(1, vec![Value::Use(0)])],
        vec![None, Some(Observed::Int(2))],
    );
    let alone = completed(0, vec![stmt(0, args)], vec![Some(Observed::Int(1))]);
    let file = emit_with(&cluster, &[kept, alone]);
    let flat: String = file.chars().filter(|c| !c.is_whitespace()).collect();
    for expected in [
        "letmutcounts=HashMap::from([(\"a\".to_string(),1)]);",
        "letseen=BTreeSet::from([3]);",
        "tally(&mutcounts,&seen,&9)",
        "assert_eq!(tally(&mutHashMap::from([(\"a\".to_string(),1)]),&BTreeSet::from([3]),&9),1,",
    ] {
        assert!(flat.contains(expected), "no {expected}:\n{file}");
    }
}

#[test]
fn the_state_a_mut_call_leaves_is_checked_where_mutation_analysis_chose_it() {
    let mut test = stack_test(
        &[7],
        stmt(PUSH, vec![Value::BorrowMut(0), Value::Int(8)]),
        Observed::Ok(Box::new(Observed::Unit)),
    );
    test.report.finals = vec![(
        0,
        strukt(vec![
            (
                "items",
                Observed::Seq(vec![Observed::Int(7), Observed::Int(8)]),
            ),
            ("capacity", Observed::Int(2)),
        ]),
    )];
    // Without mutation analysis the final state is not written.
    let plain = emit_one(std::slice::from_ref(&test));
    assert!(
        !plain.contents.contains("bounded_stack.items"),
        "{}",
        plain.contents
    );
    // Chosen: checked after the last call.
    let last = Assertion::Result(2);
    test.assertions = Some([last, Assertion::Final(0)].into_iter().collect());
    let file = emit_one(&[test]);
    let body = file.contents.split("fn ").nth(1).unwrap();
    let push = body.find("bounded_stack.push(8)").unwrap();
    let check = body.find("vec![7, 8]").expect(&file.contents);
    assert!(push < check, "{}", file.contents);
}

#[test]
fn from_str_impls_are_called_by_parse() {
    let mut cluster = functions(vec![]);
    cluster.types.push(ty_def(
        "Level",
        &["Debug", "PartialEq"],
        TypeKind::Enum(vec![Variant {
            name: "High".into(),
            fields: Fields::Unit,
        }]),
    ));
    let level = Ty::Adt(0, Vec::new());
    cluster.callables.push(callable(
        "from_str",
        CallableKind::TraitFn {
            self_ty: level.clone(),
            trait_name: "::std::str::FromStr".into(),
        },
        vec![param("s", Ty::Str)],
        Ty::Result(Box::new(level), Box::new(Ty::Unit)),
    ));
    let tests = [completed(
        0,
        vec![stmt(0, vec![Value::Str("high".into())])],
        vec![Some(Observed::Ok(Box::new(Observed::Variant(
            "High".into(),
            Vec::new(),
        ))))],
    )];
    let file = emit_with(&cluster, &tests);
    assert!(file.contains("fn level_from_str"), "{file}");
    assert!(
        file.contains("\"high\".parse::<Level>(), Ok(Level::High)"),
        "{file}"
    );
}

#[test]
fn io_errors_are_passed_by_their_kind() {
    let cluster = functions(vec![(
        "retryable",
        vec![param("error", Ty::Ref(Box::new(Ty::IoError)))],
        Ty::Bool,
    )]);
    let tests = [completed(
        0,
        vec![stmt(0, vec![Value::Str("TimedOut".into())])],
        vec![Some(Observed::Bool(true))],
    )];
    let file = emit_with(&cluster, &tests);
    let flat: String = file.chars().filter(|c| !c.is_whitespace()).collect();
    assert!(
        flat.contains("retryable(&std::io::Error::from(std::io::ErrorKind::TimedOut))"),
        "{file}"
    );
}

#[test]
fn closures_are_written_in_the_call_returning_their_value() {
    let mut cluster = functions(vec![
        (
            "keep",
            vec![
                param("names", Ty::Slice(Box::new(Ty::Str))),
                param("pred", Ty::Closure(1, Box::new(Ty::Bool))),
            ],
            Ty::Int(IntTy::Usize),
        ),
        (
            "order",
            vec![param("cmp", Ty::Closure(2, Box::new(Ty::Ordering)))],
            Ty::Bool,
        ),
        (
            "lookup",
            vec![param(
                "env",
                Ty::Ref(Box::new(Ty::Closure(
                    1,
                    Box::new(Ty::Option(Box::new(Ty::String))),
                ))),
            )],
            Ty::Bool,
        ),
        (
            "hook",
            vec![param(
                "f",
                Ty::Box(Box::new(Ty::Closure(0, Box::new(Ty::Unit)))),
            )],
            Ty::Bool,
        ),
    ]);
    // `fn keep<P: Fn(&str) -> bool>`: the closure's type is inferred, never written.
    cluster.callables[0].generic_args = vec![Ty::Closure(1, Box::new(Ty::Bool))];
    cluster.callables[0].generics_inferred = true;
    let tests = [
        completed(
            0,
            vec![stmt(
                0,
                vec![Value::Seq(vec![Value::Str("a".into())]), Value::Bool(true)],
            )],
            vec![Some(Observed::Int(1))],
        ),
        completed(
            0,
            vec![stmt(1, vec![Value::Int(-1)])],
            vec![Some(Observed::Bool(true))],
        ),
        completed(
            0,
            vec![stmt(
                2,
                vec![Value::Opt(Some(Box::new(Value::Str("/etc".into()))))],
            )],
            vec![Some(Observed::Bool(true))],
        ),
        completed(
            0,
            vec![stmt(3, vec![Value::Unit])],
            vec![Some(Observed::Bool(false))],
        ),
    ];
    let file = emit_with(&cluster, &tests);
    let flat: String = file.chars().filter(|c| !c.is_whitespace()).collect();
    for expected in [
        "keep(&[\"a\"],|_|true)",
        "order(|_,_|std::cmp::Ordering::Less)",
        "lookup(&|_|Some(\"/etc\".to_string()))",
        "hook(Box::new(||()))",
    ] {
        assert!(flat.contains(expected), "no {expected}:\n{file}");
    }
}

#[test]
fn files_and_metadata_are_opened_at_their_path_and_not_compared() {
    let cluster = functions(vec![
        (
            "count_pairs",
            vec![param("file", std_ty(StdTy::File))],
            Ty::Int(IntTy::Usize),
        ),
        (
            "describe",
            vec![param("meta", Ty::Ref(Box::new(std_ty(StdTy::Metadata))))],
            Ty::Str,
        ),
        (
            "open_settings",
            vec![param("dir", std_ty(StdTy::PathRef))],
            Ty::Result(Box::new(std_ty(StdTy::File)), Box::new(Ty::IoError)),
        ),
    ]);
    let tests = [
        completed(
            0,
            vec![stmt(0, vec![Value::Str("/etc/app.env".into())])],
            vec![Some(Observed::Int(2))],
        ),
        completed(
            0,
            vec![stmt(1, vec![Value::Str("/".into())])],
            vec![Some(Observed::Str("directory".into()))],
        ),
        completed(
            0,
            vec![stmt(2, vec![Value::Str("/etc".into())])],
            vec![Some(Observed::Ok(Box::new(Observed::Opaque)))],
        ),
    ];
    let file = emit_with(&cluster, &tests);
    let flat: String = file.chars().filter(|c| !c.is_whitespace()).collect();
    for expected in [
        "usestd::fs::File;",
        "count_pairs(File::open(\"/etc/app.env\").unwrap()),2",
        "describe(&std::fs::metadata(\"/\").unwrap()),\"directory\"",
        "open_settings(Path::new(\"/etc\"))",
    ] {
        assert!(flat.contains(expected), "no {expected}:\n{file}");
    }
    assert!(!flat.contains("usestd::fs::{"), "{file}");
}

#[test]
fn variable_errors_are_passed_and_compared_as_their_variants() {
    // shellexpand's `env(..) -> Result<Cow<str>, LookupError<VarError>>`, dotenvy's
    // `Error::EnvVar(VarError)`, whoami's `match e { VarError::NotPresent => .. }`.
    let var_error = || std_ty(StdTy::VarError);
    let cluster = functions(vec![
        ("explain", vec![param("e", var_error())], Ty::String),
        (
            "lookup",
            vec![param("name", Ty::Str)],
            Ty::Result(Box::new(Ty::String), Box::new(var_error())),
        ),
    ]);
    let not_present = || Observed::Variant("NotPresent".into(), Vec::new());
    let tests = [
        completed(
            0,
            vec![stmt(0, vec![Value::Opt(None)])],
            vec![Some(Observed::Str("missing".into()))],
        ),
        completed(
            0,
            vec![stmt(
                0,
                vec![Value::Opt(Some(Box::new(Value::Str("x".into()))))],
            )],
            vec![Some(Observed::Str("not text".into()))],
        ),
        completed(
            0,
            vec![stmt(1, vec![Value::Str("HOME".into())])],
            vec![Some(Observed::Err(Box::new(not_present())))],
        ),
    ];
    let file = emit_with(&cluster, &tests);
    let flat: String = file.chars().filter(|c| !c.is_whitespace()).collect();
    for expected in [
        "usestd::env::VarError;",
        "explain(VarError::NotPresent),\"missing\"",
        "explain(VarError::NotUnicode(OsString::from(\"x\"))),\"nottext\"",
        "lookup(\"HOME\"),Err(VarError::NotPresent)",
    ] {
        assert!(flat.contains(expected), "no {expected}:\n{file}");
    }
    let oracle = super::oracle::Oracle {
        cluster: &cluster,
        home: 0,
    };
    let text = Observed::Variant(
        "NotUnicode".into(),
        vec![("0".into(), Observed::Str("x".into()))],
    );
    assert_eq!(
        oracle.debug_text(Some(&var_error()), &text).as_deref(),
        Some("NotUnicode(\"x\")")
    );
    assert_eq!(
        oracle
            .debug_text(Some(&var_error()), &not_present())
            .as_deref(),
        Some("NotPresent")
    );
}

#[test]
fn open_options_are_built_by_their_flags_and_never_imported() {
    // fs-err's `OpenOptions::from_options(fs::OpenOptions)`: a crate type of the same name.
    let options = || std_ty(StdTy::OpenOptions);
    let cluster = functions(vec![
        ("from_options", vec![param("options", options())], Ty::Bool),
        (
            "options",
            vec![param("read", Ty::Bool)],
            Ty::Ref(Box::new(options())),
        ),
    ]);
    let flags = |on: [bool; 6]| Value::Tuple(on.iter().map(|b| Value::Bool(*b)).collect());
    let tests = [
        completed(
            0,
            vec![stmt(
                0,
                vec![flags([true, false, false, false, true, false])],
            )],
            vec![Some(Observed::Bool(true))],
        ),
        completed(
            0,
            vec![stmt(0, vec![flags([false; 6])])],
            vec![Some(Observed::Bool(false))],
        ),
        // An opaque result: nothing to assert, no test.
        completed(
            0,
            vec![stmt(1, vec![Value::Bool(true)])],
            vec![Some(Observed::Opaque)],
        ),
    ];
    let file = emit_with(&cluster, &tests);
    let flat: String = file.chars().filter(|c| !c.is_whitespace()).collect();
    for expected in [
        "from_options(std::fs::OpenOptions::new().read(true).create(true).clone())",
        "from_options(std::fs::OpenOptions::new())",
    ] {
        assert!(flat.contains(expected), "no {expected}:\n{file}");
    }
    assert!(!flat.contains("usestd::fs::OpenOptions"), "{file}");
}

#[test]
fn a_borrowed_sum_or_range_is_parenthesised() {
    // humantime's `Rfc3339Timestamp::get_ref() -> &SystemTime`: `&SystemTime::UNIX_EPOCH + d`
    // borrows the epoch only, and does not compile.
    let borrowed = |e: TokenStream, mutable| super::oracle::borrowed(e, mutable).to_string();
    assert_eq!(
        borrowed(
            quote!(SystemTime::UNIX_EPOCH + Duration::from_secs(3)),
            false
        ),
        quote!(&(SystemTime::UNIX_EPOCH + Duration::from_secs(3))).to_string()
    );
    assert_eq!(
        borrowed(quote!(3..7), true),
        quote!(&mut (3..7)).to_string()
    );
    assert_eq!(
        borrowed(quote!(Point { x: 1 }), false),
        quote!(&Point { x: 1 }).to_string()
    );
}

#[test]
fn file_types_permissions_listings_and_entries_are_read_at_their_path() {
    let kinds = [
        ("kind_of", StdTy::FileType),
        ("is_private", StdTy::Permissions),
        ("count_entries", StdTy::ReadDir),
        ("entry_name", StdTy::DirEntry),
    ];
    let cluster = functions(
        kinds
            .iter()
            .map(|(name, kind)| {
                (
                    *name,
                    vec![param("x", std_ty(*kind))],
                    Ty::Int(IntTy::Usize),
                )
            })
            .collect(),
    );
    let paths = ["/etc", "/etc/app.conf", "/srv", "/etc/app.conf"];
    let mut tests: Vec<_> = paths
        .iter()
        .enumerate()
        .map(|(i, p)| {
            completed(
                0,
                vec![stmt(i, vec![Value::Str(p.to_string())])],
                vec![Some(Observed::Int(1))],
            )
        })
        .collect();
    tests.push(completed(
        0,
        vec![stmt(3, vec![Value::Str("app.conf".into())])],
        vec![Some(Observed::Int(1))],
    ));
    let file = emit_with(&cluster, &tests);
    let flat: String = file.chars().filter(|c| !c.is_whitespace()).collect();
    for expected in [
        "kind_of(std::fs::metadata(\"/etc\").unwrap().file_type()),1",
        "is_private(std::fs::metadata(\"/etc/app.conf\").unwrap().permissions()),1",
        "count_entries(std::fs::read_dir(\"/srv\").unwrap()),1",
        "entry_name(std::fs::read_dir(\"/etc\").unwrap().flatten().find(|e|e.file_name()==\"app.conf\").unwrap()",
        "entry_name(std::fs::read_dir(\".\").unwrap().flatten().find(|e|e.file_name()==\"app.conf\").unwrap()",
    ] {
        assert!(flat.contains(expected), "no {expected}:\n{file}");
    }
    // Written by std paths only: no import that could clash with a crate's `DirEntry`.
    assert!(!flat.contains("usestd::fs"), "{file}");
}

#[test]
fn review_comments_list_callees_as_a_sentence_does() {
    let names = |n: &[&str]| n.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(in_words(&names(&["`a`"])), "`a`");
    assert_eq!(in_words(&names(&["`a`", "`b`"])), "`a` and `b`");
    assert_eq!(in_words(&names(&["`a`", "`b`", "`c`"])), "`a`, `b` and `c`");
}

#[test]
fn bytes_that_read_as_text_are_written_as_a_byte_string() {
    let ints = |b: &[u8]| {
        b.iter()
            .map(|&b| Value::Int(i128::from(b)))
            .collect::<Vec<_>>()
    };
    let u8s = Ty::Int(IntTy::U8);
    let text = byte_text(&ints(b"Sun, 06 Nov\r\n\"a\""), &u8s).unwrap();
    assert_eq!(text.to_string(), r#"b"Sun, 06 Nov\r\n\"a\"""#);
    // Mostly binary, empty, or no bytes: a list, as before.
    assert!(byte_text(&ints(&[0xC0, 0xDE, 0, 1, b'N']), &u8s).is_none());
    assert!(byte_text(&[], &u8s).is_none());
    assert!(byte_text(&ints(b"abc"), &Ty::Int(IntTy::U16)).is_none());
}

#[test]
fn a_slice_inside_a_result_is_written_as_a_slice_not_an_array() {
    // `Ok(&[1, 2])` is a `Result<&[i32; 2], _>`: it does not compare with `Result<&[u8], _>`.
    let bytes = || Ty::Slice(Box::new(Ty::Int(IntTy::U8)));
    let cluster = functions(vec![("body", vec![], bytes())]);
    let oracle = super::oracle::Oracle {
        cluster: &cluster,
        home: 0,
    };
    let seq = Observed::Seq(vec![Observed::Int(1), Observed::Int(2)]);
    let text = |ty: &Ty, obs: &Observed, top| {
        let lit = oracle.literal(ty, obs, top).expect("a literal");
        lit.to_string()
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()
    };
    assert_eq!(text(&bytes(), &seq, true), "&[1,2]");
    let result = Ty::Result(Box::new(bytes()), Box::new(Ty::String));
    let ok = Observed::Ok(Box::new(seq.clone()));
    assert_eq!(text(&result, &ok, true), "Ok(&[1,2][..])");
    let pair = Ty::Tuple(vec![bytes(), Ty::Bool]);
    let both = Observed::Tuple(vec![seq, Observed::Bool(true)]);
    assert_eq!(text(&pair, &both, true), "(&[1,2][..],true)");
    // Bytes that are mostly text read as text.
    let word = Observed::Seq(b"ok".iter().map(|&b| Observed::Int(b.into())).collect());
    assert_eq!(text(&bytes(), &word, true), "b\"ok\"");
    let ok = Observed::Ok(Box::new(word.clone()));
    assert_eq!(text(&result, &ok, true), "Ok(&b\"ok\"[..])");
    let vec = Ty::Vec(Box::new(Ty::Int(IntTy::U8)));
    assert_eq!(text(&vec, &word, true), "b\"ok\".to_vec()");
}

#[test]
fn an_error_that_carries_nothing_is_asserted_as_an_error_only() {
    // httpdate's `pub struct Error(());`: `assert_eq!(error.0, ())` says nothing.
    let mut cluster = functions(vec![(
        "parse",
        vec![param("text", Ty::Str)],
        Ty::Result(Box::new(USIZE), Box::new(adt(0))),
    )]);
    cluster.types = vec![ty_def(
        "Error",
        &["Debug"],
        TypeKind::Struct(Fields::Tuple(vec![field("0", Ty::Unit, Vis::Pub)])),
    )];
    let err = Observed::Err(Box::new(strukt(vec![("0", Observed::Unit)])));
    let tests = [completed(
        0,
        vec![stmt(0, vec![Value::Str("x".into())])],
        vec![Some(err)],
    )];
    let file = emit_with(&cluster, &tests);
    let flat: String = file.chars().filter(|c| !c.is_whitespace()).collect();
    assert!(flat.contains("assert!(parse(\"x\").is_err());"), "{file}");
    assert!(!flat.contains(".0,()"), "{file}");
}
