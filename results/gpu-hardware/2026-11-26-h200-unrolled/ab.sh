#!/usr/bin/env bash
# Old build (e8d3f3c) against the new one (unrolled register block), alternating, on one GPU.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
links="$(mktemp -d)"
for lib in "$here"/lib/*; do ldconfig -p | grep -q "$(basename "$lib")" || ln -s "$lib" "$links/"; done
export LD_LIBRARY_PATH="$links${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
export XDG_RUNTIME_DIR=$links/xdg; mkdir -p $XDG_RUNTIME_DIR; chmod 700 $XDG_RUNTIME_DIR
args="--device gpu --net az-tiny,az-small,az-large --batches 64,256,1024,4096 --train-batch 256,1024 --seconds 1"
for round in 1 2; do
  for build in old new; do
    bin="$here/checkers-zero"; [ $build = new ] && bin="$here/new/checkers-zero"
    timeout 120 "$bin" bench nn $args 2>>"$OUT/ab.log" | sed "s/^{/{\"build\": \"$build\", \"round\": $round, /" >>"$OUT/ab.jsonl"
    echo "round $round $build done $SECONDS s" >&2
  done
done
for tile in wide square small; do
  CHECKERS_ZERO_GPU_TILE=$tile timeout 60 "$here/new/checkers-zero" bench nn --device gpu --net az-small --batches 64,256,1024,4096 --train-batch 256,1024 --seconds 1 2>>"$OUT/ab.log" | sed "s/^{/{\"tile\": \"$tile\", /" >>"$OUT/ab.jsonl"
  echo "tile $tile done $SECONDS s" >&2
done
timeout 60 "$here/new/checkers-zero" bench nn --device gpu --net az-small --batches 256,1024 --train-batch 256 --seconds 0 --profile >"$OUT/profile-new.txt" 2>&1
echo "profile done $SECONDS s" >&2
