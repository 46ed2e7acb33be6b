"""MindSpore Lite models (`.ms`, what the converter writes with save type MINDIR_LITE): one FlatBuffer of
MindSpore's schema `mindspore/lite/schema/model.fbs` (+ `ops.fbs`, `ops_types.fbs`; Apache-2.0).

Read through the `flatbuffers` runtime (its `Table`: vtable look-ups, strings, vectors) with the field slots of the
few tables we need written down here from the schema, rather than `flatc`-generated classes: the graph needs four
tables (MetaGraph, CNode, Tensor, SubGraph) and the primitive union's member names, while generated code for the
schema would be ~300 modules (one per operator table) and a `flatc` step. The runtime checks no bounds, so every
position is checked here before it is read: a truncated or garbage file is a ModelFormatError, never a read past
the buffer.

Layout: bytes 0-3 the root table's offset, bytes 4-7 the file identifier `MSL2` (MindSpore Lite ≥ 1.2; `MSL1` was
the 1.0/1.1 schema, whose operator union differs: named, not read). An encrypted model (converter
`--encryptKey`) starts with MindSpore's cipher magic number instead and is named as such.

* Graph: `MetaGraph.nodes` (CNode: name, primitive = union type byte -> `PRIMITIVE_TYPES` + the operator's own
  table -> attributes, decoded for the operators `mindspore_lite_ops.py` lists; input/output indices into
  `allTensors`). For the graph views a node's input is the node that outputs that tensor, else the tensor's
  name (a constant: a parameter; a graph input).
* Tensors: every `allTensors` entry (name, MindSpore TypeId `dataType`, dims, format, nodeType, bytes of `data`);
  the constant ones (with `data`) are the model's parameters, statistics computed from `data` when asked.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from flatbuffers import number_types
from flatbuffers.table import Table

from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.mindir import encryption_of
from mindinsight_clone.ingest.mindspore_lite_ops import INT_ENUMS, OPERATOR_FIELDS, enum_text
from mindinsight_clone.ingest.model_graph import (
    MAX_MODEL_BYTES,
    ModelFormatError,
    ModelGraph,
    ModelNode,
    ModelParameter,
)
from mindinsight_clone.ingest.onnx_model import element_count, scope_path
from mindinsight_clone.ingest.storage import Location

FILE_IDENTIFIER = b"MSL2"

# union PrimitiveType of ops.fbs, in schema order: the type byte N names member N-1 (0 = NONE). Members are only
# ever appended (FlatBuffers' compatibility rule), so this list reads files of older converters too.
_PRIMITIVE_NAMES = (
    "Abs Activation ActivationGrad Adam AddFusion AdderFusion AddGrad AddN All ApplyMomentum ArgMaxFusion "
    "ArgMinFusion Assert Assign AssignAdd AudioSpectrogram AvgPoolFusion AvgPoolGrad BatchNorm BatchNormGrad "
    "BatchToSpace BatchToSpaceND BiasAdd BinaryCrossEntropy BinaryCrossEntropyGrad BiasAddGrad BroadcastTo Cast Ceil "
    "Clip Concat Attention Conv2DBackpropFilterFusion Conv2DBackpropInputFusion Conv2DFusion Conv2dTransposeFusion "
    "Cos ConstantOfShape Crop CustomExtractFeatures CustomNormalize CustomPredict DeConv2DGradFilter Depend "
    "DepthToSpace DetectionPostProcess DivFusion DivGrad Dropout DropoutGrad Elu Eltwise Equal EmbeddingLookupFusion "
    "ExpFusion ExpandDims FakeQuantWithMinMaxVars FakeQuantWithMinMaxVarsPerChannel FftReal FftImag Flatten "
    "FlattenGrad Floor FloorDiv FloorMod Fill FullConnection FusedBatchNorm Gather GatherNd Greater GreaterEqual "
    "HashtableLookup InstanceNorm LayerNormFusion LeakyRelu Less LessEqual Log LogGrad LogicalAnd LogicalNot "
    "LogicalOr LpNormalization LRN LshProjection LSTM L2NormalizeFusion MatMulFusion Maximum MaximumGrad "
    "MaxPoolFusion MaxPoolGrad SwitchLayer Mfcc Minimum MinimumGrad Mod MulFusion MulGrad Neg NegGrad NotEqual "
    "NonMaxSuppression OneHot OnesLike PadFusion PartialFusion PowerGrad PowFusion PriorBox PReLUFusion "
    "QuantDTypeCast Rank Range Reciprocal RealDiv ReduceFusion Reshape Resize ReverseSequence ReverseV2 Rfft "
    "ROIPooling Round Rsqrt ScaleFusion ScatterNd SGD Shape SigmoidCrossEntropyWithLogits "
    "SigmoidCrossEntropyWithLogitsGrad Sin SkipGram SliceFusion SmoothL1Loss SmoothL1LossGrad Softmax "
    "SoftmaxCrossEntropyWithLogits SpaceToBatch SpaceToBatchND SpaceToDepth SparseSoftmaxCrossEntropyWithLogits "
    "SparseToDense Split Sqrt Squeeze Square SquaredDifference Stack StridedSlice SubFusion SubGrad Switch "
    "TensorListFromTensor TensorListGetItem TensorListReserve TensorListSetItem TensorListStack TileFusion "
    "TopKFusion Transpose Unique UnsortedSegmentSum Unsqueeze Unstack LSTMGrad Where ZerosLike Select "
    "ScatterNdUpdate GRU NonZero InvertPermutation Size RandomStandardNormal CropAndResize Erf StridedSliceGrad "
    "IsFinite LinSpace UniformReal AbsGrad RsqrtGrad SqrtGrad LayerNormGrad ResizeGrad Splice LogSoftmax Call Custom "
    "CumSum SplitWithOverlap GenOP RaggedRange GLU TensorArray TensorArrayRead TensorArrayWrite Affine AllGather "
    "ReduceScatter DynamicQuant LSTMGradData LSTMGradWeight RandomNormal NLLLoss NLLLossGrad FormatTranspose GatherD "
    "GroupNormFusion Log1p TensorScatterAdd ScatterElements Triu Tril"
)
PRIMITIVE_TYPES: tuple[str, ...] = tuple(_PRIMITIVE_NAMES.split())

# MindSpore TypeId (mindapi/base/type_id.h) of Tensor.dataType -> numpy dtype name; the number types from
# kNumberTypeBool (30) to kNumberTypeFloat64 (44) have had these values since MindSpore 1.x
TYPE_IDS = {30: "bool", 31: "int32", 32: "int8", 33: "int16", 34: "int32", 35: "int64", 36: "uint32", 37: "uint8",
            38: "uint16", 39: "uint32", 40: "uint64", 41: "float32", 42: "float16", 43: "float32", 44: "float64"}
TYPE_ID_NAMES = {30: "kNumberTypeBool", 31: "kNumberTypeInt", 32: "kNumberTypeInt8", 33: "kNumberTypeInt16",
                 34: "kNumberTypeInt32", 35: "kNumberTypeInt64", 36: "kNumberTypeUInt", 37: "kNumberTypeUInt8",
                 38: "kNumberTypeUInt16", 39: "kNumberTypeUInt32", 40: "kNumberTypeUInt64", 41: "kNumberTypeFloat",
                 42: "kNumberTypeFloat16", 43: "kNumberTypeFloat32", 44: "kNumberTypeFloat64",
                 12: "kObjectTypeString", 0: "kTypeUnknown"}
FORMATS = ("NCHW", "NHWC", "NHWC4", "HWKC", "HWCK", "KCHW", "CKHW", "KHWC", "CHWK", "HW", "HW4", "NC", "NC4", "NC4HW4",
           "NUM_OF_FORMAT", "NCDHW")  # enum Format of ops_types.fbs
FMK_TYPES = {0: "TF", 1: "CAFFE", 2: "ONNX", 3: "MINDIR", 4: "TFLITE", 5: "PYTORCH"}
QUANT_TYPES = ("QUANT_NONE", "AwareTraining", "WeightQuant", "PostTraining")
NODE_TYPES = {0: "ValueNode", 1: "Parameter", 2: "CNode"}

# field slots (declaration order) of the tables read, from model.fbs
META_NAME, META_VERSION, META_FMK, META_INPUTS, META_OUTPUTS, META_MEMPOOL, META_NODES, META_TENSORS, META_SUBGRAPHS = (
    range(9))
NODE_NAME, NODE_PRIMITIVE, NODE_INPUTS, NODE_OUTPUTS, NODE_QUANT = 0, 2, 3, 4, 5
PRIMITIVE_TYPE = 0  # Primitive { value: PrimitiveType } -> slot 0 the type byte, slot 1 the table
TENSOR_NODE_TYPE, TENSOR_DATA_TYPE, TENSOR_DIMS, TENSOR_FORMAT = 0, 1, 2, 3
TENSOR_DATA, TENSOR_QUANT, TENSOR_NAME = 6, 7, 9
SUB_NAME, SUB_INPUTS, SUB_OUTPUTS, SUB_NODES, SUB_TENSORS = range(5)


def primitive_name(code: int) -> str:
    return PRIMITIVE_TYPES[code - 1] if 1 <= code <= len(PRIMITIVE_TYPES) else f"Primitive#{code}"


class _Table:
    """A FlatBuffers table read through the runtime's Table, every position checked against the buffer first."""

    def __init__(self, buf: bytes, pos: int, what: str) -> None:
        self.buf, self.pos, self.what = buf, pos, what
        _need(buf, pos, 4, what)
        vtable = pos - struct.unpack_from("<i", buf, pos)[0]
        _need(buf, vtable, 4, f"{what}'s vtable")
        vt_len, table_len = struct.unpack_from("<HH", buf, vtable)
        if vt_len < 4 or vt_len % 2:
            raise ModelFormatError(f"{what}: a vtable of {vt_len} bytes")
        _need(buf, vtable, vt_len, f"{what}'s vtable")
        _need(buf, pos, table_len, what)
        self.table = Table(buf, pos)

    def _field(self, slot: int) -> int:
        """The absolute position of a field, 0 when absent."""
        offset = self.table.Offset(4 + 2 * slot)
        return self.pos + offset if offset else 0

    def scalar(self, slot: int, flags: Any, default: int = 0) -> int:
        value = self.number(slot, flags)
        return default if value is None else int(value)

    def number(self, slot: int, flags: Any) -> int | float | None:
        """A scalar field, None when absent (the schema's default applies)."""
        at = self._field(slot)
        if not at:
            return None
        _need(self.buf, at, flags.bytewidth, self.what)
        value: int | float = self.table.Get(flags, at)
        return value

    def _indirect(self, slot: int) -> int:
        at = self._field(slot)
        if not at:
            return 0
        _need(self.buf, at, 4, self.what)
        target = self.table.Indirect(at)
        _need(self.buf, target, 4, self.what)
        return at

    def string(self, slot: int) -> str:
        at = self._indirect(slot)
        if not at:
            return ""
        start, length = self._vector(at, 1)
        return self.buf[start:start + length].decode("utf-8", "replace")

    def _vector(self, at: int, item: int) -> tuple[int, int]:
        start, length = self.table.Vector(at - self.pos), self.table.VectorLen(at - self.pos)  # relative to the table
        _need(self.buf, start, length * item, self.what)
        return start, length

    def array(self, slot: int, dtype: str) -> np.ndarray:
        """A vector of scalars (`<i4`, `<u4`, `u1`...)."""
        at = self._indirect(slot)
        if not at:
            return np.zeros(0, dtype)
        item = np.dtype(dtype).itemsize
        start, length = self._vector(at, item)
        return np.frombuffer(self.buf, dtype, length, start)

    def byte_range(self, slot: int) -> tuple[int, int]:
        """(start, length) of a [ubyte] vector, (0, 0) when absent."""
        at = self._indirect(slot)
        return self._vector(at, 1) if at else (0, 0)

    def tables(self, slot: int, what: str) -> list[_Table]:
        at = self._indirect(slot)
        if not at:
            return []
        start, length = self._vector(at, 4)
        return [_Table(self.buf, self.table.Indirect(start + 4 * i), f"{what} {i}") for i in range(length)]

    def child(self, slot: int, what: str) -> _Table | None:
        at = self._indirect(slot)
        return _Table(self.buf, self.table.Indirect(at), what) if at else None


