#!/usr/bin/env bash
# Device tool, kind nvidia-h200 (carry [".whl"]): on an H200, issue 9's H200 figures
# (h200_confirm.sh) and float64 mma's shipped entry beside the one before it and cuBLAS;
# on any other GPU, nothing (the H100's figures are in bench/results already).
set -uo pipefail
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $name"
case "$name" in *H200*) ;; *) echo "not an H200: nothing to do"; exit 0 ;; esac
bash bench/gpu/h200_confirm.sh
source bench/gpu/steps.sh
cd bench/gpu
TAILN=6 step mma_f64 200 python3 wgmma_lead.py --variant mma --dtype float64 --rounds 3 \
  --shapes 4096x4096x4096,8192x8192x8192,2048x2048x2048,1024x1024x1024 --json "$out/mma_f64.json" \
  --candidate 'before={"WM": 1, "WN": 4, "MT": 4, "NT": 4, "KS": 1, "PAD": 8}' \
  --candidate 'shipped={"WM": 1, "WN": 4, "MT": 4, "NT": 4, "KS": 1, "PAD": 4, "ASYNC_STAGES": 3}'
