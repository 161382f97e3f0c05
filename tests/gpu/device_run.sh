#!/usr/bin/env bash
# The GPU run of issue 9 in one call of the device tool (about 4.5 minutes at most):
#
#   here, first:  python benchmarks/gpu_bench.py prepare        (build/gpu-bundle, .gpu_wheels)
#   then:         run(command="bash tests/gpu/device_run.sh", carry=["build/gpu-bundle", ".gpu_wheels"],
#                     timeout_s=300)
#   afterwards:   python benchmarks/gpu_bench.py results-row FILES_AT/bench.json \
#                     --correctness FILES_AT/correctness.json --sanitizer FILES_AT/sanitizer.json \
#                     --api FILES_AT/api_gpu.json --diff FILES_AT/gpu_diff.json \
#                     --backends FILES_AT/backends.json
#
# On the GPU machine it installs the carried pycuda wheels into a temporary site directory (no
# registry there), records the device, driver and CUDA versions, runs every example through
# tests/gpu/run_gpu.py (fresh random inputs, outputs poisoned, float64 references), times the
# bench of benchmarks/gpu_bench.py (copy, lanes matvec and its variants, row sums, row softmax,
# and cupy/cuBLAS), runs every example through the package's Python API with device="gpu" and
# phobos-run --gpu (tests/gpu/api_gpu.py, when the package's wheels were carried), and runs
# compute-sanitizer's racecheck and synccheck on every example when the sanitizer is there and
# works; it also runs generated race-free kernels against the simulator's results
# (tests/gpu/gpu_differential.py). Each step has its own timeout; a step that fails does not stop
# the next. The examples also run on device arrays through the runtime's cupy and cuda.core
# backends. What comes back (at most 8 files, $OUT/NAME): log.txt (everything printed, the
# tables of bench.md and sanitizer.txt included), env.txt, correctness.json, backends.json,
# bench.json, api_gpu.json, gpu_diff.json, sanitizer.json.
#
# DRY_RUN=1 runs the same steps here without a GPU (no install, run_gpu.py and gpu_bench.py with
# --dry-run, the sanitizer's commands printed), writing into $OUT (default build/device-dry-run).
set -u
cd "$(dirname "$0")/../.."
START=$(date +%s)
DRY=${DRY_RUN:-0}
BUNDLE=${BUNDLE:-build/gpu-bundle}
WHEELS=${WHEELS:-.gpu_wheels}
TOTAL_S=${TOTAL_S:-270}                     # everything done by then (the call's limit is 300 s)
if [ "$DRY" = 1 ]; then OUT=${OUT:-build/device-dry-run}; else OUT=${OUT:?the device tool sets OUT}; fi
# the carried wheels are for CPython 3.12: python3 when it is 3.12, else python3.12 when there is one
PY=${PYTHON:-python3}
if [ -z "${PYTHON:-}" ] && ! python3 -c 'import sys; sys.exit(sys.version_info[:2] != (3, 12))' 2>/dev/null \
   && python3.12 -c 'import numpy' >/dev/null 2>&1; then PY=python3.12; fi   # (a pyenv shim may exist and fail)
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1

elapsed() { echo $(( $(date +%s) - START )); }
left() { echo $(( TOTAL_S - $(date +%s) + START )); }
step() {   # step NAME LIMIT_S COMMAND...: run with a timeout (never past TOTAL_S), report its status
  local name=$1 limit=$2; shift 2
  local l; l=$(left); [ "$limit" -gt "$l" ] && limit=$l
  if [ "$limit" -le 5 ]; then echo "=== $name: not run (out of time at $(elapsed) s)"; return 124; fi
  echo "=== $name (at $(elapsed) s, limit $limit s)"
  timeout -k 5 "$limit" "$@"; local rc=$?
  [ $rc -eq 124 ] && echo "=== $name: TIMED OUT after $limit s"
  echo "=== $name: exit $rc (at $(elapsed) s)"
  return $rc
}