def _need(buf: bytes, pos: int, length: int, what: str) -> None:
    if pos < 0 or length < 0 or pos + length > len(buf):
        raise ModelFormatError(f"{what} lies outside the file ({pos} + {length} of {len(buf)} bytes): truncated or "
                               "not a MindSpore Lite model")


@dataclass(frozen=True, slots=True)
class LiteTensor:
    index: int
    name: str
    data_type: int
    dims: tuple[int, ...]
    format: int
    node_type: int
    data_start: int  # position of `data` in the file's bytes
    data_bytes: int
    quantized: bool

    @property
    def dtype(self) -> str:
        return TYPE_IDS.get(self.data_type, TYPE_ID_NAMES.get(self.data_type, f"TypeId {self.data_type}"))

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "name": self.name, "data_type": self.data_type,
                "data_type_name": TYPE_ID_NAMES.get(self.data_type, f"TypeId {self.data_type}"), "dtype": self.dtype,
                "dims": list(self.dims), "format": self.format,
                "format_name": FORMATS[self.format] if 0 <= self.format < len(FORMATS) else str(self.format),
                "node_type": self.node_type, "data_bytes": self.data_bytes, "quantized": self.quantized}


@dataclass(slots=True)
class LiteModel:
    graph: ModelGraph
    tensors: list[LiteTensor]
    data: bytes  # the file's bytes (constant tensors are read from them)
    tensor_edges: dict[str, tuple[list[str], list[str]]] = field(default_factory=dict)  # node -> tensor names

    def constants(self) -> list[LiteTensor]:
        return [t for t in self.tensors if t.data_bytes > 0]


