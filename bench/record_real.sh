#!/usr/bin/env bash
# Record-mode yield on real crates: copies each crate from cargo's registry cache into a temp
# dir and runs `cargo hermetic record --test --dry-run --report-json R` on it (release engine),
# then prints, per crate, calls traced, calls shown by passing tests, %, tests written and the
# top skip reasons. A quick measuring aid; `record_yield --real` is the benchmark proper.
# Usage: bench/record_real.sh [CRATE-VERSION ...]   (default: the crates below)
# Env: CLI (default target/release/cargo-hermetic), TOP (skip reasons shown, default 8),
#      HARNESS (the test harness's arguments, default --test-threads=1: with several threads
#      a function may be captured more than 64 times, so figures vary from run to run),
#      KEEP=1 keeps the work directory.
set -euo pipefail
cd "$(dirname "$0")/.."
cli="$(realpath "${CLI:-target/release/cargo-hermetic}")"
top="${TOP:-8}"
harness="${HARNESS---test-threads=1}"
crates=("$@")
[[ ${#crates[@]} -gt 0 ]] || crates=(strsim-0.11.1 semver-1.0.28 heck-0.5.0 either-1.15.0 itoa-1.0.18
  oorandom-11.1.5 number_prefix-0.4.0 fastrand-2.5.0 crc32fast-1.5.4)
work="$(mktemp -d /tmp/hermetic-record-real.XXXXXX)"
target="$PWD/target/hermetic-bench-record"
registry="${CARGO_HOME:-$HOME/.cargo}/registry/src"
for krate in "${crates[@]}"; do
  src="$(ls -d "$registry"/*/"$krate" 2>/dev/null | head -1 || true)"
  if [[ -z "$src" ]]; then
    echo "== $krate: not in $registry (fetch it with cargo first)"
    continue
  fi
  cp -r "$src" "$work/$krate"
  # The published package is read-only in the cache and may ship a lock file of its own.
  chmod -R u+w "$work/$krate"
  report="$work/$krate.json"
  start=$(date +%s)
  if ! (cd "$work" && CARGO_HERMETIC_TARGET_DIR="$target" "$cli" hermetic record --test --quiet \
      --dry-run --manifest-path "$krate/Cargo.toml" --report-json "$report" -- $harness \
      >"$work/$krate.out" 2>"$work/$krate.err"); then
    echo "== $krate: FAILED ($(tail -3 "$work/$krate.err" | tr '\n' ' '))"
    continue
  fi
  jq -r --arg k "$krate" --argjson top "$top" --arg s "$(( $(date +%s) - start ))" '
    "== \($k): traced \(.calls_traced), tested \(.calls_tested) (\(.calls_tested_percent * 10 | round / 10)%), tests \(.tests_emitted), \($s) s",
    ([.calls_skipped[] | {r: (.reason | sub("`[^`]*`"; "`..`"; "g")), c: .calls}]
      | group_by(.r) | map({r: .[0].r, c: (map(.c) | add)}) | sort_by(-.c) | .[:$top][]
      | "   \(.c) x \(.r)")' "$report"
done
[[ "${KEEP:-}" == 1 ]] && echo "work directory kept: $work" || rm -rf "$work"
