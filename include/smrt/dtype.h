// Element types of smrt tensors. The numeric values equal TensorFlow's
// DataType enum so that protos convert by a cast.
#ifndef SMRT_DTYPE_H_
#define SMRT_DTYPE_H_

#include <cstddef>
#include <cstdint>
#include "absl/strings/string_view.h"

namespace smrt {

enum class DataType : int {
  kInvalid = 0,
  kFloat = 1,
  kDouble = 2,
  kInt32 = 3,
  kUInt8 = 4,
  kInt16 = 5,
  kInt8 = 6,
  kString = 7,
  kComplex64 = 8,
  kInt64 = 9,
  kBool = 10,
  kBFloat16 = 14,
  kUInt16 = 17,
  kComplex128 = 18,
  kHalf = 19,
  kResource = 20,
  kVariant = 21,
  kUInt32 = 22,
  kUInt64 = 23,
};

// TensorFlow's name for the type, e.g. "DT_FLOAT"; "DT_INVALID" when unknown.
absl::string_view DataTypeName(DataType type);

// Short NumPy-like name, e.g. "float32", "int64", "string".
absl::string_view DataTypeShortName(DataType type);

// Bytes per element of a fixed-size type; 0 for kString, kResource, kVariant
// and kInvalid, whose elements are not plain bytes.
size_t DataTypeSize(DataType type);

// True for types smrt stores element by element as plain bytes.
inline bool IsFixedSize(DataType type) { return DataTypeSize(type) != 0; }

// Maps a TensorFlow DataType number (including *_REF types, number + 100) to
// smrt's type; kInvalid for types smrt does not hold (quantized, float8...).
DataType DataTypeFromProto(int tf_dtype);

// True when tf_dtype is a reference type (DT_FLOAT_REF...).
inline bool IsRefType(int tf_dtype) { return tf_dtype > 100; }

}  // namespace smrt

#endif  // SMRT_DTYPE_H_
