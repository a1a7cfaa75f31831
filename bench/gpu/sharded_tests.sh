#!/usr/bin/env bash
# Device tool: test files on the GPU in $SHARDS (6) pytest processes side by side, the
# tests dealt round-robin, since the NVIDIA compiler's cold builds (one a parameter set)
# leave one process at ~2.5 s a test. Each shard's output in $out/tests_N.txt, the sum
# at the end.  OUT=dir [SHARDS=6] bash bench/gpu/sharded_tests.sh tests/test_a.py ...
set -uo pipefail
source bench/gpu/steps.sh
shards=${SHARDS:-6}
python3 -m pytest -q --collect-only -p no:cacheprovider "$@" | grep "::" > "$out/collected.txt"
echo "$(wc -l < "$out/collected.txt") tests in $shards shards"
for i in $(seq 0 $((shards - 1))); do
  awk -v n="$shards" -v i="$i" 'NR % n == i' "$out/collected.txt" > "/tmp/shard_$i.txt"
  xargs -d '\n' -a "/tmp/shard_$i.txt" python3 -m pytest -q -rf --tb=line -p no:cacheprovider \
    > "$out/tests_$i.txt" 2>&1 &
done
wait
tail -qn 1 "$out"/tests_*.txt
grep -h "^FAILED\|Error" "$out"/tests_*.txt | head -20
