"""The names of the kernels cuBLAS runs for a 4096³ float32 and float64 product (torch's
profiler, TF32 off): the tile, warps and pipeline they encode.

    python3 bench/gpu/cublas_kernels.py
"""

import torch

torch.backends.cuda.matmul.allow_tf32 = False
for dtype in (torch.float32, torch.float64):
    a = torch.rand(4096, 4096, device="cuda", dtype=dtype)
    a @ a
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        a @ a
        torch.cuda.synchronize()
    for event in prof.key_averages():
        if event.device_type == torch.autograd.DeviceType.CUDA:
            print(dtype, event.key[:200])
