#!/usr/bin/env bash
# The two experiments of this folder, run on the card from a folder holding the variant builds
# (xz-compressed, named v<N>_<what>) and the packed lib/ of bench/gpu-hardware.sh:
#   experiments.sh tiles   each build's benches, alternating, after the GPU tests (nn-tests.xz)
#                          (the register-block run, blocks.jsonl, benched az-small only, without the tests)
#   experiments.sh split   the shipped build with and without CHECKERS_ZERO_GPU_BASELINE
here="$(cd "$(dirname "$0")" && pwd)"
out="${OUT:-/tmp/out}"; mkdir -p "$out"
export XDG_RUNTIME_DIR=/tmp/xdg; mkdir -p $XDG_RUNTIME_DIR; chmod 700 $XDG_RUNTIME_DIR
links="$(mktemp -d)"
for lib in "$here"/lib/*; do ldconfig -p | grep -q "$(basename "$lib")" || ln -s "$lib" "$links/"; done
glx="$(find /usr/local/nvidia /usr/lib /usr/lib64 -maxdepth 4 -name 'libGLX_nvidia.so.0' 2>/dev/null | head -1)"
export LD_LIBRARY_PATH="$links:$(dirname "$glx")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export VK_DRIVER_FILES="$(find /usr/local/nvidia /usr/share/vulkan /etc/vulkan -maxdepth 6 -name 'nvidia_icd*.json' 2>/dev/null | head -1)"
export __EGL_VENDOR_LIBRARY_FILENAMES="$(find /usr/local/nvidia /usr/share/glvnd -maxdepth 6 -name '*_nvidia.json' -path '*egl_vendor*' 2>/dev/null | head -1)"
mkdir -p /tmp/bins
for z in "$here"/*.xz; do python3 -c "import lzma,sys; open(sys.argv[2],\"wb\").write(lzma.open(sys.argv[1]).read())" "$z" /tmp/bins/$(basename "$z" .xz); done; chmod +x /tmp/bins/*
case "${1:-}" in
tiles)
    export CHECKERS_ZERO_REQUIRE_ALL=1
    timeout 120 /tmp/bins/nn-tests gpu_ > "$out/tests.log" 2>&1; echo "tests rc=$?"; grep "test result" "$out/tests.log"
    for round in 1 2; do
      for v in /tmp/bins/v*; do
        name=$(basename $v)
        timeout 90 $v bench nn --device gpu --net az-tiny,az-small,az-large --batches 64,256,1024,4096 --train-batch 256,1024 --seconds 1 2>>"$out/err.log" \
          | sed "s/^{/{\"variant\": \"$name\", \"round\": $round, /" >> "$out/tiles.jsonl"
        echo "$round $name rc=$?"
      done
    done
    for v in /tmp/bins/v*; do timeout 30 $v bench nn --device gpu --net az-small --batches 1024 --train-batch 256 --seconds 1 --profile > "$out/profile_$(basename $v).txt" 2>&1; done
    ;;
split)
    for round in 1 2; do
      for variant in split whole; do
        baseline=0; [ $variant = whole ] && baseline=1
        CHECKERS_ZERO_GPU_BASELINE=$baseline timeout 90 /tmp/bins/v5_rowquads bench nn --device gpu --net az-small,az-large --batches 1,2,4,8,16,32,64,128 --train-batch 0 --seconds 1 2>>"$out/err.log" \
          | sed "s/^{/{\"variant\": \"$variant\", \"round\": $round, /" >> "$out/split.jsonl"
        echo "$round $variant rc=$?"
      done
    done
    ;;
*) echo "usage: experiments.sh tiles|split" >&2; exit 2 ;;
esac