def check_identifier(data: bytes, name: str) -> None:
    """ModelFormatError naming what the file is when it is not an `MSL2` FlatBuffer."""
    cipher = encryption_of(data)
    if cipher is not None:
        raise ModelFormatError(f"{name} is an encrypted MindSpore Lite model ({cipher}, converted with "
                               "--encryptKey): its graph and weights cannot be shown without the key")
    if len(data) < 8:
        raise ModelFormatError(f"{name} has {len(data)} bytes: too short for a MindSpore Lite model (truncated)")
    ident = data[4:8]
    if ident == b"MSL1":
        raise ModelFormatError(f"{name} is a MindSpore Lite 1.0/1.1 model (file identifier MSL1): that schema's "
                               "operators are not read; convert it again with MindSpore Lite ≥ 1.2")
    if ident != FILE_IDENTIFIER:
        raise ModelFormatError(f"{name} is not a MindSpore Lite model: file identifier {ident!r}, "
                               f"{FILE_IDENTIFIER.decode()} expected (an unknown variant, or another format)")


def read_ms(location: Location, size: int) -> LiteModel:
    """Read and parse a .ms file (ModelFormatError when it cannot be used, OSError when it cannot be read)."""
    if size > MAX_MODEL_BYTES:
        raise ModelFormatError(f"{location.name} has {size} bytes, more than the {MAX_MODEL_BYTES} parsed")
    return parse_ms(storage.read_bytes(location), location.name)


