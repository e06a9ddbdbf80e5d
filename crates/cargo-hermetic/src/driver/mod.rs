//! The driver: generated dispatch code injected into a shadow copy of the crate, built once with
//! coverage instrumentation, and run as a fork server that interprets test cases sent as data.

pub mod build;
pub mod codegen;
pub mod goals;
pub mod process;

#[cfg(test)]
mod smoke {
    use crate::cluster::*;
    use hermetic_driver::protocol::{Call, Outcome};
    use hermetic_driver::Value;

    /// Builds the triangle fixture's driver from a hand-written cluster and runs a few calls.
    #[test]
    #[ignore = "slow: builds a fixture"]
    fn triangle_driver_runs() {
        let root =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/triangle");
        let tmp = tempfile::tempdir().unwrap();
        let tmp_path = std::path::PathBuf::from("/tmp/hsmoke");
        let _ = &tmp;
        let target = crate::cargo::locate(Some(&root.join("Cargo.toml")), None).unwrap();
        let kind = TypeDef {
            name: "Kind".into(),
            module: 0,
            vis: Vis::Pub,
            generics: vec![],
            derives: vec!["Debug".into(), "PartialEq".into()],
            impls: vec![],
            kind: TypeKind::Enum(
                ["Equilateral", "Isosceles", "Scalene", "Invalid"]
                    .iter()
                    .map(|n| Variant {
                        name: n.to_string(),
                        fields: Fields::Unit,
                    })
                    .collect(),
            ),
        };
        let u32p = |n: &str| Param {
            name: n.into(),
            ty: Ty::Int(IntTy::U32),
        };
        let cluster = Cluster {
            crate_name: "triangle".into(),
            modules: vec![Module {
                path: vec![],
                parent: None,
                vis: Vis::Pub,
                file: target.lib_rs.clone(),
                body: ModuleBody::File,
                mod_rs: true,
            }],
            types: vec![kind],
            callables: vec![Callable {
                module: 0,
                name: "classify".into(),
                kind: CallableKind::Function,
                vis: Vis::Pub,
                params: vec![u32p("a"), u32p("b"), u32p("c")],
                ret: Ty::Adt(0, vec![]),
                generic_args: vec![],
            }],
            ..Cluster::default()
        };
        let built = super::build::build_driver(&target, &cluster, &tmp_path).unwrap();
        let launch = super::process::Launch {
            executable: built.executable.clone(),
            cwd: built.shadow.root.clone(),
        };
        let mut pool = super::process::DriverPool::start(launch, 1, 1000).unwrap();
        let goals = super::goals::map_goals(
            &built.executable,
            &pool.hello.pcs,
            &cluster,
            &Default::default(),
        )
        .unwrap();
        eprintln!("{} counters, {} goals", pool.hello.pcs.len(), goals.len());
        let call = |a, b, c| {
            vec![Call {
                callable: 0,
                args: vec![Value::Int(a), Value::Int(b), Value::Int(c)],
            }]
        };
        let reports = pool
            .exec_batch(vec![call(3, 3, 3), call(3, 4, 5), call(0, 1, 1)])
            .unwrap();
        for r in &reports {
            eprintln!(
                "{:?} {:?} hit={} cmps={:?}",
                r.outcome,
                r.stmts,
                goals.goals_hit(&r.covered).count(),
                r.cmp_ints
            );
            assert_eq!(r.outcome, Outcome::Completed);
        }
        let start = std::time::Instant::now();
        let many: Vec<_> = (0..500).map(|i| call(i, i + 1, i + 2)).collect();
        pool.exec_batch(many).unwrap();
        eprintln!("500 executions in {:?}", start.elapsed());
    }
}
