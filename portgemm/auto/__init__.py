"""What ``variant="auto"`` reads on every call: the tuning databases, shape classes, the
choice and its memo, and the default when no database knows the device. Imports no tuner
module (the offline tuner, :mod:`portgemm.tune`, builds on this, never the reverse).
"""

from .choice import Choice, choose
from .database import (DatabaseError, default_sources, read_database, shipped_database_paths,
                       user_database_path)
from .shapes import SHAPE_CLASSES, shape_class

__all__ = ["Choice", "DatabaseError", "SHAPE_CLASSES", "choose", "default_sources",
           "read_database", "shape_class", "shipped_database_paths", "user_database_path"]
