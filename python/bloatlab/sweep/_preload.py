"""Imported once by the local pool's fork server, so every worker forks warm.

Importing the worker module loads the core, NumPy and PyArrow; building one small Arrow table
makes PyArrow load its lazy pieces (its pandas shim) too, which would otherwise add about half
a second to each worker's first run.
"""

import numpy as np

from ..result import table_from_columns
from . import worker  # noqa: F401

table_from_columns({"flow": np.zeros(1, dtype=np.uint16)}, {"flow": ["warm-up"]})
