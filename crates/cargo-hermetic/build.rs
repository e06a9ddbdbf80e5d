//! Lists the `hermetic` runtime's sources for `runtime.rs` to embed, so that an installed
//! `cargo-hermetic` carries the runtime it writes into users' repositories and builds its
//! driver with, and a file added to the runtime is never left out of the copy.

use std::path::{Path, PathBuf};

fn main() {
    let runtime = Path::new(env!("CARGO_MANIFEST_DIR")).join("../hermetic");
    let mut files = vec![runtime.join("README.md")];
    collect(&runtime.join("src"), &mut files);
    files.sort();
    let mut out = String::from("&[\n");
    for file in &files {
        let rel = file
            .strip_prefix(&runtime)
            .expect("below the runtime's directory");
        let abs = file.canonicalize().expect("runtime source file");
        out += &format!(
            "    ({:?}, include_str!({:?})),\n",
            rel.display().to_string(),
            abs.display().to_string()
        );
    }
    out += "]\n";
    let dest =
        PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR")).join("runtime_files.rs");
    std::fs::write(dest, out).expect("write runtime_files.rs");
    println!("cargo:rerun-if-changed={}", runtime.join("src").display());
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
