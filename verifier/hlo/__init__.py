"""HLO text → immutable module (L1, pure Python).

>>> from verifier.hlo import parse_module
>>> parse_module("HloModule m\\nENTRY e {\\n  ROOT p = f32[2]{0} parameter(0)\\n}").entry.root.shape.rank
1
"""

from verifier.hlo.attributes import (
    COMPUTATION_ATTRIBUTES,
    COMPUTATION_LIST_ATTRIBUTES,
    Attributes,
    AttributeValue,
    BackendConfig,
    ConvolutionDimensionNumbers,
    DotDimensionNumbers,
    FrontendAttributes,
    GatherDimensionNumbers,
    Metadata,
    PaddingDim,
    RawAttribute,
    ReplicaGroups,
    ScatterDimensionNumbers,
    Sharding,
    SliceDim,
    WindowDim,
    parse_attribute,
)
from verifier.hlo.files import hlo_files_under
from verifier.hlo.inference import CHECKED_OPCODES, check_shape
from verifier.hlo.module import Computation, Instruction, Module
from verifier.hlo.opcodes import (
    CALLING_OPCODES,
    ELEMENTWISE_OPCODES,
    OPCODE_TABLE,
    OPCODES,
    PLUMBING_OPCODES,
    Opcode,
)
from verifier.hlo.parser import decode_hlo, parse_module, parse_module_file
from verifier.hlo.shape import (
    COMBINE_DIMENSION,
    Layout,
    Shape,
    ShapeIndex,
    SplitConfig,
    Tile,
    default_layout,
    element_bit_width,
    integer_values,
    parse_shape,
)

__all__ = [
    "CALLING_OPCODES",
    "CHECKED_OPCODES",
    "COMBINE_DIMENSION",
    "COMPUTATION_ATTRIBUTES",
    "COMPUTATION_LIST_ATTRIBUTES",
    "ELEMENTWISE_OPCODES",
    "OPCODES",
    "OPCODE_TABLE",
    "PLUMBING_OPCODES",
    "AttributeValue",
    "Attributes",
    "BackendConfig",
    "Computation",
    "ConvolutionDimensionNumbers",
    "DotDimensionNumbers",
    "FrontendAttributes",
    "GatherDimensionNumbers",
    "Instruction",
    "Layout",
    "Metadata",
    "Module",
    "Opcode",
    "PaddingDim",
    "RawAttribute",
    "ReplicaGroups",
    "ScatterDimensionNumbers",
    "Shape",
    "ShapeIndex",
    "Sharding",
    "SliceDim",
    "SplitConfig",
    "Tile",
    "WindowDim",
    "check_shape",
    "decode_hlo",
    "default_layout",
    "element_bit_width",
    "hlo_files_under",
    "integer_values",
    "parse_attribute",
    "parse_module",
    "parse_module_file",
    "parse_shape",
]
