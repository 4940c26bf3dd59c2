#!/usr/bin/env bash
# Writes every README example's output (JSON and the English and Chinese text),
# `validate --format json` on ../shared/validation when present, and a few
# Python calls, one file each, into OUT_DIR, for a byte-for-byte comparison of
# two builds: a refactoring (issue 31) changes none of them.
#   bash scripts/compare-outputs.sh build/gpuplan /tmp/before
#   ... change, rebuild ...
#   bash scripts/compare-outputs.sh build/gpuplan /tmp/after && diff -r /tmp/before /tmp/after
set -uo pipefail
export GPUPLAN_LANG=en  # the language without --lang follows it (else the locale)
export GPUPLAN_TODAY="${GPUPLAN_TODAY:-2026-12-03}"  # price listings age against it (stale after 12 months)
bin="$(realpath "$1")"; out="$2"
cd "$(dirname "$0")/.."
mkdir -p "$out"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
mkdir -p "$work/my-model"
printf '{"model_type":"llama","hidden_size":4096,"intermediate_size":11008,"num_hidden_layers":32,"num_attention_heads":32,"num_key_value_heads":32,"vocab_size":32000,"max_position_embeddings":4096}\n' > "$work/my-model/config.json"
i=0
run() {  # run NAME ARGS...: stdout and exit status of `gpuplan ARGS...` in the scratch folder
  local name="$1"; shift
  (cd "$work" && "$bin" "$@" > "$out/$name.out" 2> "$out/$name.err"; echo "rc $?" >> "$out/$name.err")
  sed -i "s#$work#WORK#g" "$out/$name.out" "$out/$name.err"
  # The planner's own wall time is the one figure that differs between runs.
  sed -i -E 's/(Search took|搜索耗时) [0-9]+ (ms|毫秒)/\1 N \2/' "$out/$name.out" "$out/$name.err"
}
while IFS= read -r line; do
  i=$((i + 1))
  args="${line%%#*}"
  eval "set -- $args"
  shift  # the program name
  n=$(printf '%02d' "$i")
  case "$1" in validate) continue ;; esac
  run "readme-$n-text" "$@"
  run "readme-$n-zh" "$@" --lang zh
  case "$1" in plan) [[ " $* " == *" --export"* ]] && continue ;; esac
  run "readme-$n-json" "$@" --format json
done < <(sed -n '/^```/,/^```/p' README.md | sed -e ':a' -e '/\\$/N; s/\\\n//; ta' | grep -E '^gpuplan ' | sed 's/ > ds.json//')
[ -f "$work/calib.json" ] && cp "$work/calib.json" "$out/calib.json"
if [ -f ../shared/validation/cases.jsonl ]; then
  "$bin" validate ../shared/validation/cases.jsonl --format json > "$out/validate.json" 2> "$out/validate.err"
fi
