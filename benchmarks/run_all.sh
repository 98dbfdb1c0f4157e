#!/usr/bin/env bash
# Run every benchmark once, one after the other, for the README's benchmark table (issue 10).
# Usage: bash benchmarks/run_all.sh [--quick] > bench.txt   (about 30-40 min in full on 2 quiet cores)
# Run it on a quiet machine: each script prints the load average at its start and end.
set -u
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1
quick="${1:-}"
for b in bench_compile bench_mask bench_scale bench_ov_compile bench_memory bench_generate bench_tokens bench_llamacpp bench_parse; do
    echo "=================================================================== $b $quick"
    extra=""
    if [ "$b" = bench_generate ]; then
        extra="--vs-trivial"
        if [ -z "$quick" ]; then extra="$extra --vs-llamacpp"; fi
    fi
    python "benchmarks/$b.py" $quick $extra || echo "($b exited with $?)"
done
