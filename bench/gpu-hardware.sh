#!/usr/bin/env bash
# The GPU hardware check: everything that tells whether the wgpu backend is fast and right on
# a real card, in one call of a few minutes, on a machine that has only the GPU's driver and
# Python with PyTorch.
#
#   bench/gpu-hardware.sh pack [DIR]     here, with the source: build the release binary and the
#                                        GPU tests, strip them, and put them with the Vulkan
#                                        loader and this script into DIR (default target/gpu-check)
#   DIR/gpu-hardware.sh run [--allow-software] [--quick] [--out FOLDER]
#                                        there: the check; FOLDER (default $OUT, else
#                                        ./gpu-check-out) receives at most 8 files
#   DIR/gpu-hardware.sh exec COMMAND...  there: COMMAND with the Vulkan loader and driver found as
#                                        the check finds them (e.g. the packed checkers-zero
#                                        training for the rest of the card's time)
#
# The run stops at once unless the adapter wgpu picks is a hardware GPU (--allow-software lets
# Mesa's lavapipe through, to try the check on a machine without one; --quick shrinks every
# step so that it ends in a few minutes there). Then, each step under its own time limit and
# the next one run whatever the last gave:
#   1. bench nn --device gpu: az-tiny, az-small, az-large and the built-in dark-tiny at
#      batches 1-4096, training at 256 and 1024; then az-small as shipped, with wgpu's runtime checks on, and as the baseline
#      before the split forward and the batch-norm statistics from the convolution's store
#      (CHECKERS_ZERO_GPU_BASELINE), with the towers' 3x3 convolutions as Winograd's and as
#      implicit GEMMs (CHECKERS_ZERO_GPU_WINOGRAD=1 and 0; a hardware GPU ships neither: its
#      inference times the two for each layer and batch size and runs the faster),
#      and with the products on tensor cores (--precision mixed, where the adapter offers
#      cooperative matrices), alternating
#   2. the PyTorch reference on CUDA, strict FP32 (NVIDIA_TF32_OVERRIDE=0) and PyTorch's
#      default (TF32 in convolutions), where python3 has torch with CUDA; and az-small under
#      PyTorch's automatic mixed precision (f16 autocast, GradScaler) beside our mixed
#   3. the timestamp profiler's per-kernel table (az-small inference 1024, training 256), as
#      shipped and with Winograd's convolutions forced
#   4. bench selfplay --device gpu --preset gpu, the GPU's utilisation sampled by nvidia-smi
#      meanwhile
#   5. train on the gpu preset for a few minutes (shortened iterations)
#   6. the GPU parity and budget tests, against the real driver
# and writes summary.md (the tables), check.log, nn.jsonl, profile.txt, selfplay.jsonl,
# gpu-util.csv, train.log and tests.log.
set -uo pipefail

here="$(cd "$(dirname "$0")" && pwd)"

pack() {
    local dir="${1:-target/gpu-check}"
    cd "$here/.." || exit 1
    echo "building the release binary and the GPU tests" >&2
    cargo build --release --bin checkers-zero || exit 1
    local tests
    tests="$(cargo test --release --test nn --no-run --message-format=json 2>/dev/null |
        python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "nn":
        print(m["executable"])')" || exit 1
    [ -x "$tests" ] || { echo "pack: the nn test binary was not built" >&2; exit 1; }
    rm -rf "$dir" && mkdir -p "$dir/lib" || exit 1
    cp target/release/checkers-zero "$dir/checkers-zero"
    cp "$tests" "$dir/nn-tests"
    strip "$dir/checkers-zero" "$dir/nn-tests"
    cp bench/gpu-hardware.sh bench/hardware_summary.py bench/pytorch_reference.py "$dir/"
    # The Vulkan loader and glvnd's libraries (NVIDIA's Vulkan driver lives in its GLX
    # library and starts through them), for images that have the driver but not these.
    local lib path
    for lib in libvulkan.so.1 libGLdispatch.so.0 libGLX.so.0 libEGL.so.1 libGL.so.1 \
        libOpenGL.so.0 libGLESv2.so.2; do
        path="$(ldconfig -p | awk -v l="$lib" '$1 == l && /x86-64/ {print $NF; exit}')"
        if [ -n "$path" ]; then
            cp -L "$path" "$dir/lib/$lib"
        else
            echo "pack: $lib not found here (apt-get install libvulkan1 libglvnd0 libglx0 libegl1 libgl1 libopengl0 libgles2); the target must have it" >&2
        fi
    done
    git rev-parse HEAD >"$dir/COMMIT" 2>/dev/null || echo unknown >"$dir/COMMIT"
    git status --porcelain | grep -q . && echo "(with uncommitted changes)" >>"$dir/COMMIT"
    du -sh "$dir" >&2
    echo "packed into $dir: run $dir/gpu-hardware.sh run on the GPU machine" >&2
}

