#!/bin/bash
# A narrow C on a family's fitting tile (auto/choice.py NARROW_PADDING; mma's tall-32 and
# wgmma's narrow presets) and float32's shallow-K entry on wgmma, against the code before
# them: auto's choice in turns of whole processes beside a control (steps.sh's turns;
# device tool, carry [".whl", "build/before"]).
#   PARTS=f64 bash bench/gpu/narrow_tiles.sh;  PARTS=f32 ...;  PARTS=shallow ...
# Tables: python3 bench/gpu/turns_table.py FOLDER f64 (f32, shallow); the record:
# bench/results/2026-11-26-hopper-narrow-tiles
source bench/gpu/steps.sh
X64='"variant": "xgemm", "MWG": 128, "NWG": 128, "KWG": 8, "MDIMC": 16, "NDIMC": 16, "VW": 2, "VWM": 2, "VWN": 2, "KUNROLL": 8, "WARPN": 16'
X32='"variant": "xgemm", "MWG": 128, "NWG": 128, "KWG": 16, "MDIMC": 16, "NDIMC": 16, "VW": 4, "VWM": 4, "VWN": 2, "KUNROLL": 16, "WARPN": 16'
part f64 && turns f64 float64 4096x17x4096,4096x20x4096,4096x24x4096,4096x32x4096,16384x24x1024,16384x32x4096,50000x32x1024,8192x40x1024,127x131x137,4096x16x4096 "$X64"
part f32 && turns f32 float32 50000x32x1024,100000x64x256,16384x48x2048,50000x40x4096,8192x40x8192,16384x64x4096,256x16x8192,100x16x100000,48x3000x2000,1024x1024x16384 "$X32"
part shallow && turns shallow float32 4096x4096x1,8192x8192x1,4096x4096x8,2048x2048x16,3000x3000x32,2000x2000x64,4096x4096x64,8192x8192x64,4096x4096x128,2048x2048x128,1000x1000x64,512x600x128 "$X32"
cd "$out" && tar czf narrow_tiles.tgz --remove-files ./*.txt ./*.json && ls