def parse_ms(data: bytes, name: str) -> LiteModel:
    check_identifier(data, name)
    try:
        return _parse(data)
    except (struct.error, IndexError, ValueError, OverflowError, TypeError) as exc:  # TypeError: the runtime's
        # enforce_number on a position that is not a uoffset
        if isinstance(exc, ModelFormatError):
            raise
        raise ModelFormatError(f"{name}: {type(exc).__name__}: {exc} (truncated or not a MindSpore Lite "
                               "model)") from None


def _parse(data: bytes) -> LiteModel:
    (root_offset,) = struct.unpack_from("<I", data, 0)
    root = _Table(data, root_offset, "the MetaGraph")
    tensors = [_tensor(i, t) for i, t in enumerate(root.tables(META_TENSORS, "tensor"))]

    def tensor_names(indices: np.ndarray, what: str) -> list[str]:
        if indices.size and int(indices.max()) >= len(tensors):
            raise ModelFormatError(f"{what} names tensor {int(indices.max())} of {len(tensors)}")
        return [tensors[int(i)].name for i in indices]

    version, name = root.string(META_VERSION), root.string(META_NAME)
    subgraphs: list[dict[str, Any]] = [{"name": s.string(SUB_NAME), "nodes": int(s.array(SUB_NODES, "<u4").size),
                                        "tensors": int(s.array(SUB_TENSORS, "<u4").size)}
                                       for s in root.tables(META_SUBGRAPHS, "subgraph")]
    graph = ModelGraph(name or (str(subgraphs[0]["name"]) if subgraphs else ""))  # the converter leaves `name` empty
    producers: dict[str, str] = {}
    edges: dict[str, tuple[list[str], list[str]]] = {}
    primitive_counts: dict[str, int] = {}
    used: set[str] = set()
    undecoded: set[str] = set()
    for index, node in enumerate(root.tables(META_NODES, "node")):
        primitive = node.child(NODE_PRIMITIVE, f"node {index}'s primitive")
        code = primitive.scalar(PRIMITIVE_TYPE, number_types.Uint8Flags) if primitive is not None else 0
        op_type = primitive_name(code)
        primitive_counts[op_type] = primitive_counts.get(op_type, 0) + 1
        node_name = node.string(NODE_NAME) or f"{op_type}_{index}"
        while node_name in used:
            node_name = f"{node_name}_{index}"
        used.add(node_name)
        inputs = tensor_names(node.array(NODE_INPUTS, "<u4"), f"node {node_name}")
        outputs = tensor_names(node.array(NODE_OUTPUTS, "<u4"), f"node {node_name}")
        first_out = next((t for t in tensors if outputs and t.name == outputs[0]), None)
        quant = node.scalar(NODE_QUANT, number_types.Int32Flags)
        attributes = {"primitive_type": str(code)}
        if op_type in OPERATOR_FIELDS:
            attributes.update(_operator_attributes(primitive, op_type))
        else:
            undecoded.add(op_type)
        if quant:
            attributes["quantType"] = QUANT_TYPES[quant] if 0 <= quant < len(QUANT_TYPES) else str(quant)
        graph.nodes.append(ModelNode(node_name, op_type, scope_path(node_name), [producers.get(t, t) for t in inputs],
                                     [list(first_out.dims)] if first_out is not None else [],
                                     first_out.dtype if first_out is not None else "", graph.graph_name, attributes))
        edges[node_name] = (inputs, outputs)
        for tensor in outputs:
            producers[tensor] = node_name
    graph.inputs = [_parameter(tensors[i]) for i in _indices(root.array(META_INPUTS, "<u4"), len(tensors), "input")]
    graph.outputs = [_parameter(tensors[i]) for i in _indices(root.array(META_OUTPUTS, "<u4"), len(tensors),
                                                               "output")]
    graph.parameters = [_parameter(t) for t in tensors if t.data_bytes > 0]
    fmk = root.scalar(META_FMK, number_types.Int32Flags)
    graph.facts = {
        "file_identifier": data[4:8].decode("ascii", "replace"), "root_table_offset": int(root_offset),
        "name": name or None, "version": version, "fmk_type": fmk, "fmk_name": FMK_TYPES.get(fmk, str(fmk)),
        "mempool_size": root.scalar(META_MEMPOOL, number_types.Uint32Flags), "tensor_count": len(tensors),
        "const_tensor_count": sum(1 for t in tensors if t.data_bytes > 0), "primitive_counts": primitive_counts,
        "subgraphs": subgraphs,
        "not_read": [*([f"the attributes of {', '.join(sorted(undecoded))}"] if undecoded else []),
                     "quantization parameters"],
    }
    return LiteModel(graph, tensors, data, edges)


