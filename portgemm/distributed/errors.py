"""Errors every rank raises identically.

They come out of the collective check that opens every distributed call
(:mod:`.agreement`): each rank states what is wrong on its side, all ranks see all
statements, and every rank raises the same exception with the same message -- so no rank
is left waiting in a collective that the others never enter. ``agreed`` tells a command
line that it may simply exit (every rank has the error) instead of aborting the job.
"""

from __future__ import annotations

from ..errors import ParameterError, PortgemmError


class AgreedError(PortgemmError):
    """Raised on every rank of the communicator, with the same message."""

    agreed = True


class PartitionError(AgreedError, ParameterError):
    """Unknown partition, a partition that ranks disagree on, or a bad partition option."""


class ShapeError(AgreedError, ValueError):
    """Operands that do not align, are not 2-D, or do not match the block layout."""


class OperandTypeError(AgreedError, TypeError):
    """A dtype other than float32/float64, or dtypes that differ."""


class RankSetupError(AgreedError, RuntimeError):
    """A rank could not set up its local product (backend, device or variant)."""


# How a rank's statement names its error class (strings travel well through pickling).
KINDS = {"partition": PartitionError, "shape": ShapeError, "type": OperandTypeError,
         "setup": RankSetupError}
