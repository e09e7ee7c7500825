#!/usr/bin/env bash
# Every bench in a short smoke mode (a few hundred calls or a fraction of a second per case, no timing
# assertions), so that they keep working as the code changes. CI runs it (`npm run bench:smoke`); the figures it
# prints are not the ones to quote (see docs/benchmarks.md for the real runs).
set -euo pipefail
cd "$(dirname "$0")/.."
run() {
  echo "== bench smoke: $*"
  npx tsx "$@" > /tmp/quadguard-bench-smoke.log 2>&1 || { cat /tmp/quadguard-bench-smoke.log >&2; echo "bench smoke failed: $*" >&2; exit 1; }
  tail -n 3 /tmp/quadguard-bench-smoke.log
}
run bench/overhead.ts 150 --pairs 100
run bench/throughput.ts 0.5
run bench/throughput.ts 0.5 --levels 1 --against .
run bench/pipeline-scaling.ts 60
run bench/proxy-latency.ts 200 20
run bench/policy-eval.ts
run bench/store-append.ts --rows 500
run bench/audit-append.ts --pairs 200 --rounds 1
run bench/audit-append.ts --pairs 100 --rounds 2 --against .
run bench/audit-append.ts --pairs 5 --rounds 1 --against . --kb 100
run bench/audit-append.ts --pairs 50 --rounds 2 --against . --journaled
run bench/store.ts --n 200 --concurrency 4
run bench/dataflow.ts 150
run bench/large-result.ts --sizes 1 --rounds 1 --base64-mb 0.2 --busy-mb 1
run bench/large-result.ts --sizes 1 --rounds 1 --base64-mb 0 --busy-mb 0 --pool '{"read_ahead":true,"nice":5}'
run bench/busy-proxy.ts --mb 0.5 --rounds 1 --calls 3 --against . --pool '{"nice":0}' --against-pool '{"read_ahead":true}'
run bench/flow-large.ts --sizes 1 --rounds 1
run bench/store-growth.ts --calls 400 --files 10
run bench/soak.ts --seconds 3 --age-calls 100
run bench/startup.ts --runs 1
run bench/stdio-drive.ts 200 policy --vary 50
run bench/allow-path.ts 200 --warmup 20 --vary 20 --blocks 2
run bench/allow-path.ts 100 --warmup 20 --blocks 2 --untimed
run bench/tracker-path.ts 50 --warmup 10 --blocks 2 --vary 5
run bench/http-drive.ts 1 policy --sessions 2 --warm 0.5 --mix
run bench/http-drive.ts 1 policy --sessions 1 --warm 0.5 --legs --windows 10
run bench/http-front.ts 0.5 --rounds 1 --sessions 2 --warm 0.2
run bench/long-runs.ts --kb 1,2 --only 6
run bench/long-send.ts --kb 40 --rounds 1
run bench/flow-runs.ts --lengths 20,60 --trials 3
run bench/text-cost.ts --sizes 0.05 --base64-mb 0.05 --rounds 1 --against .
run bench/audit-masks.ts --rounds 10 --against .
run bench/audit-masks.ts --base64 --kb 100 --rounds 5 --against .
run bench/scorer.ts --sizes 0.05 --rounds 1
run bench/detector-split.ts --mb 0.05 --base64-mb 0.05 --corpus-mb 0.05 --rounds 1
run bench/flow-store.ts --reads 2 --rounds 1 --hashes 512
run bench/llm-latency.ts 20
run bench/injection-heldout.ts
run bench/injection-fresh-2026-11.ts
# The dev-set benches read ../shared/data/eval/dev, which a fresh clone may not have beside it.
if [ -d ../shared/data/eval/dev ]; then
  run bench/default-book-dev.ts
  run bench/llm-pipeline.ts --limit 20 --latencies 0
fi
echo "bench smoke: every bench ran"
