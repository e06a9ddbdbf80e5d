//! The engine links neither the runtime nor the driver: its own file, clock and variable calls
//! must reach glibc, not the interposers that the `hermetic` runtime defines for tests.

use object::{Object, ObjectSymbol};

#[test]
fn the_cli_binary_exports_no_interposed_libc_symbol() {
    let path = env!("CARGO_BIN_EXE_cargo-hermetic");
    let data = std::fs::read(path).expect("read the cargo-hermetic binary");
    let file = object::File::parse(&*data).expect("parse the cargo-hermetic binary");
    let exported: Vec<&str> = file
        .dynamic_symbols()
        .filter(|s| s.is_definition())
        .filter_map(|s| s.name().ok())
        // The C runtime's own markers (`_IO_stdin_used`, `__data_start`) are not interposers.
        .filter(|name| !name.starts_with('_'))
        .collect();
    assert!(
        exported.is_empty(),
        "{path} exports {} symbols, e.g. {:?}: the engine links code that interposes libc",
        exported.len(),
        &exported[..exported.len().min(10)]
    );
}
