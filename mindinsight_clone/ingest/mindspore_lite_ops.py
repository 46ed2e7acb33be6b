"""The attribute tables of MindSpore Lite operators, from MindSpore's `mindspore/lite/schema/ops.fbs` and
`ops_types.fbs` (Apache-2.0): for each primitive table its fields in declaration order (= FlatBuffers slot), type
and schema default, and the enums they use. A `.ms` node's primitive table is decoded with these
(`mindspore_lite_model.py`); primitives not listed here keep only their name (`facts.not_read` says so).

Covered: the operators of converted CNN, RNN and transformer inference graphs (convolutions, pooling, matmul,
element-wise with fused activations, normalisations, shape operators); listed empty where the schema's table is.
"""

from __future__ import annotations

# enum name -> (member names from the first value, first value); Format is an int, the others bytes
ENUMS: dict[str, tuple[tuple[str, ...], int]] = {
    "Format": (("NCHW", "NHWC", "NHWC4", "HWKC", "HWCK", "KCHW", "CKHW", "KHWC", "CHWK", "HW", "HW4", "NC", "NC4",
                "NC4HW4", "NUM_OF_FORMAT", "NCDHW"), 0),
    "ActivationType": (("NO_ACTIVATION", "RELU", "SIGMOID", "RELU6", "ELU", "LEAKY_RELU", "ABS", "RELU1", "SOFTSIGN",
                        "SOFTPLUS", "TANH", "SELU", "HSWISH", "HSIGMOID", "THRESHOLDRELU", "LINEAR", "HARD_TANH",
                        "SIGN", "SWISH", "GELU", "UNKNOWN"), 0),
    "PadMode": (("PAD", "SAME", "VALID"), 0),
    "RoundMode": (("FLOOR", "CEIL"), 0),
    "ReduceMode": (("ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceSum", "ReduceSumSquare",
                    "ReduceASum", "ReduceAll"), 0),
    "ResizeMethod": (("UNKNOWN", "LINEAR", "NEAREST", "CUBIC"), -1),
    "CoordinateTransformMode": (("ASYMMETRIC", "ALIGN_CORNERS", "HALF_PIXEL"), 0),
    "NearestMode": (("NORMAL", "ROUND_HALF_DOWN", "ROUND_HALF_UP", "FLOOR", "CEIL"), 0),
    "EltwiseMode": (("PROD", "SUM", "MAXIMUM", "UNKNOWN"), 0),
    "PaddingMode": (("CONSTANT", "REFLECT", "SYMMETRIC", "MODE_RESERVED"), 0),
    "Reduction": (("REDUCTION_SUM", "MEAN", "NONE"), 0),
}
INT_ENUMS = {"Format"}

_ACT = "activation_type:ActivationType"
_POOL = ("kernel_size:[long] strides:[long] pad:[long] pad_mode:PadMode round_mode:RoundMode format:Format global:bool "
         f"{_ACT}")
_CONV = ("format:Format kernel_size:[long] stride:[long] dilation:[long] pad_mode:PadMode {pad}pad_list:[long] "
         f"mode:long group:long in_channel:long out_channel:long {_ACT}")
_RNN = ("bidirectional:bool has_bias:bool input_size:long hidden_size:long num_layers:long num_directions:long "
        "dropout:float zoneout_cell:float zoneout_hidden:float")
_STRIDED = "begin_mask:long end_mask:long ellipsis_mask:long new_axis_mask:long shrink_axis_mask:long"