_NUMBER_FLAGS = {"long": number_types.Int64Flags, "float": number_types.Float32Flags,
                 "bool": number_types.Uint8Flags}


def _operator_attributes(primitive: _Table | None, op_type: str) -> dict[str, str]:
    """The fields of a node's primitive table as text (absent ones: the schema's default)."""
    table = primitive.child(PRIMITIVE_TYPE + 1, f"the {op_type} table") if primitive is not None else None
    return {name: _field_text(table, slot, kind, default)
            for slot, (name, kind, default) in enumerate(OPERATOR_FIELDS[op_type])}


def _field_text(table: _Table | None, slot: int, kind: str, default: str) -> str:
    if kind.startswith("["):
        values = table.array(slot, "<i8" if kind == "[long]" else "<f4") if table is not None else np.zeros(0)
        return str([float(f"{v:.7g}") for v in values] if kind == "[float]" else [int(v) for v in values])
    if kind == "string":
        return table.string(slot) if table is not None else ""
    if kind == "Vec2D":
        inner = table.child(slot, "a Vec2D") if table is not None else None
        rows = inner.tables(0, "a Vec") if inner is not None else []
        return str([[int(v) for v in row.array(0, "<i8")] for row in rows])
    flags = _NUMBER_FLAGS.get(kind) or (number_types.Int32Flags if kind in INT_ENUMS else number_types.Int8Flags)
    value = table.number(slot, flags) if table is not None else None
    if kind == "bool":
        return str(bool(value) if value is not None else default == "true").lower()
    if value is None:
        value = float(default) if kind == "float" else int(default or 0)
    if kind == "float":
        return f"{value:.7g}"
    return str(int(value)) if kind == "long" else enum_text(kind, int(value))


