#!/bin/bash
# The cost of each congestion control (issue 12, Performance): instructions (callgrind) and
# engine events of a 10 MB transfer over the TULIP chain at PER 0.01, and the reference run
# (`examples/whole_run.rs`: 10 MB NewReno at PER 0.05) to compare with main's count.
#
#     bash validation/cc_cost.sh [OUT.md]
#
# Needs valgrind. Not part of CI.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-validation/results/cc-cost.md}
tmp=$(mktemp -d)
cargo build -q --release -p lastmile-core --example cc_run --example whole_run
mkdir -p "$(dirname "$out")"
{
  echo "| congestion control | instructions (callgrind) | events | throughput b/s | timeouts |"
  echo "|---|---|---|---|---|"
  for cc in reno vegas westwood_plus veno fast illinois cubic bbr santa_cruz; do
    line=$(valgrind --tool=callgrind --callgrind-out-file="$tmp/$cc.out" \
      target/release/examples/cc_run "$cc" 10MB 0.01 2>"$tmp/$cc.err")
    ir=$(grep -o 'Collected : [0-9]*' "$tmp/$cc.err" | grep -o '[0-9]*$')
    events=$(echo "$line" | grep -o 'events=[0-9]*' | cut -d= -f2)
    bps=$(echo "$line" | grep -o 'throughput_bps=[0-9]*' | cut -d= -f2)
    to=$(echo "$line" | grep -o 'timeouts=[0-9]*' | cut -d= -f2)
    echo "| $cc | $ir | $events | $bps | $to |"
  done
  valgrind --tool=callgrind --callgrind-out-file="$tmp/ref.out" \
    target/release/examples/whole_run 10MB 1 >/dev/null 2>"$tmp/ref.err"
  echo
  echo "Reference run (whole_run: 10 MB NewReno, PER 0.05): $(grep -o 'Collected : [0-9]*' "$tmp/ref.err" | grep -o '[0-9]*$') instructions."
} | tee "$out"
rm -rf "$tmp"
