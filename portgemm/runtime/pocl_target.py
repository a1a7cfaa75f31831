"""Whether PoCL compiles for a CPU older than the one it runs on.

PoCL compiles for the CPU its LLVM names for the host. An LLVM older than the CPU names
an older one. PoCL 3.0 from PyPI (LLVM 14) calls a Zen 4 `znver3`, a CPU without
AVX-512, and some kernels (vec, tallskinny) then abort the whole process inside LLVM
("Do not know how to scalarize this operator's operand!") instead of failing their
build. A Zen 5 is worse off and fails every build with "unknown target CPU", which is
caught as a BuildError. portgemm does not build on such a PoCL: an abort cannot be caught
(docs/known-issues.md).
"""

from __future__ import annotations

import re

from ..caches import memoize
from .device import Device

# LLVM's names of x86 CPUs with AVX-512 (the ones a PoCL may target on such a host)
WITH_AVX512 = {"knl", "knm", "skylake-avx512", "skx", "cascadelake", "cooperlake",
               "cannonlake", "icelake-client", "icelake-server", "tigerlake", "rocketlake",
               "sapphirerapids", "emeraldrapids", "graniterapids", "graniterapids-d",
               "znver4", "znver5", "x86-64-v4"}
TARGET = re.compile(r"HSTR: \S*?-linux-gnu-(\S+)")


def older_target(device_version: str, host_flags: set[str]) -> str:
    """Why a PoCL whose CL_DEVICE_VERSION is ``device_version`` compiles for less than a
    host with these /proc/cpuinfo flags ('' when it does not, or cannot be told)."""
    found = TARGET.search(device_version)
    if not found or "avx512f" not in host_flags or found.group(1) in WITH_AVX512:
        return ""
    return (f"this PoCL's LLVM compiles for '{found.group(1)}', a CPU without AVX-512, on a "
            f"host that has it: it does not know this CPU, and some kernels abort the "
            f"process inside LLVM; use another driver (device='intel') or a newer PoCL")


@memoize(maxsize=64)
def refusal(device: Device) -> str:
    """older_target's reason for ``device`` ('' for anything but a PoCL CPU device)."""
    if device.type != "cpu" or "Portable Computing Language" not in device.platform:
        return ""
    try:
        version = device.handle.version
        with open("/proc/cpuinfo") as info:
            flags = next((line.split(":", 1)[1].split() for line in info
                          if line.startswith("flags")), [])
    except (AttributeError, OSError):  # a described device, or not Linux
        return ""
    return older_target(version, set(flags))