# primitive -> "field:type[=default] ..." in declaration order; "" = a table without fields
_SPECS = {
    "Abs": "", "Activation": f"{_ACT} alpha:float min_val:float max_val:float approximate:bool",
    "AddFusion": _ACT, "AddN": "", "ArgMaxFusion": "axis:long top_k:long=1 keep_dims:bool out_max_value:bool",
    "ArgMinFusion": "axis:long top_k:long keep_dims:bool out_max_value:bool", "Attention": "head_num:long "
    "head_size:long cross:bool", "AvgPoolFusion": _POOL, "BatchNorm": "epsilon:float format:Format is_training:bool",
    "BiasAdd": "format:Format", "BroadcastTo": "shape:[long]", "Cast": "", "Ceil": "", "Clip": "max:float min:float",
    "Concat": "axis:long", "Conv2DFusion": _CONV.format(pad=""),
    "Conv2dTransposeFusion": _CONV.format(pad="pad:[long] ") + " output_paddings:[long]", "Cos": "",
    "ConstantOfShape": "data_type:long value:[float]", "Crop": "axis:long offsets:[long]",
    "CropAndResize": "method:ResizeMethod extrapolation_value:float",
    "Depend": "", "DepthToSpace": "block_size:long format:Format mode:string", "DivFusion": _ACT,
    "Dropout": "keep_prob:float=0.5", "Eltwise": "mode:EltwiseMode", "Elu": "alpha:float", "Equal": "",
    "Erf": "", "ExpFusion": "base:float=-1 scale:float=1 shift:float", "ExpandDims": "", "Fill": "",
    "Flatten": "axis:long=1", "Floor": "", "FloorDiv": "", "FloorMod": "",
    "FullConnection": f"has_bias:bool use_axis:bool axis:long {_ACT}",
    "FusedBatchNorm": "epsilon:float=0.0001 momentum:float=0.9 mode:long", "Gather": "", "GatherNd": "",
    "Greater": "", "GreaterEqual": "", "GRU": "bidirectional:bool", "InstanceNorm": "epsilon:float",
    "LayerNormFusion": "begin_norm_axis:long epsilon:float=0.00001 elementwise_affine:bool begin_params_axis:long",
    "LeakyRelu": "negative_slope:float", "Less": "", "LessEqual": "", "Log": "", "LogicalAnd": "", "LogicalNot": "",
    "LogicalOr": "", "LRN": "depth_radius:long bias:float alpha:float beta:float norm_region:string",
    "LSTM": _RNN, "L2NormalizeFusion": f"axis:[long] epsilon:float {_ACT}",
    "MatMulFusion": f"transpose_a:bool transpose_b:bool {_ACT}", "Maximum": "", "MaxPoolFusion": _POOL,
    "Minimum": "", "Mod": "", "MulFusion": _ACT, "Neg": "", "NotEqual": "", "OneHot": "axis:long", "OnesLike": "",
    "PadFusion": "paddings:Vec2D padding_mode:PaddingMode constant_value:float", "PowFusion": "scale:float=1 "
    "shift:float", "PReLUFusion": "channel_shared:bool", "QuantDTypeCast": "src_t:long dst_t:long axis:long",
    "Range": "d_type:long start:long limit:long delta:long=1", "Rank": "", "RealDiv": "", "Reciprocal": "",
    "ReduceFusion": "keep_dims:bool mode:ReduceMode reduce_to_end:bool coeff:float", "Reshape": "",
    "Resize": "format:Format method:ResizeMethod new_height:long new_width:long preserve_aspect_ratio:bool "
    "coordinate_transform_mode:CoordinateTransformMode cubic_coeff:float exclude_outside:long "
    "extrapolation_value:float nearest_mode:NearestMode", "ReverseV2": "axis:[long]", "Round": "", "Rsqrt": "",
    "ScaleFusion": f"axis:long {_ACT}", "Select": "", "Shape": "", "Sin": "", "Size": "", "SliceFusion": "axes:[long]",
    "Softmax": "axis:[long]", "SpaceToDepth": "block_size:long format:Format",
    "Split": "output_num:long size_splits:[long] axis:long", "Sqrt": "", "Square": "", "SquaredDifference": "",
    "Squeeze": "axis:[long]", "Stack": "axis:long", "StridedSlice": _STRIDED, "SubFusion": _ACT,
    "TileFusion": "dims:[long]", "TopKFusion": "sorted:bool=true axis:long largest:long", "Transpose": "",
    "Unsqueeze": "axis:[long]", "Unstack": "axis:long", "Where": "", "ZerosLike": "",
}


def _parse(spec: str) -> tuple[tuple[str, str, str], ...]:
    fields = []
    for item in spec.split():
        name, _, rest = item.partition(":")
        kind, _, default = rest.partition("=")
        fields.append((name, kind, default))
    return tuple(fields)


# primitive -> ((field, type, default text), ...)
OPERATOR_FIELDS: dict[str, tuple[tuple[str, str, str], ...]] = {name: _parse(spec) for name, spec in _SPECS.items()}


def enum_text(enum: str, value: int) -> str:
    names, first = ENUMS[enum]
    index = value - first
    return names[index] if 0 <= index < len(names) else str(value)
