//! The parsing fixture's entry points on the fuzzer's bytes: the first byte picks the
//! function, the rest is its input (text where it takes text).
#![no_main]

use parsing::{config, date, frame, session, tokenize};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    match pick % 8 {
        0 => drop(config::parse(&text)),
        1 => {
            let token = rest.iter().take(8).fold(0u64, |n, &b| n << 8 | u64::from(b));
            let action = String::from_utf8_lossy(rest.get(8..).unwrap_or_default());
            drop(config::maintenance(token, &action));
        }
        2 => drop(tokenize::parse_command_line(&text)),
        3 => drop(date::parse_date(&text)),
        4 => drop(date::parse_timestamp(&text)),
        5 => {
            let mut s = session::Session::new();
            for line in text.lines() {
                drop(s.feed(line));
            }
        }
        6 => drop(frame::read_record(rest)),
        _ => drop(date::parse_time(&text)),
    }
});
