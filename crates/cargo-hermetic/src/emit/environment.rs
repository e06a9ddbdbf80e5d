//! The environment of a test in Rust: an `Env::new()...enter()` prelude that sets up what the
//! test needs, and assertions on what the code left in it (files written or removed).

use hermetic_driver::protocol::{EnvReport, EnvSpec, FileMode};
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
    let var = if checked { quote!(env) } else { quote!(_env) };
    quote!(let #var = hermetic::Env::new() #(#calls)* .enter();)
}

/// Assertions on the files the code wrote or removed.
pub fn checks(report: &EnvReport) -> Vec<TokenStream> {
    let (assert_eq, assert) = (super::layout::assert_eq(), super::layout::assert());
    report
        .files
        .iter()
        .map(|(path, contents)| match contents {
            Some(data) => match std::str::from_utf8(data) {
                Ok(text) => quote!(#assert_eq(env.file_string(#path).as_deref(), Some(#text));),
                Err(_) => {
                    let data = Literal::byte_string(data);
                    quote!(#assert_eq(env.file_contents(#path).as_deref(), Some(&#data[..]));)
                }
            },
            None => quote!(#assert(!env.exists(#path));),
        })
        .collect()
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
    use hermetic_driver::protocol::{AccessReport, FileSpec};

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
    fn written_and_removed_files_are_checked() {
        let report = EnvReport {
            accesses: vec![AccessReport::PathWritten {
                path: "/out".into(),
            }],
            files: vec![
                ("/out".into(), Some(b"done\n".to_vec())),
                ("/old".into(), None),
            ],
            stdout: vec![],
            stderr: vec![],
        };
        let checks: Vec<String> = checks(&report).iter().map(|c| c.to_string()).collect();
        assert_eq!(
            checks[0],
            "ASSERT_EQ_ (env . file_string (\"/out\") . as_deref () , Some (\"done\\n\")) ;"
        );
        assert_eq!(checks[1], "ASSERT_ (! env . exists (\"/old\")) ;");
        assert!(needed(&EnvSpec::default(), &report));
        assert!(!needed(&EnvSpec::default(), &EnvReport::default()));
    }
}
