"""Lineage: parse the `*_lineage` files of every discovered run and answer MindInsight's lineage queries.

Modules: `convert` (LineageEvent -> plain values), `files` (one file -> FileLineage, cached by size/mtime),
`record` (merge a run's files into one RunLineage), `condition` (search-condition validation), `query`
(filter/sort/page), `marks` (dataset_mark numbering), `notes` (tag/remark store), `importance`
(optimizer targets), `discovery` (which runs exist), `service` (the facade routes call).
"""

from mindinsight_clone.analyzers.lineage.service import LineageService

__all__ = ["LineageService"]
