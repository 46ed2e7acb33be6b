"""Writes what msprobe's training-state monitor writes with `"format": "csv"` (mindstudio-probe 26.2), for tests.

Source facts (msprobe 26.2; a real CPU run of `msprobe.pytorch.TrainerMon` here gave the same bytes' shape):
* `pytorch/monitor/module_hook.py`: one folder per rank, `os.path.join(MONITOR_OUTPUT_DIR,
  f"{cur_time}-rank{rank}-{uuid4()[:8]}")`, `cur_time = datetime.now(...).strftime('%b%d_%H-%M-%S')`;
* `pytorch/monitor/data_writers.py` `CSVWriterWithAD.write_csv`: `f'{prefix}_{start}-{end}.csv'` with
  `step_count_per_record` steps a file; the header (`MonitorConst.CSV_HEADER` = vpp_stage,name,step, or
  `CSV_HEADER_MICRO_STEP` with micro_step for actv/actv_grad) + the ops, written once by pandas; then per step the rows
  `name.split(":")` (vpp stage, name[, micro step]) with the step inserted third, then the ops' values, `round(6)`,
  NaN as `nan` (`fillna("nan")`), shapes as `"[4, 8]"`, dtypes as `torch.float32`;
* metric prefixes: actv, actv_grad, grad_unreduced, grad_reduced, exp_avg, exp_avg_sq, param_origin, param_updated;
  activation names `<module>.input` / `<module>.output`, the others `<parameter>` (`layers.0.weight`).
"""

from __future__ import annotations

import csv
import math
from collections.abc import Callable
from pathlib import Path

OPS = ["norm", "min", "max", "mean", "zeros", "nans", "shape", "dtype"]
MICRO = {"actv", "actv_grad"}
ACTV_TARGETS = ["layers.0.input", "layers.0.output", "layers.1.input", "layers.1.output", "head.input", "head.output"]
PARAM_TARGETS = ["layers.0.weight", "layers.0.bias", "layers.1.weight", "layers.1.bias", "head.weight", "head.bias"]


def value(metric: str, rank: int, target: int, step: int, stat: str, micro: int = 0) -> float:
    """A deterministic statistic (6 decimals, as msprobe rounds)."""
    base = (1 + target) * (1 + 0.1 * step) * (1 + 0.01 * rank) * (1 + 0.001 * micro) * (1 + 0.05 * len(metric))
    return round({"norm": base, "min": -base / 3, "max": base / 2, "mean": base / 10, "zeros": 0.0,
                  "nans": 0.0}[stat], 6)


def _cell(v: float | str) -> str:
    if isinstance(v, float) and math.isnan(v):
        return "nan"
    return str(v)


def write_rank(folder: Path, rank: int, steps: range, metrics: list[str], *, micro_steps: int = 1,
               vpp_stages: int = 1, nan_at: tuple[int, str] | None = None,
               stat: Callable[[str, int, int, int, str, int], float] = value) -> Path:
    """One rank folder with one CSV per metric and step; `nan_at` = (step, target): its row is NaN from that step on."""
    folder.mkdir(parents=True, exist_ok=True)
    for metric in metrics:
        names = ACTV_TARGETS if metric in MICRO else PARAM_TARGETS
        header = ["vpp_stage", "name", "step"] + (["micro_step"] if metric in MICRO else []) + OPS
        for step in steps:
            with (folder / f"{metric}_{step}-{step}.csv").open("w", newline="") as out:
                writer = csv.writer(out)
                writer.writerow(header)
                for vpp in range(vpp_stages):
                    for micro in range(micro_steps if metric in MICRO else 1):
                        for i, name in enumerate(names):
                            bad = nan_at is not None and step >= nan_at[0] and name == nan_at[1]
                            row: list[float | str] = [vpp, name, step, *([micro] if metric in MICRO else [])]
                            row += [math.nan if bad else stat(metric, rank, i + 10 * vpp, step, s, micro)
                                    for s in OPS[:6]]
                            row += ["[8, 8]" if "weight" in name else "[8]", "torch.float32"]
                            writer.writerow([_cell(c) for c in row])
    return folder
