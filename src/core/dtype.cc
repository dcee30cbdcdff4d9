#include "smrt/dtype.h"

namespace smrt {

absl::string_view DataTypeName(DataType type) {
  switch (type) {
    case DataType::kFloat: return "DT_FLOAT";
    case DataType::kDouble: return "DT_DOUBLE";
    case DataType::kInt32: return "DT_INT32";
    case DataType::kUInt8: return "DT_UINT8";
    case DataType::kInt16: return "DT_INT16";
    case DataType::kInt8: return "DT_INT8";
    case DataType::kString: return "DT_STRING";
    case DataType::kComplex64: return "DT_COMPLEX64";
    case DataType::kInt64: return "DT_INT64";
    case DataType::kBool: return "DT_BOOL";
    case DataType::kBFloat16: return "DT_BFLOAT16";
    case DataType::kUInt16: return "DT_UINT16";
    case DataType::kComplex128: return "DT_COMPLEX128";
    case DataType::kHalf: return "DT_HALF";
    case DataType::kResource: return "DT_RESOURCE";
    case DataType::kVariant: return "DT_VARIANT";
    case DataType::kUInt32: return "DT_UINT32";
    case DataType::kUInt64: return "DT_UINT64";
    case DataType::kInvalid: break;
  }
  return "DT_INVALID";
}

absl::string_view DataTypeShortName(DataType type) {
  switch (type) {
    case DataType::kFloat: return "float32";
    case DataType::kDouble: return "float64";
    case DataType::kInt32: return "int32";
    case DataType::kUInt8: return "uint8";
    case DataType::kInt16: return "int16";
    case DataType::kInt8: return "int8";
    case DataType::kString: return "string";
    case DataType::kComplex64: return "complex64";
    case DataType::kInt64: return "int64";
    case DataType::kBool: return "bool";
    case DataType::kBFloat16: return "bfloat16";
    case DataType::kUInt16: return "uint16";
    case DataType::kComplex128: return "complex128";
    case DataType::kHalf: return "float16";
    case DataType::kResource: return "resource";
    case DataType::kVariant: return "variant";
    case DataType::kUInt32: return "uint32";
    case DataType::kUInt64: return "uint64";
    case DataType::kInvalid: break;
  }
  return "invalid";
}

size_t DataTypeSize(DataType type) {
  switch (type) {
    case DataType::kBool:
    case DataType::kInt8:
    case DataType::kUInt8: return 1;
    case DataType::kInt16:
    case DataType::kUInt16:
    case DataType::kHalf:
    case DataType::kBFloat16: return 2;
    case DataType::kInt32:
    case DataType::kUInt32:
    case DataType::kFloat: return 4;
    case DataType::kInt64:
    case DataType::kUInt64:
    case DataType::kDouble:
    case DataType::kComplex64: return 8;
    case DataType::kComplex128: return 16;
    case DataType::kString:
    case DataType::kResource:
    case DataType::kVariant:
    case DataType::kInvalid: return 0;
  }
  return 0;
}

DataType DataTypeFromProto(int tf_dtype) {
  if (tf_dtype > 100) tf_dtype -= 100;
  switch (tf_dtype) {
    case 1: case 2: case 3: case 4: case 5: case 6: case 7: case 8: case 9:
    case 10: case 14: case 17: case 18: case 19: case 20: case 21: case 22:
    case 23:
      return static_cast<DataType>(tf_dtype);
    default:
      return DataType::kInvalid;
  }
}

}  // namespace smrt