install_wheels() {   # install_wheels NAME DEST WHEEL...: pip offline, else unzip (a wheel is what lands in site-packages)
  local name=$1 dest=$2; shift 2
  step "$name install" 60 $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
    --target "$dest" "$@" && return 0
  echo "=== pip failed: unpacking the wheels into $dest instead"
  for w in "$@"; do timeout 30 $PY -m zipfile -e "$w" "$dest" || echo "unpack failed: $w"; done
}

main() {
if [ ! -f "$BUNDLE/cases.json" ] || [ ! -f "$BUNDLE/bench.json" ]; then
  echo "no bundle at $BUNDLE: run 'python benchmarks/gpu_bench.py prepare' here, then carry $BUNDLE"
  return 2
fi

# 1. the machine ---------------------------------------------------------------------------------
{
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"; echo "host: $(uname -a)"
  echo "python: $($PY -V 2>&1) at $(command -v $PY)"
  timeout 20 nvidia-smi 2>&1 || echo "nvidia-smi: not available"
  timeout 20 nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,clocks.mem,power.limit,persistence_mode,mig.mode.current --format=csv 2>&1
  timeout 20 nvcc --version 2>&1 | tail -2
  timeout 30 $PY -c "import numpy, sys; print('numpy', numpy.__version__)
try:
    import cupy; print('cupy', cupy.__version__, 'CUDA runtime', cupy.cuda.runtime.runtimeGetVersion(), 'driver API', cupy.cuda.runtime.driverGetVersion())
except Exception as e: print('cupy:', e)" 2>&1
} > "$OUT/env.txt" 2>&1
cat "$OUT/env.txt"

# 2. pycuda from the carried wheels (README of shared/wheels/gpu-py312) --------------------------
BACKEND=pycuda
if [ "$DRY" = 1 ]; then
  echo "=== pycuda install: skipped (dry run); would install: $(ls "$WHEELS"/*.whl 2>/dev/null | xargs -n1 basename 2>/dev/null | tr '\n' ' ')"
  BACKEND=""
else
  SITE=$(mktemp -d)
  if ls "$WHEELS"/*.whl >/dev/null 2>&1; then
    install_wheels pycuda "$SITE" "$WHEELS"/*.whl
    export PYTHONPATH=$SITE${PYTHONPATH:+:$PYTHONPATH}
  fi
  if ! timeout 60 $PY -c "import pycuda, pycuda.driver as d; d.init(); print('pycuda', getattr(pycuda, 'VERSION_TEXT', '?'), 'driver', d.get_driver_version(), 'built for', d.get_version(), 'device', d.Device(0).name())"; then
    echo "pycuda does not work here: the correctness harness falls back to cupy"
    BACKEND=cupy
  fi
fi
DRYFLAG=""; [ "$DRY" = 1 ] && DRYFLAG="--dry-run"
BFLAG=""; [ -n "$BACKEND" ] && BFLAG="--backend $BACKEND"

# 3. every example, fresh inputs, poisoned outputs -----------------------------------------------
# (--isolate: a kernel that faults, crashes or stalls for 20 s costs itself only, not the kernels after it)
step correctness 90 $PY tests/gpu/run_gpu.py "$BUNDLE" $BFLAG --fresh --isolate --per-kernel-s 20 \
  --json "$OUT/correctness.json" $DRYFLAG
RC_CORRECT=$?

# 3b. the runtime's other ways in: device (cupy) arrays through the cupy and cuda.core backends,
#     every example each (what step 3 does with numpy arrays through pycuda); one report
RC_BACKENDS=0
if [ "$DRY" != 1 ]; then
  BTMP=$(mktemp -d)
  for b in cupy cuda.core; do
    step "backend $b, device arrays" 60 $PY tests/gpu/run_gpu.py "$BUNDLE" --backend "$b" --device-arrays --fresh \
      --json "$BTMP/$b.json" || RC_BACKENDS=1
  done
  $PY -c "import json, sys, pathlib; d = pathlib.Path(sys.argv[1])
json.dump({p.stem: json.loads(p.read_text()) for p in sorted(d.glob('*.json'))}, open(sys.argv[2], 'w'), indent=1)" \
    "$BTMP" "$OUT/backends.json" || RC_BACKENDS=1
fi

# 4. the bench (cupy backend; CUDA events) --------------------------------------------------------
step bench 100 $PY benchmarks/gpu_bench.py run "$BUNDLE" --out "$OUT" $DRYFLAG
RC_BENCH=$?
# (bench.md is in the log already; out of $OUT, so that no more than 8 files come back)
[ -f "$OUT/bench.md" ] && mv "$OUT/bench.md" "${TMPDIR:-/tmp}/bench.md"

# 5. the package's own GPU path: every example through the Python API (device="gpu") and
#    phobos-run --gpu (tests/gpu/api_gpu.py), with the package's dependencies from the carried
#    wheels and the checkout linked as phobos_tools -----------------------------------------------
RC_API=0
if [ "$DRY" = 1 ]; then
  echo "=== api: skipped (dry run)"
elif ! ls "$WHEELS"/package/*.whl >/dev/null 2>&1; then
  echo "=== api: skipped (no wheels of the package's dependencies in $WHEELS/package: see gpu_bench.py prepare)"
else
  PKG=$(mktemp -d)
  install_wheels "package's dependencies" "$PKG/site" "$WHEELS"/package/*.whl
  ln -s "$PWD" "$PKG/phobos_tools"
  step api 90 env PYTHONPATH="$PKG:$PKG/site${PYTHONPATH:+:$PYTHONPATH}" PHOBOS_CACHE_DIR="$PKG/cache" \
    $PY tests/gpu/api_gpu.py --json "$OUT/api_gpu.json"
  RC_API=$?
fi

# 6. generated race-free kernels against the simulator's results (tests/gpu/gpu_differential.py)
RC_DIFF=0
if [ -f "$BUNDLE/diff/cases.json" ] && [ "$DRY" != 1 ]; then
  step gpu-diff 60 $PY tests/gpu/gpu_differential.py run "$BUNDLE/diff" $BFLAG --json "$OUT/gpu_diff.json"
  RC_DIFF=$?
else
  echo "=== gpu-diff: skipped (dry run, or no $BUNDLE/diff: see gpu_bench.py prepare --diff-count)"
fi

# 7. compute-sanitizer racecheck + synccheck on every example -------------------------------------
PER_KERNEL=30
L=$(left); BUDGET=$(( L - PER_KERNEL - 15 )); [ $BUDGET -lt 0 ] && BUDGET=0
step sanitizer $(( L - 5 )) $PY tests/gpu/sanitize.py "$BUNDLE" $BFLAG --per-kernel-s $PER_KERNEL --budget-s $BUDGET \
  --jobs 4 --json "$OUT/sanitizer.json" --log "${TMPDIR:-/tmp}/sanitizer.txt" $DRYFLAG
RC_SAN=$?

# 8. summary --------------------------------------------------------------------------------------
echo "=== summary (at $(elapsed) s): correctness exit $RC_CORRECT, backends exit $RC_BACKENDS, bench exit $RC_BENCH," \
     "api exit $RC_API, gpu-diff exit $RC_DIFF, sanitizer exit $RC_SAN"
[ -f "$OUT/bench.json" ] && timeout 20 $PY benchmarks/gpu_bench.py results-row "$OUT/bench.json" --print \
  $( [ -f "$OUT/correctness.json" ] && echo "--correctness $OUT/correctness.json" ) \
  $( [ -f "$OUT/sanitizer.json" ] && echo "--sanitizer $OUT/sanitizer.json" ) \
  $( [ -f "$OUT/api_gpu.json" ] && echo "--api $OUT/api_gpu.json" ) \
  $( [ -f "$OUT/gpu_diff.json" ] && echo "--diff $OUT/gpu_diff.json" ) \
  $( [ -f "$OUT/backends.json" ] && echo "--backends $OUT/backends.json" )
[ $RC_CORRECT -eq 0 ] && [ $RC_BACKENDS -eq 0 ] && [ $RC_BENCH -eq 0 ] && [ $RC_API -eq 0 ] && [ $RC_DIFF -eq 0 ] \
  && [ $RC_SAN -eq 0 ]
}

main 2>&1 | tee -a "$OUT/log.txt"
exit "${PIPESTATUS[0]}"
