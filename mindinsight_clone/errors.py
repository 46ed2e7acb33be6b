"""Domain errors, each with MindInsight's error code and HTTP status.

No Flask here: server/error_handlers.py turns these into `{"error_code", "error_msg"}` responses.
Codes are `0x50540000 | module << 12 | value` (module 0 general, 2 lineage, 5 datavisual,
6 profiler, 10 optimizer, 11 debugger), printed as 8 upper-case hex digits, as MindInsight 2.3.1 does.
"""

from __future__ import annotations

_BASE = 0x50540000


def _code(module: int, value: int) -> str:
    return f"{_BASE | module << 12 | value:08X}"


class MindInsightError(Exception):
    """An error we mean to show to the client."""

    module = 0
    value = 0
    http_status = 400
    prefix = ""

    def __init__(self, detail: str = "") -> None:
        self.detail = detail
        super().__init__(self.message)

    @property
    def error_code(self) -> str:
        return _code(self.module, self.value)

    @property
    def message(self) -> str:
        msg = self.prefix if not self.detail else f"{self.prefix} {self.detail}".strip()
        return " ".join(msg.split())


# --- general (module 0) ------------------------------------------------------------------


class UnknownError(MindInsightError):
    value = 0
    http_status = 500
    prefix = "System error."


class ParamTypeError(MindInsightError):
    value = 1
    prefix = "Invalid parameter type."

    def __init__(self, name: str, expected: str) -> None:
        super().__init__(f"'{name}' expect {expected} type.")


class ParamValueError(MindInsightError):
    value = 2
    prefix = "Invalid parameter value."


class ParamMissError(MindInsightError):
    value = 3
    prefix = "Param missing."

    def __init__(self, name: str) -> None:
        super().__init__(f"'{name}' is required.")


class FileSystemPermissionError(MindInsightError):
    value = 8
    prefix = "File or dir access failed."


# ours (request guards and workspace writes; values far above MindInsight's general ones)
class CrossSiteRequestError(MindInsightError):
    """A state-changing or costly request sent by a page of another origin (or with no origin: 'null')."""

    value, http_status = 0x20, 403
    prefix = "Cross-site request refused."


class UnsupportedMediaTypeError(MindInsightError):
    """A request body that is not JSON: browsers send text/plain or form bodies cross-site without asking."""

    value, http_status = 0x21, 415
    prefix = "Unsupported media type: the request body must be sent as Content-Type: application/json."


class InsufficientStorageError(MindInsightError):
    """The workspace cannot be written (disk full, quota or file-size limit reached); nothing was changed."""

    value, http_status = 0x22, 507
    prefix = "The workspace is full; nothing was written."


class AuthTokenError(MindInsightError):
    """A request without the access token (--auth-token), or with a wrong one."""

    value, http_status = 0x23, 401
    prefix = "Access token required."


# --- datavisual (module 5) ---------------------------------------------------------------


class RestfulApiNotExist(MindInsightError):
    module, value, http_status = 5, 1, 404
    prefix = "404 Not Found."


class RequestMethodNotAllowed(MindInsightError):
    module, value, http_status = 5, 2, 405
    prefix = "405 Method Not Allowed."


class TrainJobNotExistError(MindInsightError):
    module, value = 5, 5
    prefix = "Train job is not exist."

    def __init__(self, detail: str = "") -> None:
        super().__init__(f"Detail: {detail}" if detail else "")


class SummaryLogIsLoading(MindInsightError):
    module, value = 5, 7
    prefix = "Data is loading."


class NodeNotInGraphError(MindInsightError):
    module, value = 5, 9
    prefix = "Can not find node in graph by the given node name."

    def __init__(self, node_name: str) -> None:
        super().__init__(f"node name: {node_name}.")


class PluginNotAvailableError(MindInsightError):
    module, value = 5, 0xB
    prefix = "Plugin is not available."


class GraphNotExistError(MindInsightError):
    module, value = 5, 0xC
    prefix = "Graph is not exist."


class ImageNotExistError(MindInsightError):
    module, value = 5, 0xD
    prefix = "Image is not exist."


class ScalarNotExistError(MindInsightError):
    module, value = 5, 0xE
    prefix = "Scalar value is not exist."


class HistogramNotExistError(MindInsightError):
    module, value = 5, 0xF
    prefix = "Histogram value is not exist."


class QueryStringContainsNullByteError(MindInsightError):
    module, value = 5, 0x11
    prefix = "Query string contains null byte error."


class TensorNotExistError(MindInsightError):
    module, value = 5, 0x12
    prefix = "Tensor value is not exist."


class ResponseDataExceedMaxValueError(MindInsightError):
    module, value = 5, 0x13
    prefix = "Response data exceed max value."


class StepTensorDataNotInCacheError(MindInsightError):
    module, value = 5, 0x14
    prefix = "Tensor data not in cache."


