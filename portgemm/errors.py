"""The exceptions portgemm raises on purpose.

Each one also derives from the builtin a caller would naturally catch (ValueError,
LookupError, ...), so ``except ValueError`` keeps working for code that does not know
portgemm's own types.
"""


class PortgemmError(Exception):
    """Base class of every error raised on purpose by portgemm."""


class DeviceNotFoundError(PortgemmError, LookupError):
    """No device matches a selector; the message lists the devices present."""


class ParameterError(PortgemmError, ValueError):
    """Unknown variant, bad parameter value, or parameters beyond a device's limits."""


class BackendUnavailableError(PortgemmError, ImportError):
    """A backend's optional dependencies are missing; the message names the install."""


class BuildError(PortgemmError, RuntimeError):
    """An OpenCL program failed to build; ``log`` holds the compiler's build log."""

    def __init__(self, message: str, log: str = "", options: tuple = ()):
        self.log = log
        self.options = options
        first = self.first_error
        hint = (" -- this PoCL's LLVM does not know the host CPU; use another driver "
                "(device='intel') or a newer PoCL" if "unknown target CPU" in log else "")
        summary = f"{message}: {first}{hint}" if first else message
        super().__init__(f"{summary}\n--- build log ---\n{log.strip()}" if log else summary)

    @property
    def first_error(self) -> str:
        """The compiler's first error line, or ''."""
        return next((line.strip() for line in self.log.splitlines() if "error" in line), "")


class ForkedProcessError(PortgemmError, RuntimeError):
    """A queue made before this process was forked, on a driver that does not work in a
    forked child (NVIDIA's and PoCL's hang there): start workers with multiprocessing's
    "spawn" or "forkserver" method instead."""
