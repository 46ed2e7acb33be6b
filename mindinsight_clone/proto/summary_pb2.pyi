from . import anf_ir_pb2 as _anf_ir_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Event(_message.Message):
    __slots__ = ("wall_time", "step", "version", "graph_def", "summary", "explain")
    WALL_TIME_FIELD_NUMBER: _ClassVar[int]
    STEP_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    GRAPH_DEF_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    EXPLAIN_FIELD_NUMBER: _ClassVar[int]
    wall_time: float
    step: int
    version: str
    graph_def: _anf_ir_pb2.GraphProto
    summary: Summary
    explain: Explain
    def __init__(self, wall_time: _Optional[float] = ..., step: _Optional[int] = ..., version: _Optional[str] = ..., graph_def: _Optional[_Union[_anf_ir_pb2.GraphProto, _Mapping]] = ..., summary: _Optional[_Union[Summary, _Mapping]] = ..., explain: _Optional[_Union[Explain, _Mapping]] = ...) -> None: ...

class Summary(_message.Message):
    __slots__ = ("value",)
    class Image(_message.Message):
        __slots__ = ("height", "width", "colorspace", "encoded_image")
        HEIGHT_FIELD_NUMBER: _ClassVar[int]
        WIDTH_FIELD_NUMBER: _ClassVar[int]
        COLORSPACE_FIELD_NUMBER: _ClassVar[int]
        ENCODED_IMAGE_FIELD_NUMBER: _ClassVar[int]
        height: int
        width: int
        colorspace: int
        encoded_image: bytes
        def __init__(self, height: _Optional[int] = ..., width: _Optional[int] = ..., colorspace: _Optional[int] = ..., encoded_image: _Optional[bytes] = ...) -> None: ...
    class Histogram(_message.Message):
        __slots__ = ("buckets", "nan_count", "pos_inf_count", "neg_inf_count", "max", "min", "sum", "count")
        class bucket(_message.Message):
            __slots__ = ("left", "width", "count")
            LEFT_FIELD_NUMBER: _ClassVar[int]
            WIDTH_FIELD_NUMBER: _ClassVar[int]
            COUNT_FIELD_NUMBER: _ClassVar[int]
            left: float
            width: float
            count: int
            def __init__(self, left: _Optional[float] = ..., width: _Optional[float] = ..., count: _Optional[int] = ...) -> None: ...
        BUCKETS_FIELD_NUMBER: _ClassVar[int]
        NAN_COUNT_FIELD_NUMBER: _ClassVar[int]
        POS_INF_COUNT_FIELD_NUMBER: _ClassVar[int]
        NEG_INF_COUNT_FIELD_NUMBER: _ClassVar[int]
        MAX_FIELD_NUMBER: _ClassVar[int]
        MIN_FIELD_NUMBER: _ClassVar[int]
        SUM_FIELD_NUMBER: _ClassVar[int]
        COUNT_FIELD_NUMBER: _ClassVar[int]
        buckets: _containers.RepeatedCompositeFieldContainer[Summary.Histogram.bucket]
        nan_count: int
        pos_inf_count: int
        neg_inf_count: int
        max: float
        min: float
        sum: float
        count: int
        def __init__(self, buckets: _Optional[_Iterable[_Union[Summary.Histogram.bucket, _Mapping]]] = ..., nan_count: _Optional[int] = ..., pos_inf_count: _Optional[int] = ..., neg_inf_count: _Optional[int] = ..., max: _Optional[float] = ..., min: _Optional[float] = ..., sum: _Optional[float] = ..., count: _Optional[int] = ...) -> None: ...
    class Value(_message.Message):
        __slots__ = ("tag", "scalar_value", "image", "tensor", "histogram", "loss_landscape")
        TAG_FIELD_NUMBER: _ClassVar[int]
        SCALAR_VALUE_FIELD_NUMBER: _ClassVar[int]
        IMAGE_FIELD_NUMBER: _ClassVar[int]
        TENSOR_FIELD_NUMBER: _ClassVar[int]
        HISTOGRAM_FIELD_NUMBER: _ClassVar[int]
        LOSS_LANDSCAPE_FIELD_NUMBER: _ClassVar[int]
        tag: str
        scalar_value: float
        image: Summary.Image
        tensor: _anf_ir_pb2.TensorProto
        histogram: Summary.Histogram
        loss_landscape: LossLandscape
        def __init__(self, tag: _Optional[str] = ..., scalar_value: _Optional[float] = ..., image: _Optional[_Union[Summary.Image, _Mapping]] = ..., tensor: _Optional[_Union[_anf_ir_pb2.TensorProto, _Mapping]] = ..., histogram: _Optional[_Union[Summary.Histogram, _Mapping]] = ..., loss_landscape: _Optional[_Union[LossLandscape, _Mapping]] = ...) -> None: ...
    VALUE_FIELD_NUMBER: _ClassVar[int]
    value: _containers.RepeatedCompositeFieldContainer[Summary.Value]
    def __init__(self, value: _Optional[_Iterable[_Union[Summary.Value, _Mapping]]] = ...) -> None: ...

