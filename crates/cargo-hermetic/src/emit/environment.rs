//! The environment of a test in Rust: an `Env::new()...enter()` prelude that sets up what the
//! test needs, and assertions on what the code left in it (files written or removed).

use crate::test_case::Assertion;
use hermetic_protocol::{EnvReport, EnvSpec, FileMode};
use proc_macro2::{Literal, TokenStream};
use quote::quote;

/// The variable that holds the environment guard.
pub const ENV_VAR: &str = "env";

/// Whether the test must run in a virtual environment: it sets one up, or the code touched
/// the environment (then the defaults — no files, no variables, a fixed clock — matter too).
pub fn needed(spec: &EnvSpec, report: &EnvReport) -> bool {
    !spec.is_empty() || !report.accesses.is_empty()
}

/// `let env = hermetic::Env::new()....enter();` (`_env` when nothing is checked afterwards).
pub fn prelude(spec: &EnvSpec, checked: bool) -> TokenStream {
    let mut calls = Vec::new();
    for d in &spec.dirs {
        calls.push(quote!(.dir(#d)));
    }
    for f in &spec.files {
        let path = &f.path;
        let contents = bytes(&f.contents);
        calls.push(match f.mode {
            FileMode::Normal => quote!(.file(#path, #contents)),
            FileMode::ReadOnly => quote!(.read_only_file(#path, #contents)),
            FileMode::Unreadable => {
                quote!(.file_error(#path, std::io::ErrorKind::PermissionDenied))
            }
        });
    }
    for (k, v) in &spec.vars {
        calls.push(quote!(.var(#k, #v)));
    }
    if let Some(stdin) = &spec.stdin {
        let stdin = bytes(stdin);
        calls.push(quote!(.stdin(#stdin)));
    }
    if let Some(secs) = spec.now_secs {
        let secs = Literal::u64_unsuffixed(secs);
        calls.push(quote!(.now(std::time::UNIX_EPOCH + std::time::Duration::from_secs(#secs))));
    }
    if let Some(seed) = spec.seed {
        let seed = Literal::u64_unsuffixed(seed);
        calls.push(quote!(.seed(#seed)));
    }
    if !spec.random_bytes.is_empty() {
        let bytes = byte_string(&spec.random_bytes);
        calls.push(quote!(.random_bytes(#bytes)));
    }
    if let Some((k0, k1)) = spec.hash_keys {
        let (k0, k1) = (hex_u64(k0), hex_u64(k1));
        calls.push(quote!(.hash_keys(#k0, #k1)));
    }
    let var = if checked { quote!(env) } else { quote!(_env) };
    quote!(let #var = hermetic::Env::new() #(#calls)* .enter();)
}

/// Assertions on what the code left: the files it wrote or removed, then what it wrote to
/// fd 1 and fd 2 (output of the print macros is libtest's, under `cargo test`, and never
/// reaches them: see [`output_checks`]).
pub fn checks(
    report: &EnvReport,
    keep: &dyn Fn(&Assertion) -> bool,
) -> Vec<(Assertion, TokenStream)> {
    let (assert_eq, assert) = (super::layout::assert_eq(), super::layout::assert());
    let files = report.files.iter().map(|(path, contents)| {
        let check = match contents {
            Some(data) => match std::str::from_utf8(data) {
                Ok(text) => quote!(#assert_eq(env.file_string(#path).as_deref(), Some(#text));),
                Err(_) => {
                    let data = Literal::byte_string(data);
                    quote!(#assert_eq(env.file_contents(#path).as_deref(), Some(&#data[..]));)
                }
            },
            None => quote!(#assert(!env.exists(#path));),
        };
        (Assertion::File(path.clone()), check)
    });
    let dirs = report.dirs.iter().map(|path| {
        (
            Assertion::File(path.clone()),
            quote!(#assert(env.is_dir(#path));),
        )
    });
    files
        .chain(dirs)
        .chain(output_checks(report))
        .filter(|(a, _)| keep(a))
        .collect()
}

/// `assert_eq!(env.stdout_string(), "..")` and the same for stderr, for output the code wrote
/// through fd 1 and 2 itself (`writeln!(io::stdout(), ..)`, a C library). Such a test passes
/// under libtest's capture; whether it also passes without (`--nocapture`, where the print
/// macros reach fd 1 too) verification checks.
pub fn output_checks(report: &EnvReport) -> Vec<(Assertion, TokenStream)> {
    let assert_eq = super::layout::assert_eq();
    let stream = |name: &str, data: &[u8]| {
        if data.is_empty() {
            return None;
        }
        Some(match std::str::from_utf8(data) {
            Ok(text) => {
                let read = quote::format_ident!("{name}_string");
                quote!(#assert_eq(env.#read(), #text);)
            }
            Err(_) => {
                let read = quote::format_ident!("{name}");
                let data = Literal::byte_string(data);
                quote!(#assert_eq(env.#read(), #data);)
            }
        })
    };
    [
        (Assertion::Stdout, "stdout", &report.stdout),
        (Assertion::Stderr, "stderr", &report.stderr),
    ]
    .into_iter()
    .filter_map(|(a, name, data)| Some((a, stream(name, data)?)))
    .collect()
}

/// Random bytes a line of a byte string holds; longer strings go on, one such line after
/// another, after a `\` that ends the line (Rust skips it, the line break and the next line's
/// indentation), so a long stream stays a block of even lines.
const BYTES_PER_LINE: usize = 16;

/// Random bytes as a byte string of `\x` escapes only (printable ones would make it ragged).
fn byte_string(data: &[u8]) -> Literal {
    let mut text = String::from("b\"");
    for (i, chunk) in data.chunks(BYTES_PER_LINE).enumerate() {
        if i > 0 {
            text.push_str("\\\n            ");
        }
        for b in chunk {
            text.push_str(&format!("\\x{b:02x}"));
        }
    }
    text.push('"');
    text.parse().expect("a byte string literal")
}

/// `0x0123_4567_89ab_cdef`: hash keys are bit patterns, not quantities.
fn hex_u64(k: u64) -> Literal {
    let digits = format!("{k:016x}");
    let text = format!(
        "0x{}_{}_{}_{}",
        &digits[..4],
        &digits[4..8],
        &digits[8..12],
        &digits[12..]
    );
    text.parse().expect("an integer literal")
}

/// Text as a string literal, other bytes as a byte string.
fn bytes(data: &[u8]) -> TokenStream {
    match std::str::from_utf8(data) {
        Ok(text) => quote!(#text),
        Err(_) => {
            let lit = Literal::byte_string(data);
            quote!(#lit)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hermetic_protocol::{AccessReport, FileSpec};

    #[test]
    fn prelude_lists_the_setup_in_a_fixed_order() {
        let spec = EnvSpec {
            files: vec![FileSpec {
                path: "/etc/app.conf".into(),
                contents: b"port = 1\n".to_vec(),
                mode: FileMode::ReadOnly,
            }],
            dirs: vec!["/var/data".into()],
            vars: vec![("APP_HOME".into(), "/etc".into())],
            stdin: Some(b"x\n".to_vec()),
            now_secs: Some(1_700_000_000),
            seed: Some(7),
            ..EnvSpec::default()
        };
        let text = prelude(&spec, true).to_string();
        assert_eq!(
            text,
            "let env = hermetic :: Env :: new () . dir (\"/var/data\") . read_only_file (\"/etc/app.conf\" , \"port = 1\\n\") \
             . var (\"APP_HOME\" , \"/etc\") . stdin (\"x\\n\") \
             . now (std :: time :: UNIX_EPOCH + std :: time :: Duration :: from_secs (1700000000)) . seed (7) . enter () ;"
        );
    }

    #[test]
    fn random_bytes_are_escapes_in_even_lines_and_keys_hex() {
        let spec = EnvSpec {
            random_bytes: (0..20).collect(),
            hash_keys: Some((0x0123_4567_89ab_cdef, 1)),
            ..EnvSpec::default()
        };
        let text = prelude(&spec, false).to_string();
        assert!(
            text.contains(
                ". random_bytes (b\"\\x00\\x01\\x02\\x03\\x04\\x05\\x06\\x07\\x08\\x09\\x0a\\x0b\\x0c\\x0d\\x0e\\x0f\\\n            \\x10\\x11\\x12\\x13\")"
            ),
            "{text}"
        );
        assert!(
            text.contains(". hash_keys (0x0123_4567_89ab_cdef , 0x0000_0000_0000_0001)"),
            "{text}"
        );
        // What the literal means is the bytes.
        let lit: syn::LitByteStr =
            syn::parse_str(&byte_string(&spec.random_bytes).to_string()).unwrap();
        assert_eq!(lit.value(), spec.random_bytes);
    }

    #[test]
    fn output_through_fd_1_and_2_is_checked_as_text_or_bytes() {
        let report = EnvReport {
            stdout: b"hello\n".to_vec(),
            stderr: vec![0xff],
            ..EnvReport::default()
        };
        let checks: Vec<String> = checks(&report, &|_| true)
            .iter()
            .map(|(_, c)| c.to_string())
            .collect();
        assert_eq!(
            checks,
            [
                "ASSERT_EQ_ (env . stdout_string () , \"hello\\n\") ;",
                "ASSERT_EQ_ (env . stderr () , b\"\\xFF\") ;"
            ]
        );
        assert!(output_checks(&EnvReport::default()).is_empty());
    }

    #[test]
    fn written_and_removed_files_are_checked() {
        let report = EnvReport {
            accesses: vec![AccessReport::PathWritten {
                path: "/out".into(),
            }],
            files: vec![
                ("/out".into(), Some(b"done\n".to_vec())),
                ("/old".into(), None),
            ],
            dirs: vec!["/made".into()],
            stdout: vec![],
            stderr: vec![],
        };
        let checks: Vec<String> = checks(&report, &|_| true)
            .iter()
            .map(|(_, c)| c.to_string())
            .collect();
        assert_eq!(
            checks[0],
            "ASSERT_EQ_ (env . file_string (\"/out\") . as_deref () , Some (\"done\\n\")) ;"
        );
        assert_eq!(checks[1], "ASSERT_ (! env . exists (\"/old\")) ;");
        // A directory the code made is checked as one, not as a file that is gone.
        assert_eq!(checks[2], "ASSERT_ (env . is_dir (\"/made\")) ;");
        assert!(needed(&EnvSpec::default(), &report));
        assert!(!needed(&EnvSpec::default(), &EnvReport::default()));
    }
}
