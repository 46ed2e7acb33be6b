from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Version(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    IR_VERSION_START: _ClassVar[Version]
    IR_VERSION: _ClassVar[Version]
IR_VERSION_START: Version
IR_VERSION: Version

class AttributeProto(_message.Message):
    __slots__ = ("name", "f", "i", "d", "s", "t", "g", "floats", "doubles", "ints", "strings", "tensors", "graphs", "doc_string", "ref_attr_name", "type", "values", "tuple_info")
    class AttributeType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        UNDEFINED: _ClassVar[AttributeProto.AttributeType]
        FLOAT: _ClassVar[AttributeProto.AttributeType]
        UINT8: _ClassVar[AttributeProto.AttributeType]
        INT8: _ClassVar[AttributeProto.AttributeType]
        UINT16: _ClassVar[AttributeProto.AttributeType]
        INT16: _ClassVar[AttributeProto.AttributeType]
        INT32: _ClassVar[AttributeProto.AttributeType]
        INT64: _ClassVar[AttributeProto.AttributeType]
        STRING: _ClassVar[AttributeProto.AttributeType]
        BOOL: _ClassVar[AttributeProto.AttributeType]
        FLOAT16: _ClassVar[AttributeProto.AttributeType]
        DOUBLE: _ClassVar[AttributeProto.AttributeType]
        UINT32: _ClassVar[AttributeProto.AttributeType]
        UINT64: _ClassVar[AttributeProto.AttributeType]
        COMPLEX64: _ClassVar[AttributeProto.AttributeType]
        COMPLEX128: _ClassVar[AttributeProto.AttributeType]
        BFLOAT16: _ClassVar[AttributeProto.AttributeType]
        TENSOR: _ClassVar[AttributeProto.AttributeType]
        GRAPH: _ClassVar[AttributeProto.AttributeType]
        TENSORS: _ClassVar[AttributeProto.AttributeType]
        TUPLE: _ClassVar[AttributeProto.AttributeType]
        LIST: _ClassVar[AttributeProto.AttributeType]
        DICT: _ClassVar[AttributeProto.AttributeType]
        UMONAD: _ClassVar[AttributeProto.AttributeType]
        IOMONAD: _ClassVar[AttributeProto.AttributeType]
        NONE: _ClassVar[AttributeProto.AttributeType]
        PRIMITIVECLOSURE: _ClassVar[AttributeProto.AttributeType]
        FUNCGRAPHCLOSURE: _ClassVar[AttributeProto.AttributeType]
        PARTIALCLOSURE: _ClassVar[AttributeProto.AttributeType]
        UNIONFUNCCLOSURE: _ClassVar[AttributeProto.AttributeType]
        CSR_TENSOR: _ClassVar[AttributeProto.AttributeType]
        COO_TENSOR: _ClassVar[AttributeProto.AttributeType]
        ROW_TENSOR: _ClassVar[AttributeProto.AttributeType]
        CLASS_TYPE: _ClassVar[AttributeProto.AttributeType]
        NAME_SPACE: _ClassVar[AttributeProto.AttributeType]
        SYMBOL: _ClassVar[AttributeProto.AttributeType]
        TYPE_NULL: _ClassVar[AttributeProto.AttributeType]
        MAP_TENSOR: _ClassVar[AttributeProto.AttributeType]
    UNDEFINED: AttributeProto.AttributeType
    FLOAT: AttributeProto.AttributeType
    UINT8: AttributeProto.AttributeType
    INT8: AttributeProto.AttributeType
    UINT16: AttributeProto.AttributeType
    INT16: AttributeProto.AttributeType
    INT32: AttributeProto.AttributeType
    INT64: AttributeProto.AttributeType
    STRING: AttributeProto.AttributeType
    BOOL: AttributeProto.AttributeType
    FLOAT16: AttributeProto.AttributeType
    DOUBLE: AttributeProto.AttributeType
    UINT32: AttributeProto.AttributeType
    UINT64: AttributeProto.AttributeType
    COMPLEX64: AttributeProto.AttributeType
    COMPLEX128: AttributeProto.AttributeType
    BFLOAT16: AttributeProto.AttributeType
    TENSOR: AttributeProto.AttributeType
    GRAPH: AttributeProto.AttributeType
    TENSORS: AttributeProto.AttributeType
    TUPLE: AttributeProto.AttributeType
    LIST: AttributeProto.AttributeType
    DICT: AttributeProto.AttributeType
    UMONAD: AttributeProto.AttributeType
    IOMONAD: AttributeProto.AttributeType
    NONE: AttributeProto.AttributeType
    PRIMITIVECLOSURE: AttributeProto.AttributeType
    FUNCGRAPHCLOSURE: AttributeProto.AttributeType
    PARTIALCLOSURE: AttributeProto.AttributeType
    UNIONFUNCCLOSURE: AttributeProto.AttributeType
    CSR_TENSOR: AttributeProto.AttributeType
    COO_TENSOR: AttributeProto.AttributeType
    ROW_TENSOR: AttributeProto.AttributeType
    CLASS_TYPE: AttributeProto.AttributeType
    NAME_SPACE: AttributeProto.AttributeType
    SYMBOL: AttributeProto.AttributeType
    TYPE_NULL: AttributeProto.AttributeType
    MAP_TENSOR: AttributeProto.AttributeType
    class TupleInfoProto(_message.Message):
        __slots__ = ("is_dyn_len", "tuple_elem_item")
        IS_DYN_LEN_FIELD_NUMBER: _ClassVar[int]
        TUPLE_ELEM_ITEM_FIELD_NUMBER: _ClassVar[int]
        is_dyn_len: bool
        tuple_elem_item: AttributeProto
        def __init__(self, is_dyn_len: _Optional[bool] = ..., tuple_elem_item: _Optional[_Union[AttributeProto, _Mapping]] = ...) -> None: ...
    NAME_FIELD_NUMBER: _ClassVar[int]
    F_FIELD_NUMBER: _ClassVar[int]
    I_FIELD_NUMBER: _ClassVar[int]
    D_FIELD_NUMBER: _ClassVar[int]
    S_FIELD_NUMBER: _ClassVar[int]
    T_FIELD_NUMBER: _ClassVar[int]
    G_FIELD_NUMBER: _ClassVar[int]
    FLOATS_FIELD_NUMBER: _ClassVar[int]
    DOUBLES_FIELD_NUMBER: _ClassVar[int]
    INTS_FIELD_NUMBER: _ClassVar[int]
    STRINGS_FIELD_NUMBER: _ClassVar[int]
    TENSORS_FIELD_NUMBER: _ClassVar[int]
    GRAPHS_FIELD_NUMBER: _ClassVar[int]
    DOC_STRING_FIELD_NUMBER: _ClassVar[int]
    REF_ATTR_NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    VALUES_FIELD_NUMBER: _ClassVar[int]
    TUPLE_INFO_FIELD_NUMBER: _ClassVar[int]
    name: str
    f: float
    i: int
    d: float
    s: bytes
    t: TensorProto
    g: GraphProto
    floats: _containers.RepeatedScalarFieldContainer[float]
    doubles: _containers.RepeatedScalarFieldContainer[float]
    ints: _containers.RepeatedScalarFieldContainer[int]
    strings: _containers.RepeatedScalarFieldContainer[bytes]
    tensors: _containers.RepeatedCompositeFieldContainer[TensorProto]
    graphs: _containers.RepeatedCompositeFieldContainer[GraphProto]
    doc_string: str
    ref_attr_name: str
    type: AttributeProto.AttributeType
    values: _containers.RepeatedCompositeFieldContainer[AttributeProto]
    tuple_info: AttributeProto.TupleInfoProto
    def __init__(self, name: _Optional[str] = ..., f: _Optional[float] = ..., i: _Optional[int] = ..., d: _Optional[float] = ..., s: _Optional[bytes] = ..., t: _Optional[_Union[TensorProto, _Mapping]] = ..., g: _Optional[_Union[GraphProto, _Mapping]] = ..., floats: _Optional[_Iterable[float]] = ..., doubles: _Optional[_Iterable[float]] = ..., ints: _Optional[_Iterable[int]] = ..., strings: _Optional[_Iterable[bytes]] = ..., tensors: _Optional[_Iterable[_Union[TensorProto, _Mapping]]] = ..., graphs: _Optional[_Iterable[_Union[GraphProto, _Mapping]]] = ..., doc_string: _Optional[str] = ..., ref_attr_name: _Optional[str] = ..., type: _Optional[_Union[AttributeProto.AttributeType, str]] = ..., values: _Optional[_Iterable[_Union[AttributeProto, _Mapping]]] = ..., tuple_info: _Optional[_Union[AttributeProto.TupleInfoProto, _Mapping]] = ...) -> None: ...

class ValueInfoProto(_message.Message):
    __slots__ = ("name", "tensor", "doc_string", "denotation", "attr_info")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TENSOR_FIELD_NUMBER: _ClassVar[int]
    DOC_STRING_FIELD_NUMBER: _ClassVar[int]
    DENOTATION_FIELD_NUMBER: _ClassVar[int]
    ATTR_INFO_FIELD_NUMBER: _ClassVar[int]
    name: str
    tensor: _containers.RepeatedCompositeFieldContainer[TensorProto]
    doc_string: str
    denotation: str
    attr_info: AttributeProto
    def __init__(self, name: _Optional[str] = ..., tensor: _Optional[_Iterable[_Union[TensorProto, _Mapping]]] = ..., doc_string: _Optional[str] = ..., denotation: _Optional[str] = ..., attr_info: _Optional[_Union[AttributeProto, _Mapping]] = ...) -> None: ...

class NodeProto(_message.Message):
    __slots__ = ("input", "output", "name", "op_type", "attribute", "doc_string", "domain", "node_attr", "primal_attr")
    INPUT_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    OP_TYPE_FIELD_NUMBER: _ClassVar[int]
    ATTRIBUTE_FIELD_NUMBER: _ClassVar[int]
    DOC_STRING_FIELD_NUMBER: _ClassVar[int]
    DOMAIN_FIELD_NUMBER: _ClassVar[int]
    NODE_ATTR_FIELD_NUMBER: _ClassVar[int]
    PRIMAL_ATTR_FIELD_NUMBER: _ClassVar[int]
    input: _containers.RepeatedScalarFieldContainer[str]
    output: _containers.RepeatedScalarFieldContainer[str]
    name: str
    op_type: str
    attribute: _containers.RepeatedCompositeFieldContainer[AttributeProto]
    doc_string: str
    domain: str
    node_attr: _containers.RepeatedCompositeFieldContainer[AttributeProto]
    primal_attr: _containers.RepeatedCompositeFieldContainer[AttributeProto]
    def __init__(self, input: _Optional[_Iterable[str]] = ..., output: _Optional[_Iterable[str]] = ..., name: _Optional[str] = ..., op_type: _Optional[str] = ..., attribute: _Optional[_Iterable[_Union[AttributeProto, _Mapping]]] = ..., doc_string: _Optional[str] = ..., domain: _Optional[str] = ..., node_attr: _Optional[_Iterable[_Union[AttributeProto, _Mapping]]] = ..., primal_attr: _Optional[_Iterable[_Union[AttributeProto, _Mapping]]] = ...) -> None: ...

class ModelProto(_message.Message):
    __slots__ = ("ir_version", "producer_name", "producer_version", "domain", "model_version", "doc_string", "graph", "functions", "preprocessor", "little_endian", "parallel", "primitives", "mind_ir_version")
    IR_VERSION_FIELD_NUMBER: _ClassVar[int]
    PRODUCER_NAME_FIELD_NUMBER: _ClassVar[int]
    PRODUCER_VERSION_FIELD_NUMBER: _ClassVar[int]
    DOMAIN_FIELD_NUMBER: _ClassVar[int]
    MODEL_VERSION_FIELD_NUMBER: _ClassVar[int]
    DOC_STRING_FIELD_NUMBER: _ClassVar[int]
    GRAPH_FIELD_NUMBER: _ClassVar[int]
    FUNCTIONS_FIELD_NUMBER: _ClassVar[int]
    PREPROCESSOR_FIELD_NUMBER: _ClassVar[int]
    LITTLE_ENDIAN_FIELD_NUMBER: _ClassVar[int]
    PARALLEL_FIELD_NUMBER: _ClassVar[int]
    PRIMITIVES_FIELD_NUMBER: _ClassVar[int]
    MIND_IR_VERSION_FIELD_NUMBER: _ClassVar[int]
    ir_version: str
    producer_name: str
    producer_version: str
    domain: str
    model_version: str
    doc_string: str
    graph: GraphProto
    functions: _containers.RepeatedCompositeFieldContainer[GraphProto]
    preprocessor: PreprocessorProto
    little_endian: bool
    parallel: ParallelProto
    primitives: _containers.RepeatedCompositeFieldContainer[PrimitiveProto]
    mind_ir_version: int
    def __init__(self, ir_version: _Optional[str] = ..., producer_name: _Optional[str] = ..., producer_version: _Optional[str] = ..., domain: _Optional[str] = ..., model_version: _Optional[str] = ..., doc_string: _Optional[str] = ..., graph: _Optional[_Union[GraphProto, _Mapping]] = ..., functions: _Optional[_Iterable[_Union[GraphProto, _Mapping]]] = ..., preprocessor: _Optional[_Union[PreprocessorProto, _Mapping]] = ..., little_endian: _Optional[bool] = ..., parallel: _Optional[_Union[ParallelProto, _Mapping]] = ..., primitives: _Optional[_Iterable[_Union[PrimitiveProto, _Mapping]]] = ..., mind_ir_version: _Optional[int] = ...) -> None: ...

class PreprocessorProto(_message.Message):
    __slots__ = ("op",)
    OP_FIELD_NUMBER: _ClassVar[int]
    op: _containers.RepeatedCompositeFieldContainer[PreprocessOpProto]
    def __init__(self, op: _Optional[_Iterable[_Union[PreprocessOpProto, _Mapping]]] = ...) -> None: ...

class PreprocessOpProto(_message.Message):
    __slots__ = ("input_columns", "output_columns", "project_columns", "op_type", "operations", "offload")
    INPUT_COLUMNS_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_COLUMNS_FIELD_NUMBER: _ClassVar[int]
    PROJECT_COLUMNS_FIELD_NUMBER: _ClassVar[int]
    OP_TYPE_FIELD_NUMBER: _ClassVar[int]
    OPERATIONS_FIELD_NUMBER: _ClassVar[int]
    OFFLOAD_FIELD_NUMBER: _ClassVar[int]
    input_columns: str
    output_columns: str
    project_columns: str
    op_type: str
    operations: str
    offload: bool
    def __init__(self, input_columns: _Optional[str] = ..., output_columns: _Optional[str] = ..., project_columns: _Optional[str] = ..., op_type: _Optional[str] = ..., operations: _Optional[str] = ..., offload: _Optional[bool] = ...) -> None: ...

class GraphProto(_message.Message):
    __slots__ = ("node", "name", "parameter", "doc_string", "input", "output", "bprop_hash", "attribute", "bprop_filepath", "map_parameter")
    NODE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PARAMETER_FIELD_NUMBER: _ClassVar[int]
    DOC_STRING_FIELD_NUMBER: _ClassVar[int]
    INPUT_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_FIELD_NUMBER: _ClassVar[int]
    BPROP_HASH_FIELD_NUMBER: _ClassVar[int]
    ATTRIBUTE_FIELD_NUMBER: _ClassVar[int]
    BPROP_FILEPATH_FIELD_NUMBER: _ClassVar[int]
    MAP_PARAMETER_FIELD_NUMBER: _ClassVar[int]
    node: _containers.RepeatedCompositeFieldContainer[NodeProto]
    name: str
    parameter: _containers.RepeatedCompositeFieldContainer[TensorProto]
    doc_string: str
    input: _containers.RepeatedCompositeFieldContainer[ValueInfoProto]
    output: _containers.RepeatedCompositeFieldContainer[ValueInfoProto]
    bprop_hash: str
    attribute: _containers.RepeatedCompositeFieldContainer[AttributeProto]
    bprop_filepath: str
    map_parameter: _containers.RepeatedCompositeFieldContainer[MapTensorProto]
    def __init__(self, node: _Optional[_Iterable[_Union[NodeProto, _Mapping]]] = ..., name: _Optional[str] = ..., parameter: _Optional[_Iterable[_Union[TensorProto, _Mapping]]] = ..., doc_string: _Optional[str] = ..., input: _Optional[_Iterable[_Union[ValueInfoProto, _Mapping]]] = ..., output: _Optional[_Iterable[_Union[ValueInfoProto, _Mapping]]] = ..., bprop_hash: _Optional[str] = ..., attribute: _Optional[_Iterable[_Union[AttributeProto, _Mapping]]] = ..., bprop_filepath: _Optional[str] = ..., map_parameter: _Optional[_Iterable[_Union[MapTensorProto, _Mapping]]] = ...) -> None: ...

class TensorProto(_message.Message):
    __slots__ = ("dims", "data_type", "float_data", "int32_data", "string_data", "int64_data", "name", "doc_string", "raw_data", "double_data", "uint64_data", "external_data", "ref_key", "min_dims", "max_dims", "compression_type", "quant_params")
    class DataType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        UNDEFINED: _ClassVar[TensorProto.DataType]
        FLOAT: _ClassVar[TensorProto.DataType]
        UINT8: _ClassVar[TensorProto.DataType]
        INT8: _ClassVar[TensorProto.DataType]
        UINT16: _ClassVar[TensorProto.DataType]
        INT16: _ClassVar[TensorProto.DataType]
        INT32: _ClassVar[TensorProto.DataType]
        INT64: _ClassVar[TensorProto.DataType]
        STRING: _ClassVar[TensorProto.DataType]
        BOOL: _ClassVar[TensorProto.DataType]
        FLOAT16: _ClassVar[TensorProto.DataType]
        DOUBLE: _ClassVar[TensorProto.DataType]
        UINT32: _ClassVar[TensorProto.DataType]
        UINT64: _ClassVar[TensorProto.DataType]
        COMPLEX64: _ClassVar[TensorProto.DataType]
        COMPLEX128: _ClassVar[TensorProto.DataType]
        BFLOAT16: _ClassVar[TensorProto.DataType]
        FLOAT64: _ClassVar[TensorProto.DataType]
    UNDEFINED: TensorProto.DataType
    FLOAT: TensorProto.DataType
    UINT8: TensorProto.DataType
    INT8: TensorProto.DataType
    UINT16: TensorProto.DataType
    INT16: TensorProto.DataType
    INT32: TensorProto.DataType
    INT64: TensorProto.DataType
    STRING: TensorProto.DataType
    BOOL: TensorProto.DataType
    FLOAT16: TensorProto.DataType
    DOUBLE: TensorProto.DataType
    UINT32: TensorProto.DataType
    UINT64: TensorProto.DataType
    COMPLEX64: TensorProto.DataType
    COMPLEX128: TensorProto.DataType
    BFLOAT16: TensorProto.DataType
    FLOAT64: TensorProto.DataType
    class CompressionType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        NO_COMPRESSION: _ClassVar[TensorProto.CompressionType]
        INDEXING: _ClassVar[TensorProto.CompressionType]
        SPARSE: _ClassVar[TensorProto.CompressionType]
        FSE: _ClassVar[TensorProto.CompressionType]
        BIT_PACKING: _ClassVar[TensorProto.CompressionType]
        FSE_INT: _ClassVar[TensorProto.CompressionType]
        FSE_INFER: _ClassVar[TensorProto.CompressionType]
    NO_COMPRESSION: TensorProto.CompressionType
    INDEXING: TensorProto.CompressionType
    SPARSE: TensorProto.CompressionType
    FSE: TensorProto.CompressionType
    BIT_PACKING: TensorProto.CompressionType
    FSE_INT: TensorProto.CompressionType
    FSE_INFER: TensorProto.CompressionType
    class ExternalDataProto(_message.Message):
        __slots__ = ("location", "offset", "length", "checksum")
        LOCATION_FIELD_NUMBER: _ClassVar[int]
        OFFSET_FIELD_NUMBER: _ClassVar[int]
        LENGTH_FIELD_NUMBER: _ClassVar[int]
        CHECKSUM_FIELD_NUMBER: _ClassVar[int]
        location: str
        offset: int
        length: int
        checksum: str
        def __init__(self, location: _Optional[str] = ..., offset: _Optional[int] = ..., length: _Optional[int] = ..., checksum: _Optional[str] = ...) -> None: ...
    class QuantParamProto(_message.Message):
        __slots__ = ("quant_algo_name", "attribute")
        QUANT_ALGO_NAME_FIELD_NUMBER: _ClassVar[int]
        ATTRIBUTE_FIELD_NUMBER: _ClassVar[int]
        quant_algo_name: str
        attribute: _containers.RepeatedCompositeFieldContainer[AttributeProto]
        def __init__(self, quant_algo_name: _Optional[str] = ..., attribute: _Optional[_Iterable[_Union[AttributeProto, _Mapping]]] = ...) -> None: ...
    DIMS_FIELD_NUMBER: _ClassVar[int]
    DATA_TYPE_FIELD_NUMBER: _ClassVar[int]
    FLOAT_DATA_FIELD_NUMBER: _ClassVar[int]
    INT32_DATA_FIELD_NUMBER: _ClassVar[int]
    STRING_DATA_FIELD_NUMBER: _ClassVar[int]
    INT64_DATA_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DOC_STRING_FIELD_NUMBER: _ClassVar[int]
    RAW_DATA_FIELD_NUMBER: _ClassVar[int]
    DOUBLE_DATA_FIELD_NUMBER: _ClassVar[int]
    UINT64_DATA_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_DATA_FIELD_NUMBER: _ClassVar[int]
    REF_KEY_FIELD_NUMBER: _ClassVar[int]
    MIN_DIMS_FIELD_NUMBER: _ClassVar[int]
    MAX_DIMS_FIELD_NUMBER: _ClassVar[int]
    COMPRESSION_TYPE_FIELD_NUMBER: _ClassVar[int]
    QUANT_PARAMS_FIELD_NUMBER: _ClassVar[int]
    dims: _containers.RepeatedScalarFieldContainer[int]
    data_type: int
    float_data: _containers.RepeatedScalarFieldContainer[float]
    int32_data: _containers.RepeatedScalarFieldContainer[int]
    string_data: _containers.RepeatedScalarFieldContainer[bytes]
    int64_data: _containers.RepeatedScalarFieldContainer[int]
    name: str
    doc_string: str
    raw_data: bytes
    double_data: _containers.RepeatedScalarFieldContainer[float]
    uint64_data: _containers.RepeatedScalarFieldContainer[int]
    external_data: TensorProto.ExternalDataProto
    ref_key: str
    min_dims: _containers.RepeatedScalarFieldContainer[int]
    max_dims: _containers.RepeatedScalarFieldContainer[int]
    compression_type: TensorProto.CompressionType
    quant_params: _containers.RepeatedCompositeFieldContainer[TensorProto.QuantParamProto]
    def __init__(self, dims: _Optional[_Iterable[int]] = ..., data_type: _Optional[int] = ..., float_data: _Optional[_Iterable[float]] = ..., int32_data: _Optional[_Iterable[int]] = ..., string_data: _Optional[_Iterable[bytes]] = ..., int64_data: _Optional[_Iterable[int]] = ..., name: _Optional[str] = ..., doc_string: _Optional[str] = ..., raw_data: _Optional[bytes] = ..., double_data: _Optional[_Iterable[float]] = ..., uint64_data: _Optional[_Iterable[int]] = ..., external_data: _Optional[_Union[TensorProto.ExternalDataProto, _Mapping]] = ..., ref_key: _Optional[str] = ..., min_dims: _Optional[_Iterable[int]] = ..., max_dims: _Optional[_Iterable[int]] = ..., compression_type: _Optional[_Union[TensorProto.CompressionType, str]] = ..., quant_params: _Optional[_Iterable[_Union[TensorProto.QuantParamProto, _Mapping]]] = ...) -> None: ...

class MapTensorProto(_message.Message):
    __slots__ = ("name", "default_value", "key_tensor", "value_tensor", "status_tensor")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_VALUE_FIELD_NUMBER: _ClassVar[int]
    KEY_TENSOR_FIELD_NUMBER: _ClassVar[int]
    VALUE_TENSOR_FIELD_NUMBER: _ClassVar[int]
    STATUS_TENSOR_FIELD_NUMBER: _ClassVar[int]
    name: str
    default_value: AttributeProto
    key_tensor: TensorProto
    value_tensor: TensorProto
    status_tensor: TensorProto
    def __init__(self, name: _Optional[str] = ..., default_value: _Optional[_Union[AttributeProto, _Mapping]] = ..., key_tensor: _Optional[_Union[TensorProto, _Mapping]] = ..., value_tensor: _Optional[_Union[TensorProto, _Mapping]] = ..., status_tensor: _Optional[_Union[TensorProto, _Mapping]] = ...) -> None: ...

class ParallelProto(_message.Message):
    __slots__ = ("layout",)
    LAYOUT_FIELD_NUMBER: _ClassVar[int]
    layout: _containers.RepeatedCompositeFieldContainer[LayoutProto]
    def __init__(self, layout: _Optional[_Iterable[_Union[LayoutProto, _Mapping]]] = ...) -> None: ...

class LayoutProto(_message.Message):
    __slots__ = ("name", "device_arrangement_int", "tensor_map_int", "slice_shape_int", "field_size", "uniform_split", "opt_shard_group")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DEVICE_ARRANGEMENT_INT_FIELD_NUMBER: _ClassVar[int]
    TENSOR_MAP_INT_FIELD_NUMBER: _ClassVar[int]
    SLICE_SHAPE_INT_FIELD_NUMBER: _ClassVar[int]
    FIELD_SIZE_FIELD_NUMBER: _ClassVar[int]
    UNIFORM_SPLIT_FIELD_NUMBER: _ClassVar[int]
    OPT_SHARD_GROUP_FIELD_NUMBER: _ClassVar[int]
    name: str
    device_arrangement_int: _containers.RepeatedScalarFieldContainer[int]
    tensor_map_int: _containers.RepeatedScalarFieldContainer[int]
    slice_shape_int: _containers.RepeatedScalarFieldContainer[int]
    field_size: int
    uniform_split: bool
    opt_shard_group: str
    def __init__(self, name: _Optional[str] = ..., device_arrangement_int: _Optional[_Iterable[int]] = ..., tensor_map_int: _Optional[_Iterable[int]] = ..., slice_shape_int: _Optional[_Iterable[int]] = ..., field_size: _Optional[int] = ..., uniform_split: _Optional[bool] = ..., opt_shard_group: _Optional[str] = ...) -> None: ...

class PrimitiveProto(_message.Message):
    __slots__ = ("name", "op_type", "attribute", "instance_name")
    NAME_FIELD_NUMBER: _ClassVar[int]
    OP_TYPE_FIELD_NUMBER: _ClassVar[int]
    ATTRIBUTE_FIELD_NUMBER: _ClassVar[int]
    INSTANCE_NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    op_type: str
    attribute: _containers.RepeatedCompositeFieldContainer[AttributeProto]
    instance_name: str
    def __init__(self, name: _Optional[str] = ..., op_type: _Optional[str] = ..., attribute: _Optional[_Iterable[_Union[AttributeProto, _Mapping]]] = ..., instance_name: _Optional[str] = ...) -> None: ...