# Runs a step under a time limit, its output to a file; says how it ended.
step() {
    local name="$1" limit="$2" file="$3"
    shift 3
    local t0=$SECONDS
    log "== $name (limit ${limit}s)"
    timeout --kill-after=10 "$limit" "$@" >>"$file" 2>>"$out/check.log"
    local rc=$?
    case $rc in
        0) log "   done in $((SECONDS - t0)) s" ;;
        124 | 137) log "   STOPPED at its ${limit} s limit" ;;
        *) log "   FAILED (exit $rc) after $((SECONDS - t0)) s" ;;
    esac
    echo "$name: exit $rc, $((SECONDS - t0)) s" >>"$out/steps.txt.tmp"
    return $rc
}

log() { echo "$*" | tee -a "$out/check.log" >&2; }

# Where the Vulkan loader or NVIDIA's driver manifest are missing from the system, use the
# packed loader and the manifest wherever the driver put it.
find_vulkan() {
    local lib links
    links="$(mktemp -d)"
    for lib in "$here"/lib/*; do
        [ -e "$lib" ] || continue
        ldconfig -p | grep -q "$(basename "$lib")" || ln -s "$lib" "$links/"
    done
    # NVIDIA's Vulkan driver is libGLX_nvidia, which the loader opens by name.
    if ! ldconfig -p | grep -q libGLX_nvidia; then
        lib="$(find /usr/local/nvidia /usr/lib /usr/lib64 -maxdepth 4 -name 'libGLX_nvidia.so.0' 2>/dev/null | head -1)"
        [ -n "$lib" ] && links="$links:$(dirname "$lib")"
    fi
    export LD_LIBRARY_PATH="$links${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    local manifest
    if [ -z "${VK_DRIVER_FILES:-}${VK_ICD_FILENAMES:-}" ]; then
        manifest="$(find /usr/local/nvidia /usr/share/vulkan /etc/vulkan -maxdepth 6 \
            -name 'nvidia_icd*.json' 2>/dev/null | head -1)"
        [ -n "$manifest" ] && export VK_DRIVER_FILES="$manifest"
    fi
    if [ -z "${__EGL_VENDOR_LIBRARY_FILENAMES:-}" ]; then
        manifest="$(find /usr/local/nvidia /usr/share/glvnd -maxdepth 6 \
            -name '*_nvidia.json' -path '*egl_vendor*' 2>/dev/null | head -1)"
        [ -n "$manifest" ] && export __EGL_VENDOR_LIBRARY_FILENAMES="$manifest"
    fi
    log "Vulkan driver manifest: ${VK_DRIVER_FILES:-${VK_ICD_FILENAMES:-as the loader finds it}}; EGL vendor: ${__EGL_VENDOR_LIBRARY_FILENAMES:-as glvnd finds it}"
}

run() {
    local allow="" quick="" dest="${OUT:-}"
    while [ $# -gt 0 ]; do
        case "$1" in
            --allow-software) allow="--allow-software" ;;
            --quick) quick=1 ;;
            --out) dest="${2:?--out needs a folder}"; shift ;;
            *) echo "run: unknown option $1 (expected --allow-software, --quick, --out FOLDER)" >&2; exit 2 ;;
        esac
        shift
    done
    out="${dest:-$PWD/gpu-check-out}"
    mkdir -p "$out" || exit 1
    out="$(cd "$out" && pwd)"
    : >"$out/check.log"
    : >"$out/steps.txt.tmp"
    local bin="$here/checkers-zero" work
    work="$(mktemp -d)"
    export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$work/xdg}"
    mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
    find_vulkan

    log "checkers-zero GPU hardware check, $(date -u '+%Y-%m-%d %H:%M UTC')"
    log "commit: $(tr '\n' ' ' <"$here/COMMIT" 2>/dev/null)"
    log "host: $(uname -sr), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
    if command -v nvidia-smi >/dev/null; then
        log "nvidia-smi: $(nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader)"
    fi
    log "== adapter gate"
    if ! "$bin" bench adapter $allow >"$out/adapter.jsonl" 2>>"$out/check.log"; then
        cat "$out/adapter.jsonl" >>"$out/check.log"
        {
            echo "-- what the Vulkan loader saw:"
            ls -l /usr/share/vulkan/icd.d /etc/vulkan/icd.d 2>&1
            echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
            ls -l "${LD_LIBRARY_PATH%%:*}"
            ldconfig -p | grep -E 'libvulkan|libGLX|libEGL|libGLdispatch|nvidia'
            ls /usr/local/nvidia/lib64 2>&1 | head -60
            VK_LOADER_DEBUG=error,warn,driver timeout 60 "$bin" bench adapter --allow-software 2>&1 | tail -40
        } >>"$out/check.log"
        log "no hardware GPU adapter: stopping (see check.log; --allow-software runs on a software one)"
        rm -f "$out/adapter.jsonl" "$out/steps.txt.tmp"
        exit 2
    fi
    tee -a "$out/check.log" <"$out/adapter.jsonl" >&2

    # Step sizes: the whole check within about 8 minutes on a GPU machine, a few on lavapipe.
    local nets="az-tiny,az-small,az-large" batches="1,4,16,64,256,1024,4096" trains="256,1024"
    local secs=1 sp_games=512 sp_searches=64 train_limit=120 ab_rounds=2
    if [ -n "$quick" ]; then
        nets="az-tiny" batches="1,64" trains="64" secs=0 sp_games=8 sp_searches=16 train_limit=60 ab_rounds=1
    fi
    local nn="$out/nn.jsonl"
    : >"$nn"
    step "bench nn: ours" 240 "$nn" "$bin" bench nn --device gpu --net "$nets" \
        --batches "$batches" --train-batch "$trains" --seconds "$secs"
    # The built-in checkers network, a dark-square one (tap convolutions); PyTorch has no
    # reference for it.
    step "bench nn: dark-tiny" 60 "$nn" "$bin" bench nn --device gpu --net dark-tiny \
        --batches "$batches" --train-batch "$trains" --seconds "$secs"
    local ab_batches="1,64,1024" ab_batch=1024 ab_train=256
    [ -n "$quick" ] && ab_batches="1,64" ab_batch=64 ab_train=64
    local variant checks baseline winograd precision
    for _ in $(seq "$ab_rounds"); do
        for variant in shipped checks baseline winograd implicit mixed; do
            # An empty CHECKERS_ZERO_GPU_WINOGRAD leaves the choice to the adapter's default.
            checks=0 baseline=0 winograd="" precision=strict
            [ "$variant" = checks ] && checks=1
            [ "$variant" = baseline ] && baseline=1
            [ "$variant" = winograd ] && winograd=1
            [ "$variant" = implicit ] && winograd=0
            [ "$variant" = mixed ] && precision=mixed
            CHECKERS_ZERO_GPU_CHECKS=$checks CHECKERS_ZERO_GPU_BASELINE=$baseline \
                CHECKERS_ZERO_GPU_WINOGRAD=$winograd \
                step "bench nn: az-small, $variant" 60 "$work/ab" \
                "$bin" bench nn --device gpu --net az-small --batches "$ab_batches" \
                --train-batch "$ab_train" --seconds "$secs" --precision "$precision"
            sed "s/^{/{\"variant\": \"$variant\", /" "$work/ab" >>"$nn"
            : >"$work/ab"
        done
    done

    if python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
        NVIDIA_TF32_OVERRIDE=0 step "PyTorch CUDA, strict FP32" 150 "$nn" python3 "$here/pytorch_reference.py" \
            --device gpu --math fp32 --net "$nets" --batches "$batches" --train-batch "$trains" --seconds "$secs"
        step "PyTorch CUDA, default (TF32)" 150 "$nn" python3 "$here/pytorch_reference.py" \
            --device gpu --math default --net "$nets" --batches "$batches" --train-batch "$trains" --seconds "$secs"
        step "PyTorch CUDA, automatic mixed precision" 60 "$nn" python3 "$here/pytorch_reference.py" \
            --device gpu --math amp --net az-small --batches "$ab_batches" --train-batch "$ab_train" --seconds "$secs"
    else
        log "== PyTorch: python3 has no torch with CUDA here; no reference"
    fi

    # The profiler prints its table on stderr: both streams into profile.txt. Then the same
    # with the towers' 3x3 convolutions forced to Winograd's (a hardware GPU runs the implicit
    # GEMM by default), its records marked as the A/B step's are.
    step "profile" 90 "$out/profile.txt" bash -c '"$0" "$@" 2>&1' "$bin" bench nn --device gpu \
        --net az-small --batches "$ab_batch" --train-batch "$ab_train" --seconds 0 --profile
    CHECKERS_ZERO_GPU_WINOGRAD=1 step "profile, Winograd" 90 "$work/profile" bash -c '"$0" "$@" 2>&1' \
        "$bin" bench nn --device gpu --net az-small --batches "$ab_batch" --train-batch "$ab_train" \
        --seconds 0 --profile
    sed "s/^{/{\"variant\": \"winograd\", /" "$work/profile" >>"$out/profile.txt"

    local util="$out/gpu-util.csv" sampler=""
    : >"$util"
    sample() {
        echo "# $1" >>"$util"
        if command -v nvidia-smi >/dev/null; then
            nvidia-smi --query-gpu=timestamp,utilization.gpu,utilization.memory,memory.used,clocks.sm,power.draw \
                --format=csv,noheader,nounits -lms 200 >>"$util" 2>/dev/null &
            sampler=$!
        fi
    }
    unsample() { [ -n "$sampler" ] && kill "$sampler" 2>/dev/null; wait "$sampler" 2>/dev/null; sampler=""; }

    sample selfplay
    step "bench selfplay, gpu preset" 100 "$out/selfplay.jsonl" "$bin" bench selfplay \
        --device gpu --preset gpu --net az-small --threads 4 \
        --searches "$sp_searches" --games "$sp_games" --repeat 1
    unsample

    sample train
    local run_dir="$work/run"
    step "train, gpu preset" "$train_limit" "$out/train.log" bash -c '"$0" "$@" 2>&1' "$bin" train --device gpu --preset gpu \
        --out "$run_dir" --iterations 2 --games-per-iteration "$sp_games" --searches "$sp_searches" \
        --fast-searches 16 --gating-games 8 --gating-searches 32 --gauntlet-every 0
    unsample
    [ -f "$run_dir/metrics.jsonl" ] && { echo "# metrics.jsonl"; cat "$run_dir/metrics.jsonl"; } >>"$out/train.log"

    CHECKERS_ZERO_REQUIRE_ALL=1 step "GPU parity and budget tests" 150 "$out/tests.log" \
        "$here/nn-tests" gpu_ --test-threads 4

    mv "$out/steps.txt.tmp" "$work/steps.txt"
    python3 "$here/hardware_summary.py" "$out" "$work/steps.txt" >"$out/summary.md" 2>>"$out/check.log" ||
        log "the summary could not be written (see check.log)"
    rm -f "$out/adapter.jsonl"
    log "== done: $(ls "$out" | tr '\n' ' ')"
}

# Runs a command with the Vulkan loader and driver the check would use.
with_gpu() {
    [ $# -gt 0 ] || { echo "exec: expected a command to run" >&2; exit 2; }
    out="$(mktemp -d)"
    export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$out/xdg}"
    mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
    find_vulkan
    exec "$@"
}

case "${1:-}" in
    pack) shift; pack "$@" ;;
    run) shift; run "$@" ;;
    exec) shift; with_gpu "$@" ;;
    *) echo "usage: $0 pack [DIR] | run [--allow-software] [--quick] [--out FOLDER] | exec COMMAND..." >&2; exit 2 ;;
esac
