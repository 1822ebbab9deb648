"""Plots of results (matplotlib, drawn off-screen: no display or pyplot state needed)."""

from .overview import overview_figure, save_overview

__all__ = ["overview_figure", "save_overview"]
