//! The record log the runtime writes (`hermetic::record`): one JSON line per captured call, in
//! the order calls returned, and a line of counts per process that exited normally.

use anyhow::{Context, Result};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

/// One captured call.
#[derive(Debug, Clone, Deserialize, PartialEq)]
pub struct CallRecord {
    /// The callable's index in the cluster.
    pub site: usize,
    /// `Debug` text of each argument (the receiver first); `None`: no `Debug`.
    pub args: Vec<Option<String>>,
    /// `Display` text of the arguments the probe asked it of (`[index, text]`): values whose
    /// `Debug` cannot be read back, when the text parses back to an equal value.
    #[serde(default)]
    pub shown: Vec<(usize, String)>,
    /// `Debug` text of the result; `None` when it has no `Debug` or the call panicked.
    #[serde(default)]
    pub ret: Option<String>,
    /// `Display` text of the result, as for `shown`.
    #[serde(default)]
    pub ret_shown: Option<String>,
    /// The panic message, when the call panicked.
    #[serde(default)]
    pub panic: Option<String>,
    /// What the call (and the calls it made) read and wrote, in order.
    pub events: Vec<Event>,
    /// The call read more than record mode keeps: the events are incomplete.
    #[serde(default)]
    pub overflow: bool,
    /// What the proxies of its trait-typed arguments returned, in order.
    #[serde(default)]
    pub proxies: Vec<ProxyEvent>,
}

/// One thing a recording proxy logged (`hermetic::record::Tap`). Nodes are the call's proxies:
/// those of its arguments, and those of the boxes their methods returned.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(tag = "k", rename_all = "lowercase")]
pub enum ProxyEvent {
    /// Node `node` stands for argument `arg` (the receiver counts).
    Arg { node: u32, arg: usize },
    /// Its method `method` (the mock's set-up method of that index) returned a value with this
    /// `Debug` text (`None`: without `Debug`). `args`: the `Debug` text of each argument, for
    /// methods a recorded mock tells apart by arguments (`mock_syntax::by_args`).
    Ret {
        node: u32,
        method: usize,
        #[serde(default)]
        args: Option<Vec<Option<String>>>,
        text: Option<String>,
    },
    /// ... returned a box, which became node `child`.
    Box {
        node: u32,
        method: usize,
        #[serde(default)]
        args: Option<Vec<Option<String>>>,
        child: u32,
    },
    /// ... did not return before the call did (it panicked).
    Open { node: u32, method: usize },
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(tag = "k", rename_all = "lowercase")]
pub enum Event {
    /// A path opened for reading or checked, and what was there.
    Path {
        path: String,
        state: PathState,
        #[serde(default)]
        data: Option<Bytes>,
    },
    /// A path opened for writing, and what was there when the call returned.
    Wrote {
        path: String,
        state: PathState,
        #[serde(default)]
        data: Option<Bytes>,
    },
    Var {
        name: String,
        value: Option<String>,
    },
    Stdin {
        data: Bytes,
    },
    Now {
        secs: u64,
    },
    /// Random bytes the call drew (getrandom, getentropy, the random devices); `None` from a
    /// runtime that did not log them.
    Random {
        #[serde(default)]
        hex: Option<Hex>,
    },
    /// std's `HashMap` keys, drawn by the thread's first map inside the call.
    HashKeys {
        hex: Hex,
    },
}

/// Bytes the runtime logged in hex.
#[derive(Debug, Clone, PartialEq)]
pub struct Hex(pub Vec<u8>);

impl<'de> Deserialize<'de> for Hex {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Hex, D::Error> {
        let text = String::deserialize(d)?;
        let digits = text.as_bytes();
        if digits.len() % 2 != 0 {
            return Err(serde::de::Error::custom("odd number of hex digits"));
        }
        digits
            .chunks(2)
            .map(|pair| {
                std::str::from_utf8(pair)
                    .ok()
                    .and_then(|p| u8::from_str_radix(p, 16).ok())
                    .ok_or_else(|| serde::de::Error::custom("not hex"))
            })
            .collect::<Result<_, _>>()
            .map(Hex)
    }
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq)]
#[serde(rename_all = "lowercase")]
pub enum PathState {
    Missing,
    Dir,
    File,
    /// A device, a pipe, a file too big to log or unreadable: not replayed.
    Other,
}

/// Text, or bytes that are not UTF-8.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum Bytes {
    Text(String),
    Raw(Vec<u8>),
}

