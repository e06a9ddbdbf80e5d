//! `triangle::classify`, `is_right` and `perimeter` on three `u32`s from the fuzzer's bytes.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let mut words = [0u32; 3];
    for (i, w) in words.iter_mut().enumerate() {
        let mut b = [0u8; 4];
        for (j, byte) in b.iter_mut().enumerate() {
            *byte = data.get(i * 4 + j).copied().unwrap_or(0);
        }
        *w = u32::from_le_bytes(b);
    }
    let [a, b, c] = words;
    let _ = triangle::classify(a, b, c);
    let _ = triangle::is_right(a, b, c);
    let _ = triangle::perimeter(words);
});