def _indices(values: np.ndarray, count: int, what: str) -> list[int]:
    if values.size and int(values.max()) >= count:
        raise ModelFormatError(f"the graph's {what} names tensor {int(values.max())} of {count}")
    return [int(v) for v in values]


def _tensor(index: int, table: _Table) -> LiteTensor:
    start, length = table.byte_range(TENSOR_DATA)
    return LiteTensor(index, table.string(TENSOR_NAME) or f"tensor_{index}",
                      table.scalar(TENSOR_DATA_TYPE, number_types.Int32Flags),
                      tuple(int(d) for d in table.array(TENSOR_DIMS, "<i4")),
                      table.scalar(TENSOR_FORMAT, number_types.Int32Flags),
                      table.scalar(TENSOR_NODE_TYPE, number_types.Int32Flags), start, length,
                      bool(table._indirect(TENSOR_QUANT)))


def _parameter(tensor: LiteTensor) -> ModelParameter:
    return ModelParameter(tensor.name, list(tensor.dims), tensor.dtype)


def tensor_values(model: LiteModel, tensor: LiteTensor) -> np.ndarray:
    """A constant tensor's values from its `data` bytes (ModelFormatError when its type or size is not readable)."""
    if tensor.data_type not in TYPE_IDS:
        raise ModelFormatError(f"{tensor.name}: values of type {tensor.dtype} are not read")
    dtype = np.dtype(TYPE_IDS[tensor.data_type]).newbyteorder("<")
    count = element_count(tensor.name, tensor.dims)
    if tensor.quantized and tensor.data_bytes != count * dtype.itemsize:
        raise ModelFormatError(f"{tensor.name}: quantized or compressed data ({tensor.data_bytes} bytes) is not read")
    if tensor.data_bytes != count * dtype.itemsize:
        raise ModelFormatError(f"{tensor.name}: {tensor.data_bytes} bytes of data for dims {list(tensor.dims)} of "
                               f"{tensor.dtype}")
    return np.frombuffer(model.data, dtype, count, tensor.data_start)
