"""Radial's packet-level simulator from Python.

Runs and sweeps the same scenario files as the ``radial`` program, with the
same results for the same scenario and seed, and answers with a dict and
pandas DataFrames::

    import radial

    r = radial.run("scenarios/validation/s1-wireless-loss.toml", seed=3, set={"loss": 0.01})
    r.summary["flows"][0]["goodput_mbps"]    # summary.json as a dict
    r.series                                 # series.csv as a DataFrame
    r.flows                                  # one row per flow

    df = radial.sweep("scenarios/papers/rcp-fig5a.toml", seeds=[1, 2])
    df.groupby(["loss", "protocol"]).goodput_mbps.mean()

A scenario is a file's path or the TOML text itself. The simulations run
in Rust with the GIL released; a sweep uses every core unless ``jobs`` says
otherwise.
"""

from __future__ import annotations

import io
import json
import os
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Sequence, Union

import pandas as pd

from . import _radial

__all__ = ["Run", "ScenarioError", "COLOURS", "run", "sweep", "parameters"]

#: A scenario file, parameter or capture Radial cannot run; the message
#: names the file, line and key. A subclass of ``ValueError``.
ScenarioError = _radial.ScenarioError

#: Each protocol's colour (``#rrggbb``) in the figures the ``radial``
#: program draws, for plots that should match them.
COLOURS: dict = dict(_radial.colours())

Scenario = Union[str, "os.PathLike[str]"]


@dataclass
class Run:
    """One simulation's outputs (the files ``radial run`` writes)."""

    #: ``summary.json`` as a dict (docs/scenarios.md lists its keys).
    summary: dict
    #: ``series.csv``: time_s, flow, delivered_bytes, throughput_mbps.
    series: pd.DataFrame
    #: ``pipes.csv`` (multi-path flows; empty otherwise): time_s, flow,
    #: pipe, delivered_bytes, throughput_mbps.
    pipes: pd.DataFrame
    #: Packets written per captured link, for ``pcap=``.
    captures: dict = field(default_factory=dict)

    @property
    def flows(self) -> pd.DataFrame:
        """The summary's flows, one row each."""
        return pd.DataFrame(self.summary["flows"])

    @property
    def links(self) -> pd.DataFrame:
        """The summary's link directions, one row each."""
        return pd.DataFrame(self.summary["links"])


def _source(scenario: Scenario) -> str:
    text = os.fspath(scenario)
    if not isinstance(text, str):
        raise TypeError("a scenario is a path or the TOML text itself")
    return text


def _value(v: Any) -> str:
    """A parameter value as the command line's ``--set`` takes it."""
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def run(
    scenario: Scenario,
    seed: Optional[int] = None,
    set: Optional[Mapping[str, Any]] = None,
    pcap: Optional[Mapping[str, Union[str, "os.PathLike[str]"]]] = None,
) -> Run:
    """Runs one simulation of ``scenario``.

    ``seed`` defaults to the scenario's first seed; ``set`` gives sweep
    parameters their values (each unset one takes its first value);
    ``pcap`` maps link names to files that receive a packet capture of the
    link (docs/traces.md).
    """
    sets = [(str(k), _value(v)) for k, v in (set or {}).items()]
    captures = [(str(k), os.fspath(v)) for k, v in (pcap or {}).items()]
    summary, series, pipes, written = _radial.run(_source(scenario), seed, sets, captures)
    return Run(
        summary=json.loads(summary),
        series=pd.read_csv(io.StringIO(series)),
        pipes=pd.read_csv(io.StringIO(pipes)),
        captures=dict(written),
    )


def sweep(
    scenario: Scenario,
    jobs: Optional[int] = None,
    params: Optional[Mapping[str, Sequence[Any]]] = None,
    seeds: Optional[Sequence[int]] = None,
) -> pd.DataFrame:
    """Runs every point and seed of ``scenario``; ``results.csv`` as a DataFrame.

    ``params`` replaces swept parameters' lists of values and ``seeds`` the
    list of seeds; ``jobs`` is the number of threads (default: every core).
    One row per flow and run, with the same columns as ``radial sweep``'s
    results.csv.
    """
    overrides = [(str(k), [_value(v) for v in vs]) for k, vs in (params or {}).items()]
    text = _radial.sweep(
        _source(scenario), jobs, overrides, None if seeds is None else [int(s) for s in seeds]
    )
    return pd.read_csv(io.StringIO(text))


def parameters(scenario: Scenario) -> dict:
    """The scenario's name, swept parameters (name: list of values, numbers
    as numbers, as a sweep's DataFrame has them) and seeds."""
    name, params, seeds = _radial.describe(_source(scenario))
    return {
        "name": name,
        "params": {n: json.loads(values) for n, values in params},
        "seeds": list(seeds),
    }