class TensorTooLargeError(MindInsightError):
    module, value = 5, 0x16
    prefix = "Tensor is too large to show on UI."


class LandscapeNotExistError(MindInsightError):
    module, value = 5, 0x17
    prefix = "Landscape is not exist."


# TensorBoard kinds (ours: MindInsight has no such data; codes after MindInsight's last datavisual one)
class KindDataNotExistError(MindInsightError):
    """No data of a TensorBoard kind (text, PR curve, audio, mesh, embedding, ...) for this run and tag."""

    module, value = 5, 0x20
    prefix = "Data is not exist."


class KindDataUnreadableError(MindInsightError):
    """Data that is listed but cannot be served as it is (a projector path outside the run, a file that is not
    what its name says); the message says why, the rest of the run is served as usual."""

    module, value = 5, 0x21
    prefix = "Data can not be served."


class GraphTooLargeError(MindInsightError):
    """A graph whose scope tree would hold more nodes than the max_graph_nodes setting allows (the flat node list of
    models/graph still pages it)."""

    module, value = 5, 0x22
    prefix = "Graph is too large to build."


# --- lineage (module 2) ------------------------------------------------------------------


class LineageParamValueError(MindInsightError):
    module, value = 2, 0x81
    prefix = ""


class LineageSearchConditionParamError(MindInsightError):
    module, value = 2, 0x218
    prefix = "Search_condition param error:"


# --- profiler (module 6) -----------------------------------------------------------------


class ProfilerParamValueError(MindInsightError):
    module, value = 6, 0x80
    prefix = "Param value error."


class ProfilerParamTypeError(MindInsightError):
    module, value = 6, 0x82
    prefix = "Param type error."


class ProfilerDirNotFoundError(MindInsightError):
    module, value = 6, 0x83
    prefix = "The dir not found."

    def __init__(self, detail: str = "") -> None:
        # MindInsight prints the absolute path here; we print only the relative one.
        super().__init__()
        self.detail = detail

    @property
    def message(self) -> str:
        return f"The dir {self.detail} not found." if self.detail else self.prefix


class ProfilerFileNotFoundError(MindInsightError):
    module, value = 6, 0x84
    prefix = ""

    @property
    def message(self) -> str:
        return f"The file {self.detail} not found."


class ProfilerRawFileError(MindInsightError):
    """A profiler file exists but cannot be used (truncated, not JSON/CSV, required columns missing)."""

    module, value = 6, 0x87
    prefix = "Raw file error."


class ProfilerSearchConditionError(MindInsightError):
    """50546182..50546188: the part of search_condition that is wrong picks the value (also 50546180, a sort or
    filter column that does not exist, and 50546102, a step number out of range)."""

    module = 6
    # every value raised (analyzers/profiler/engine/conditions.py, legacy_*.py); the UI translates each code
    values = (0x102, 0x180, 0x182, 0x183, 0x184, 0x185, 0x186, 0x188)

    def __init__(self, value: int, detail: str) -> None:
        self.value = value
        super().__init__(detail)


# --- debugger and model files (module 11, MindInsight's DEBUGGER; docs/debugger.md) ------------------------


class DebuggerParamValueError(MindInsightError):
    """A watchpoint condition or its parameters are not usable (MindInsight's PARAM_VALUE_ERROR)."""

    module, value = 11, 0x81
    prefix = "ValueError."


class DebuggerNodeNotInGraphError(MindInsightError):
    module, value = 11, 0x100
    prefix = "Can not find node in graph by the given node name."


class DebuggerGraphNotExistError(MindInsightError):
    module, value = 11, 0x101
    prefix = "The graph does not exist."


class DebuggerCompareTensorError(MindInsightError):
    module, value = 11, 0x185
    prefix = "Compare tensor failed."


class DebuggerTensorNotExistError(MindInsightError):
    module, value = 11, 0x284
    prefix = "No such tensor."


class DebuggerDumpNotExistError(MindInsightError):
    """No dump root with that dump_id (or no such rank / graph / iteration in it)."""

    module, value = 11, 0x285
    prefix = "No such dump."


class DebuggerTensorUnreadableError(MindInsightError):
    """The tensor file exists but cannot be read (truncated, not a .npy, being written...)."""

    module, value = 11, 0x286
    prefix = "The tensor file cannot be read."


class ModelNotExistError(MindInsightError):
    module, value = 11, 0x300
    prefix = "No such model file."


class ModelUnreadableError(MindInsightError):
    """The model file cannot be read (not the format, truncated, encrypted MindIR, too large...)."""

    module, value = 11, 0x301
    prefix = "The model file cannot be read."


class ModelKindError(MindInsightError):
    """The endpoint does not answer for this kind of model file (e.g. a graph of a checkpoint)."""

    module, value = 11, 0x302
    prefix = "Not available for this kind of model file."