impl Bytes {
    pub fn to_vec(&self) -> Vec<u8> {
        match self {
            Bytes::Text(s) => s.as_bytes().to_vec(),
            Bytes::Raw(b) => b.clone(),
        }
    }
}

#[derive(Deserialize)]
struct Counts {
    counts: Vec<(usize, u64)>,
}

/// Everything one recorded run logged.
#[derive(Debug, Default)]
pub struct Log {
    pub calls: Vec<CallRecord>,
    /// Calls per callable, summed over the processes that exited normally.
    pub counts: BTreeMap<usize, u64>,
    /// Whether any process wrote its counts (a crashed one does not).
    pub counted: bool,
    /// Lines that could not be read (a line cut short by a crash).
    pub unreadable: usize,
}

pub fn read(path: &Path) -> Result<Log> {
    let text = match std::fs::read(path) {
        Ok(t) => String::from_utf8_lossy(&t).into_owned(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Log::default()),
        Err(e) => return Err(e).with_context(|| format!("read {}", path.display())),
    };
    Ok(parse(&text))
}

pub fn parse(text: &str) -> Log {
    let mut log = Log::default();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        if let Ok(c) = serde_json::from_str::<Counts>(line) {
            log.counted = true;
            for (site, n) in c.counts {
                *log.counts.entry(site).or_default() += n;
            }
        } else if let Ok(call) = serde_json::from_str::<CallRecord>(line) {
            log.calls.push(call);
        } else {
            log.unreadable += 1;
        }
    }
    log
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_calls_and_counts() {
        let log = parse(concat!(
            "{\"site\":2,\"args\":[\"\\\"X\\\"\",null],\"ret\":\"Some(1)\",\"events\":[",
            "{\"k\":\"var\",\"name\":\"X\",\"value\":null},",
            "{\"k\":\"path\",\"path\":\"a.csv\",\"state\":\"file\",\"data\":[255]},",
            "{\"k\":\"now\",\"secs\":5},{\"k\":\"random\"},",
            "{\"k\":\"random\",\"hex\":\"00ff10\"},{\"k\":\"hashkeys\",\"hex\":\"0a\"}]}\n",
            "{\"site\":3,\"args\":[],\"panic\":\"boom\",\"proxies\":[",
            "{\"k\":\"arg\",\"node\":0,\"arg\":1},{\"k\":\"ret\",\"node\":0,\"method\":2,\"text\":null},",
            "{\"k\":\"box\",\"node\":0,\"method\":0,\"args\":[\"\\\"q\\\"\",null],\"child\":1},",
            "{\"k\":\"open\",\"node\":1,\"method\":0,\"args\":[]}",
            "],\"events\":[]}\n",
            "{\"counts\":[[2,10],[3,1]]}\n",
            "{\"site\":3,\"args\":[],\"pan"
        ));
        assert_eq!(log.calls.len(), 2);
        assert_eq!(log.calls[0].ret.as_deref(), Some("Some(1)"));
        assert_eq!(log.calls[0].args[1], None);
        assert_eq!(
            log.calls[0].events[1],
            Event::Path {
                path: "a.csv".into(),
                state: PathState::File,
                data: Some(Bytes::Raw(vec![255]))
            }
        );
        assert_eq!(log.calls[0].events[3], Event::Random { hex: None });
        assert_eq!(
            log.calls[0].events[4],
            Event::Random {
                hex: Some(Hex(vec![0, 255, 16]))
            }
        );
        assert_eq!(
            log.calls[0].events[5],
            Event::HashKeys { hex: Hex(vec![10]) }
        );
        assert_eq!(log.calls[1].panic.as_deref(), Some("boom"));
        assert_eq!(
            log.calls[1].proxies,
            vec![
                ProxyEvent::Arg { node: 0, arg: 1 },
                ProxyEvent::Ret {
                    node: 0,
                    method: 2,
                    args: None,
                    text: None
                },
                ProxyEvent::Box {
                    node: 0,
                    method: 0,
                    args: Some(vec![Some("\"q\"".into()), None]),
                    child: 1
                },
                ProxyEvent::Open { node: 1, method: 0 },
            ]
        );
        assert!(log.calls[0].proxies.is_empty());
        assert_eq!(log.counts[&2], 10);
        assert!(log.counted);
        assert_eq!(log.unreadable, 1);
    }
}
