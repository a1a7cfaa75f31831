#!/bin/bash
# mma's tall float64 tiles as wide as C (128 x 24, 40, 48, 56 beside 16 and 32) and a wide
# float64 C of 4-7 rows on mma's 16 x 128 tile, against the code before them: auto's
# choice in turns of whole processes beside a control (steps.sh's turns; device tool,
# carry [".whl", "build/before"], build/before from `git archive 929bafe portgemm kernels_cl`).
#   PARTS=tall bash bench/gpu/fitted_tiles.sh; PARTS=tall56 ...; PARTS=tall9 ...; PARTS=wide ...;
#   PARTS=narrow32 ... (wgmma's 64 x 32 tile in float32; build/before from 687c13a)
# Tables: python3 bench/gpu/turns_table.py FOLDER tall (wide); the record:
# bench/results/2026-11-26-hopper-fitted-tiles
source bench/gpu/steps.sh
X64='"variant": "xgemm", "MWG": 128, "NWG": 128, "KWG": 8, "MDIMC": 16, "NDIMC": 16, "VW": 2, "VWM": 2, "VWN": 2, "KUNROLL": 8, "WARPN": 16'
part tall && turns tall float64 50000x40x4096,8192x40x8192,100000x36x512,16384x44x4096,4096x48x4096,16384x48x2048,1000x40x1000,2048x40x2048,4096x24x4096,50000x20x4096,8192x20x8192,16384x24x1024,4096x28x4096,16384x64x4096 "$X64"
part tall56 && turns tall56 float64 16384x56x4096,50000x56x1024,8192x52x8192,16384x49x4096,4096x56x4096,2048x56x2048,1000x50x1000,16384x64x4096 "$X64"
part tall9 && turns tall9 float64 4096x9x4096,4096x10x4096,50000x10x1024,8192x11x8192,16384x9x4096,8192x9x8192,2048x11x2048,100000x10x512,4096x8x4096 "$X64"
X32='"variant": "xgemm", "MWG": 128, "NWG": 128, "KWG": 16, "MDIMC": 16, "NDIMC": 16, "VW": 4, "VWM": 4, "VWN": 2, "KUNROLL": 16, "WARPN": 16'
part narrow32 && turns narrow32 float32 50000x32x1024,4096x32x4096,16384x32x4096,8192x28x8192,8192x26x8192,2048x32x2048,1000x30x1000,64x64x1024,32x32x8192,64x16x8192,200x16x8192,48x32x8192,128x12x8192,8192x40x8192 "$X32"
part wide && turns wide float64 4x4096x4096,6x50000x1024,5x16384x4096,7x8192x8192,4x2048x2048,3x4096x4096 "$X64"
cd "$out" && tar czf fitted_tiles.tgz --remove-files ./*.txt ./*.json && ls