class LossLandscape(_message.Message):
    __slots__ = ("landscape", "loss_path", "metadata", "convergence_point")
    class Points(_message.Message):
        __slots__ = ("x", "y", "z")
        X_FIELD_NUMBER: _ClassVar[int]
        Y_FIELD_NUMBER: _ClassVar[int]
        Z_FIELD_NUMBER: _ClassVar[int]
        x: _anf_ir_pb2.TensorProto
        y: _anf_ir_pb2.TensorProto
        z: _anf_ir_pb2.TensorProto
        def __init__(self, x: _Optional[_Union[_anf_ir_pb2.TensorProto, _Mapping]] = ..., y: _Optional[_Union[_anf_ir_pb2.TensorProto, _Mapping]] = ..., z: _Optional[_Union[_anf_ir_pb2.TensorProto, _Mapping]] = ...) -> None: ...
    class LossPath(_message.Message):
        __slots__ = ("intervals", "points")
        INTERVALS_FIELD_NUMBER: _ClassVar[int]
        POINTS_FIELD_NUMBER: _ClassVar[int]
        intervals: _containers.RepeatedScalarFieldContainer[int]
        points: LossLandscape.Points
        def __init__(self, intervals: _Optional[_Iterable[int]] = ..., points: _Optional[_Union[LossLandscape.Points, _Mapping]] = ...) -> None: ...
    class Metadata(_message.Message):
        __slots__ = ("decomposition", "unit", "step_per_epoch")
        DECOMPOSITION_FIELD_NUMBER: _ClassVar[int]
        UNIT_FIELD_NUMBER: _ClassVar[int]
        STEP_PER_EPOCH_FIELD_NUMBER: _ClassVar[int]
        decomposition: str
        unit: str
        step_per_epoch: int
        def __init__(self, decomposition: _Optional[str] = ..., unit: _Optional[str] = ..., step_per_epoch: _Optional[int] = ...) -> None: ...
    LANDSCAPE_FIELD_NUMBER: _ClassVar[int]
    LOSS_PATH_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    CONVERGENCE_POINT_FIELD_NUMBER: _ClassVar[int]
    landscape: LossLandscape.Points
    loss_path: LossLandscape.LossPath
    metadata: LossLandscape.Metadata
    convergence_point: LossLandscape.Points
    def __init__(self, landscape: _Optional[_Union[LossLandscape.Points, _Mapping]] = ..., loss_path: _Optional[_Union[LossLandscape.LossPath, _Mapping]] = ..., metadata: _Optional[_Union[LossLandscape.Metadata, _Mapping]] = ..., convergence_point: _Optional[_Union[LossLandscape.Points, _Mapping]] = ...) -> None: ...

