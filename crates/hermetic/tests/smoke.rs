use hermetic::Env;
#[test]
fn smoke() {
    let env = Env::new()
        .file("/etc/app/app.conf", "port = 1\n")
        .var("A", "b")
        .enter();
    assert_eq!(
        std::fs::read_to_string("/etc/app/app.conf").unwrap(),
        "port = 1\n"
    );
    assert_eq!(std::env::var("A").unwrap(), "b");
    std::fs::write("/tmp/x", "hi").unwrap();
    assert_eq!(env.file_contents("/tmp/x").unwrap(), b"hi");
    let e = std::fs::read("/nope").unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::NotFound);
    drop(env);
    assert!(std::fs::metadata("/etc/app/app.conf").is_err());
}
