#!/usr/bin/env bash
# bench/run.sh - onnxfix scan speed against its peers, in one run, as ratios.
#
# usage: bench/run.sh [CORPUS_DIR]        (default: ../corpus next to the repository)
#
# Builds the corpus if missing (../shared/bench/build_corpus.py: pinned wheels of
# transformers, timm, torchvision; model code only), makes a benchmark venv if missing
# (BENCH_VENV, default ../bench-venv: torchfix, ruff, libcst), then times with
# ../shared/bench/altbench.py (alternating rounds, whole processes, medians):
#   1. SUBSET (default torchvision): onnxfix cold and warm, TorchFix, the one-process libcst
#      parse floor, ruff --select ALL --no-cache
#   2. the whole corpus: onnxfix cold and warm, ruff, the libcst floor (TorchFix only with
#      FULL_TORCHFIX=1: it takes ~40 min a run)
#   3. one file: onnxfix and ruff on a file with no finding and on modeling_bert.py
# environment: ONNXFIX (the onnxfix command; default: the repo's .venv/bin/onnxfix),
#   SHARED (default ../shared/bench), RUNS_SUBSET=3 RUNS_FULL=1 RUNS_ONE=10, SKIP_FULL=1,
#   SKIP_SUBSET=1, SKIP_ONE=1 (run parts only),
#   OUT (folder for the raw JSON; default bench/out)
# "cold" starts from an empty cache (and writes it); "warm" re-runs on the unchanged corpus.
# The corpus is never written to: caches live in a temporary folder.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
SHARED=${SHARED:-$(cd "$REPO/.." && pwd)/shared/bench}
CORPUS=${1:-$(cd "$REPO/.." && pwd)/corpus}
BENCH_VENV=${BENCH_VENV:-$(cd "$REPO/.." && pwd)/bench-venv}
ONNXFIX=${ONNXFIX:-$REPO/.venv/bin/onnxfix}
SUBSET=${SUBSET:-torchvision}
OUT=${OUT:-$HERE/out}
mkdir -p "$OUT"

if [ ! -f "$CORPUS/CORPUS.tsv" ]; then
  echo "== building the corpus in $CORPUS" >&2
  tmp="$CORPUS.tmp.$$"
  python3 "$SHARED/build_corpus.py" "$tmp" --wheels "$tmp.wheels" >&2
  rm -rf "$tmp.wheels"
  mv "$tmp" "$CORPUS"          # CORPUS.tsv appears only when the corpus is complete
fi
if [ ! -x "$BENCH_VENV/bin/torchfix" ] || [ ! -x "$BENCH_VENV/bin/ruff" ]; then
  echo "== making $BENCH_VENV (torchfix, ruff)" >&2
  python3 -m venv "$BENCH_VENV"
  "$BENCH_VENV/bin/pip" install -q torchfix ruff
fi
PY="$BENCH_VENV/bin/python"
# Byte-compile onnxfix as a pip install does (an editable install under
# PYTHONDONTWRITEBYTECODE=1 would recompile every module at every start: +0.1 s a run).
ONNXFIX_PY=$(head -1 "$(command -v "$ONNXFIX")" | sed 's/^#!//')
"$ONNXFIX_PY" -m compileall -q "$("$ONNXFIX_PY" -c 'import onnxfix, os; print(os.path.dirname(onnxfix.__file__))')" >/dev/null
RUFF="$BENCH_VENV/bin/ruff"
CACHES=$(mktemp -d)
trap 'rm -rf "$CACHES"' EXIT

q() { printf '%q' "$1"; }
versions() {
  echo "onnxfix: $("$ONNXFIX" --version)   torchfix: $("$PY" -m pip show torchfix 2>/dev/null | sed -n 's/^Version: //p')   ruff: $("$RUFF" --version)"
  echo "cores: $(getconf _NPROCESSORS_ONLN)   load: $(cut -d' ' -f1-3 /proc/loadavg)   $(date -u +%FT%TZ)"
}

# bench LABEL RUNS TARGET with-torchfix
bench() {
  local label=$1 runs=$2 target=$3 torchfix=$4
  local t; t=$(q "$target")
  local cmds=(
    --cmd onnxfix-cold "rm -rf $CACHES/$label-cold && $(q "$ONNXFIX") -q --cache-dir $CACHES/$label-cold $t"
    --cmd onnxfix-warm "$(q "$ONNXFIX") -q --cache-dir $CACHES/$label-warm $t"
    --cmd ruff-all-nocache "$(q "$RUFF") check --isolated --select ALL --no-cache --exit-zero $t"
    --cmd libcst-floor "$(q "$PY") $(q "$SHARED/scan_floor.py") libcst $t"
  )
  local baselines=(--baseline libcst-floor --baseline ruff-all-nocache)
  if [ "$torchfix" = 1 ]; then
    cmds+=(--cmd torchfix "$(q "$PY") -m torchfix $t")
    baselines+=(--baseline torchfix)
  fi
  echo "== $label: $target, $runs counted run(s) after 1 warm-up round"
  (cd "$CORPUS" && "$PY" "$SHARED/altbench.py" -n "$runs" --warmup 1 --lines-of "$target" \
     "${baselines[@]}" --json "$OUT/$label.json" "${cmds[@]}")
}

one_file() {
  local label=$1 file=$2
  local f; f=$(q "$file")
  echo "== one file ($label): $file"
  (cd "$CORPUS" && "$PY" "$SHARED/altbench.py" -n "${RUNS_ONE:-10}" --warmup 1 --lines-of "$file" \
     --baseline ruff-all-nocache --json "$OUT/one-$label.json" \
     --cmd onnxfix "$(q "$ONNXFIX") -q --cache-dir $CACHES/one-$label $f" \
     --cmd onnxfix-nocache "$(q "$ONNXFIX") -q --no-cache $f" \
     --cmd ruff-all-nocache "$(q "$RUFF") check --isolated --select ALL --no-cache --exit-zero $f" \
     --cmd ruff-default "$(q "$RUFF") check --isolated --no-cache --exit-zero $f")
}

versions
cat "$CORPUS/CORPUS.tsv"
if [ "${SKIP_SUBSET:-0}" != 1 ]; then
  bench subset "${RUNS_SUBSET:-3}" "$SUBSET" 1
fi
if [ "${SKIP_ONE:-0}" != 1 ]; then
  one_file clean torchvision/ops/_utils.py
  one_file bert transformers/models/bert/modeling_bert.py
fi
if [ "${SKIP_FULL:-0}" != 1 ]; then
  bench full "${RUNS_FULL:-1}" . "${FULL_TORCHFIX:-0}"
fi