class Explain(_message.Message):
    __slots__ = ("sample_id", "image_path", "ground_truth_label", "inference", "explanation", "benchmark", "metadata", "status", "hoc")
    class Inference(_message.Message):
        __slots__ = ("ground_truth_prob", "predicted_label", "predicted_prob", "ground_truth_prob_sd", "ground_truth_prob_itl95_low", "ground_truth_prob_itl95_hi", "predicted_prob_sd", "predicted_prob_itl95_low", "predicted_prob_itl95_hi")
        GROUND_TRUTH_PROB_FIELD_NUMBER: _ClassVar[int]
        PREDICTED_LABEL_FIELD_NUMBER: _ClassVar[int]
        PREDICTED_PROB_FIELD_NUMBER: _ClassVar[int]
        GROUND_TRUTH_PROB_SD_FIELD_NUMBER: _ClassVar[int]
        GROUND_TRUTH_PROB_ITL95_LOW_FIELD_NUMBER: _ClassVar[int]
        GROUND_TRUTH_PROB_ITL95_HI_FIELD_NUMBER: _ClassVar[int]
        PREDICTED_PROB_SD_FIELD_NUMBER: _ClassVar[int]
        PREDICTED_PROB_ITL95_LOW_FIELD_NUMBER: _ClassVar[int]
        PREDICTED_PROB_ITL95_HI_FIELD_NUMBER: _ClassVar[int]
        ground_truth_prob: _containers.RepeatedScalarFieldContainer[float]
        predicted_label: _containers.RepeatedScalarFieldContainer[int]
        predicted_prob: _containers.RepeatedScalarFieldContainer[float]
        ground_truth_prob_sd: _containers.RepeatedScalarFieldContainer[float]
        ground_truth_prob_itl95_low: _containers.RepeatedScalarFieldContainer[float]
        ground_truth_prob_itl95_hi: _containers.RepeatedScalarFieldContainer[float]
        predicted_prob_sd: _containers.RepeatedScalarFieldContainer[float]
        predicted_prob_itl95_low: _containers.RepeatedScalarFieldContainer[float]
        predicted_prob_itl95_hi: _containers.RepeatedScalarFieldContainer[float]
        def __init__(self, ground_truth_prob: _Optional[_Iterable[float]] = ..., predicted_label: _Optional[_Iterable[int]] = ..., predicted_prob: _Optional[_Iterable[float]] = ..., ground_truth_prob_sd: _Optional[_Iterable[float]] = ..., ground_truth_prob_itl95_low: _Optional[_Iterable[float]] = ..., ground_truth_prob_itl95_hi: _Optional[_Iterable[float]] = ..., predicted_prob_sd: _Optional[_Iterable[float]] = ..., predicted_prob_itl95_low: _Optional[_Iterable[float]] = ..., predicted_prob_itl95_hi: _Optional[_Iterable[float]] = ...) -> None: ...
    class Explanation(_message.Message):
        __slots__ = ("explain_method", "label", "heatmap_path")
        EXPLAIN_METHOD_FIELD_NUMBER: _ClassVar[int]
        LABEL_FIELD_NUMBER: _ClassVar[int]
        HEATMAP_PATH_FIELD_NUMBER: _ClassVar[int]
        explain_method: str
        label: int
        heatmap_path: str
        def __init__(self, explain_method: _Optional[str] = ..., label: _Optional[int] = ..., heatmap_path: _Optional[str] = ...) -> None: ...
    class Benchmark(_message.Message):
        __slots__ = ("benchmark_method", "explain_method", "total_score", "label_score")
        BENCHMARK_METHOD_FIELD_NUMBER: _ClassVar[int]
        EXPLAIN_METHOD_FIELD_NUMBER: _ClassVar[int]
        TOTAL_SCORE_FIELD_NUMBER: _ClassVar[int]
        LABEL_SCORE_FIELD_NUMBER: _ClassVar[int]
        benchmark_method: str
        explain_method: str
        total_score: float
        label_score: _containers.RepeatedScalarFieldContainer[float]
        def __init__(self, benchmark_method: _Optional[str] = ..., explain_method: _Optional[str] = ..., total_score: _Optional[float] = ..., label_score: _Optional[_Iterable[float]] = ...) -> None: ...
    class Metadata(_message.Message):
        __slots__ = ("label", "explain_method", "benchmark_method")
        LABEL_FIELD_NUMBER: _ClassVar[int]
        EXPLAIN_METHOD_FIELD_NUMBER: _ClassVar[int]
        BENCHMARK_METHOD_FIELD_NUMBER: _ClassVar[int]
        label: _containers.RepeatedScalarFieldContainer[str]
        explain_method: _containers.RepeatedScalarFieldContainer[str]
        benchmark_method: _containers.RepeatedScalarFieldContainer[str]
        def __init__(self, label: _Optional[_Iterable[str]] = ..., explain_method: _Optional[_Iterable[str]] = ..., benchmark_method: _Optional[_Iterable[str]] = ...) -> None: ...
    class HocLayer(_message.Message):
        __slots__ = ("prob", "box")
        PROB_FIELD_NUMBER: _ClassVar[int]
        BOX_FIELD_NUMBER: _ClassVar[int]
        prob: float
        box: _containers.RepeatedScalarFieldContainer[int]
        def __init__(self, prob: _Optional[float] = ..., box: _Optional[_Iterable[int]] = ...) -> None: ...
    class Hoc(_message.Message):
        __slots__ = ("label", "mask", "layer")
        LABEL_FIELD_NUMBER: _ClassVar[int]
        MASK_FIELD_NUMBER: _ClassVar[int]
        LAYER_FIELD_NUMBER: _ClassVar[int]
        label: int
        mask: str
        layer: _containers.RepeatedCompositeFieldContainer[Explain.HocLayer]
        def __init__(self, label: _Optional[int] = ..., mask: _Optional[str] = ..., layer: _Optional[_Iterable[_Union[Explain.HocLayer, _Mapping]]] = ...) -> None: ...
    SAMPLE_ID_FIELD_NUMBER: _ClassVar[int]
    IMAGE_PATH_FIELD_NUMBER: _ClassVar[int]
    GROUND_TRUTH_LABEL_FIELD_NUMBER: _ClassVar[int]
    INFERENCE_FIELD_NUMBER: _ClassVar[int]
    EXPLANATION_FIELD_NUMBER: _ClassVar[int]
    BENCHMARK_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    HOC_FIELD_NUMBER: _ClassVar[int]
    sample_id: int
    image_path: str
    ground_truth_label: _containers.RepeatedScalarFieldContainer[int]
    inference: Explain.Inference
    explanation: _containers.RepeatedCompositeFieldContainer[Explain.Explanation]
    benchmark: _containers.RepeatedCompositeFieldContainer[Explain.Benchmark]
    metadata: Explain.Metadata
    status: str
    hoc: _containers.RepeatedCompositeFieldContainer[Explain.Hoc]
    def __init__(self, sample_id: _Optional[int] = ..., image_path: _Optional[str] = ..., ground_truth_label: _Optional[_Iterable[int]] = ..., inference: _Optional[_Union[Explain.Inference, _Mapping]] = ..., explanation: _Optional[_Iterable[_Union[Explain.Explanation, _Mapping]]] = ..., benchmark: _Optional[_Iterable[_Union[Explain.Benchmark, _Mapping]]] = ..., metadata: _Optional[_Union[Explain.Metadata, _Mapping]] = ..., status: _Optional[str] = ..., hoc: _Optional[_Iterable[_Union[Explain.Hoc, _Mapping]]] = ...) -> None: ...
