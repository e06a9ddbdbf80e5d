//! Record mode: a probed call's reads (file, variable, clock) and writes are logged against it,
//! nested calls included, with its arguments and result as `Debug` text.

use hermetic::record::{enter, Holder, Site, Tap, ViaDebug as _, ViaOpaque as _, Wrap};

static OUTER: Site = Site::new(1);
static INNER: Site = Site::new(2);
static MANY: Site = Site::new(3);
static LOOKUP: Site = Site::new(4);

/// A dependency, and a file-backed implementation of it.
trait Store {
    fn get(&self, key: &str) -> Option<String>;
}

struct FileStore;

impl Store for FileStore {
    fn get(&self, key: &str) -> Option<String> {
        std::fs::read_to_string(key).ok()
    }
}

/// What `cargo hermetic record` generates for `Store`.
struct StoreProxy<H> {
    inner: H,
    tap: Tap,
}

impl<H: Holder> Store for StoreProxy<H>
where
    H::Target: Store,
{
    // The double borrow is the point: it is how proxies pick `Debug` when there is one.
    #[allow(clippy::needless_borrow)]
    fn get(&self, key: &str) -> Option<String> {
        let slot = self.tap.calling(0);
        let ret = Store::get(self.inner.get(), key);
        slot.returned(|w| (&&Wrap(&ret)).capture(w));
        ret
    }
}

/// A probed function with a trait-typed argument: the store's reads are not its own, its
/// direct read of the same path is.
// The double borrow is the point: a trait object without `Debug` is captured as opaque.
#[allow(clippy::needless_borrow)]
fn lookup(store: &dyn Store, key: &str) -> usize {
    let call = enter(&LOOKUP, |w| {
        (&&Wrap(&store)).capture(w);
        (&&Wrap(&key)).capture(w);
    });
    let store = &StoreProxy {
        inner: store,
        tap: call.tap(0),
    };
    let n = store.get(key).map_or(0, |v| v.len()) + store.get("missing").map_or(0, |v| v.len());
    let direct = std::fs::read(key).unwrap().len();
    call.exit(|w| (&&Wrap(&n)).capture(w));
    n + direct
}

/// Reads `path` `n` times and a variable `vars` times.
fn many(path: &str, n: usize, vars: usize) -> usize {
    let call = enter(&MANY, |w| (&&Wrap(&n)).capture(w));
    let mut total = 0;
    for _ in 0..n {
        total += std::fs::read(path).unwrap().len();
    }
    for _ in 0..vars {
        total += std::env::var_os("HERMETIC_RECORD_TEST_VAR").map_or(0, |v| v.len());
    }
    call.exit(|w| (&&Wrap(&total)).capture(w));
    total
}

fn inner(name: &str) -> Option<String> {
    let call = enter(&INNER, |w| (&&Wrap(&name)).capture(w));
    let r = std::env::var(name).ok();
    call.exit(|w| (&&Wrap(&r)).capture(w));
    r
}

fn outer(path: &str, out: &str) -> usize {
    let call = enter(&OUTER, |w| {
        (&&Wrap(&path)).capture(w);
        (&&Wrap(&out)).capture(w);
    });
    let text = std::fs::read_to_string(path).unwrap();
    let extra = inner("HERMETIC_RECORD_TEST_VAR").unwrap_or_default();
    let _ = std::time::SystemTime::now();
    std::fs::write(out, format!("{text}{extra}")).unwrap();
    let r = text.len() + extra.len();
    call.exit(|w| (&&Wrap(&r)).capture(w));
    r
}

#[test]
fn a_probed_call_logs_what_it_read_and_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log.jsonl");
    let input = dir.path().join("in.txt");
    let output = dir.path().join("out.txt");
    std::fs::write(&input, "abc").unwrap();
    // SAFETY: the only test in this binary; no other thread reads the environment yet.
    unsafe {
        std::env::set_var("HERMETIC_RECORD", &log);
        std::env::set_var("HERMETIC_RECORD_TEST_VAR", "xy");
    }
    assert_eq!(outer(input.to_str().unwrap(), output.to_str().unwrap()), 5);
    let text = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines[0].starts_with("{\"site\":2,\"args\":[\"\\\"HERMETIC_RECORD_TEST_VAR\\\"\"],\"ret\":\"Some(\\\"xy\\\")\""), "{text}");
    assert!(
        lines[0].contains("{\"k\":\"var\",\"name\":\"HERMETIC_RECORD_TEST_VAR\",\"value\":\"xy\"}"),
        "{text}"
    );
    let o = lines[1];
    assert!(o.starts_with("{\"site\":1,"), "{text}");
    assert!(o.contains("\"ret\":\"5\""), "{text}");
    assert!(o.contains("\"state\":\"file\",\"data\":\"abc\""), "{text}");
    assert!(
        o.contains("\"k\":\"var\""),
        "the parent includes its child's reads: {text}"
    );
    assert!(o.contains("\"k\":\"now\""), "{text}");
    assert!(o.contains("\"k\":\"wrote\""), "{text}");
    assert!(o.contains("\"data\":\"abcxy\""), "{text}");

    // A file read three times by one call is logged once.
    let before = text.len();
    assert_eq!(many(input.to_str().unwrap(), 3, 0), 9);
    let text = std::fs::read_to_string(&log).unwrap();
    let line = &text[before..];
    assert_eq!(line.matches("\"k\":\"path\"").count(), 1, "{line}");
    assert!(!line.contains("overflow"), "{line}");

    // A call that reads without end is marked, not kept in memory without bound.
    let before = text.len();
    many(input.to_str().unwrap(), 1, 100_001);
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        text[before..].contains("\"overflow\":true"),
        "{}",
        &text[before..before + 200]
    );

    // A trait-typed argument's proxy logs what the store returned; the store's reads are
    // hidden from the call, which still logs the file it read itself.
    let before = text.len();
    assert_eq!(lookup(&FileStore, input.to_str().unwrap()), 6);
    let text = std::fs::read_to_string(&log).unwrap();
    let line = &text[before..];
    assert!(
        line.contains(concat!(
            "\"proxies\":[{\"k\":\"arg\",\"node\":0,\"arg\":0},",
            "{\"k\":\"ret\",\"node\":0,\"method\":0,\"text\":\"Some(\\\"abc\\\")\"},",
            "{\"k\":\"ret\",\"node\":0,\"method\":0,\"text\":\"None\"}]"
        )),
        "{line}"
    );
    assert_eq!(line.matches("\"k\":\"path\"").count(), 1, "{line}");
    assert!(!line.contains("missing"), "the store's read leaked: {line}");
}
