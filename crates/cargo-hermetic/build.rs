//! Lists the `hermetic` runtime's sources, and those of its proc-macro crate `hermetic-macros`
//! (as `macros/...`), for `runtime.rs` to embed, so that an installed `cargo-hermetic` carries
//! the runtime it writes into users' repositories and builds its driver with, and a file added
//! to either crate is never left out of the copy.

use std::path::{Path, PathBuf};

fn main() {
    let runtime = Path::new(env!("CARGO_MANIFEST_DIR")).join("../hermetic");
    let macros = Path::new(env!("CARGO_MANIFEST_DIR")).join("../hermetic-macros");
    let mut files = vec![runtime.join("README.md")];
    collect(&runtime.join("src"), &mut files);
    files.sort();
    let mut macro_files = Vec::new();
    collect(&macros.join("src"), &mut macro_files);
    macro_files.sort();
    let mut out = String::from("&[\n");
    for (dir, prefix, file) in files
        .iter()
        .map(|f| (&runtime, "", f))
        .chain(macro_files.iter().map(|f| (&macros, "macros/", f)))
    {
        let rel = file.strip_prefix(dir).expect("below the crate's directory");
        let abs = file.canonicalize().expect("runtime source file");
        out += &format!(
            "    ({:?}, include_str!({:?})),\n",
            format!("{prefix}{}", rel.display()),
            abs.display().to_string()
        );
    }
    out += "]\n";
    let dest =
        PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR")).join("runtime_files.rs");
    std::fs::write(dest, out).expect("write runtime_files.rs");
    println!("cargo:rerun-if-changed={}", runtime.join("src").display());
    println!("cargo:rerun-if-changed={}", macros.join("src").display());
    println!(
        "cargo:rerun-if-changed={}",
        runtime.join("README.md").display()
    );
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read the runtime's sources") {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            collect(&path, out);
            println!("cargo:rerun-if-changed={}", path.display());
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}
