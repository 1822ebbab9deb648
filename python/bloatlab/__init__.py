"""bloatlab: congestion control, bufferbloat and video, simulated.

>>> import bloatlab
>>> result = bloatlab.simulate("scenarios/demo.toml", overrides=["flow.cubic.cc=reno"])
>>> result.summary["flows"]["bbr"]["goodput_bps"]
>>> result.flows           # pyarrow.Table, one row per flow per telemetry interval
>>> result.write("results/demo")
"""

from importlib import metadata as _metadata

from .errors import ScenarioError
from .result import Result
from .run import resolve, simulate
from .scenario import Scenario, load_scenario

try:
    __version__ = _metadata.version("bloatlab")
except _metadata.PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = [
    "Result",
    "Scenario",
    "ScenarioError",
    "__version__",
    "load_scenario",
    "resolve",
    "simulate",
]
