// Tensors as TensorFlow's Tensor::SummarizeValue prints them, for the messages and strings
// kernels build from values (Assert's message, StringFormat / tf.strings.format):
// - print_v2 false (Assert): elements in nested brackets "[[1 2][3...]]", cut after
//   max_entries elements with "...";
// - print_v2 true (StringFormat, tf.print): numpy-like, max_entries elements at each end of
//   every dimension with "..." between, rows on new lines indented, strings quoted.
// Floats are the shortest of %.6g / %.9g (%.15g / %.17g for double) that reads back
// exactly, as TensorFlow's FloatToBuffer / DoubleToBuffer.
#ifndef SMRT_KERNELS_SHARED_TENSOR_SUMMARY_H_
#define SMRT_KERNELS_SHARED_TENSOR_SUMMARY_H_

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "Eigen/Core"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "smrt/tensor.h"

namespace smrt::kernels {

inline std::string SummaryFloat(double v, bool is_double) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  const int digits = is_double ? DBL_DIG : FLT_DIG;
  std::snprintf(buf, sizeof(buf), "%.*g", digits, v);
  const bool exact = is_double ? std::strtod(buf, nullptr) == v
                               : std::strtof(buf, nullptr) == static_cast<float>(v);
  if (!exact) std::snprintf(buf, sizeof(buf), "%.*g", is_double ? DBL_DIG + 2 : FLT_DIG + 3, v);
  return buf;
}

// Element i of t as TensorFlow's PrintOneElement(value, print_v2).
inline std::string SummaryElement(const Tensor& t, int64_t i, bool print_v2) {
  switch (t.dtype()) {
    case DataType::kFloat:
      return SummaryFloat(t.data<float>()[i], false);
    case DataType::kDouble:
      return SummaryFloat(t.data<double>()[i], true);
    case DataType::kHalf:
      return SummaryFloat(static_cast<float>(t.data<Eigen::half>()[i]), false);
    case DataType::kBFloat16:
      return SummaryFloat(static_cast<float>(t.data<Eigen::bfloat16>()[i]), false);
    case DataType::kInt32:
      return absl::StrCat(t.data<int32_t>()[i]);
    case DataType::kInt64:
      return absl::StrCat(t.data<int64_t>()[i]);
    case DataType::kInt16:
      return absl::StrCat(t.data<int16_t>()[i]);
    case DataType::kInt8:
      return absl::StrCat(t.data<int8_t>()[i]);
    case DataType::kUInt8:
      return absl::StrCat(t.data<uint8_t>()[i]);
    case DataType::kUInt16:
      return absl::StrCat(t.data<uint16_t>()[i]);
    case DataType::kUInt32:
      return absl::StrCat(t.data<uint32_t>()[i]);
    case DataType::kUInt64:
      return absl::StrCat(t.data<uint64_t>()[i]);
    case DataType::kBool:  // 1 and 0 in both modes (TensorFlow 2.21, checked)
      return t.data<bool>()[i] ? "1" : "0";
    case DataType::kString:
      if (print_v2)
        return absl::StrCat("\"", absl::Utf8SafeCEscape(t.data<std::string>()[i]), "\"");
      return absl::Utf8SafeCEscape(t.data<std::string>()[i]);
    default:
      return "?";
  }
}

namespace summary_internal {

// One dimension of the print_v2 = false summary (TensorFlow's PrintOneDim): stops after
// `limit` elements, marking the cut with "...".
inline void PrintDim(const Tensor& t, int dim, int64_t limit, int64_t& index, std::string& out) {
  if (index >= limit) return;
  const int64_t count = t.dim(dim);
  if (dim == t.rank() - 1) {
    for (int64_t i = 0; i < count; ++i) {
      if (index >= limit) {
        if (dim != 0) out += "...";
        return;
      }
      if (i > 0) out += " ";
      out += SummaryElement(t, index++, false);
    }
    return;
  }
  for (int64_t i = 0; i < count; ++i) {
    bool opened = false;
    if (index < limit) {
      out += "[";
      opened = true;
    }
    PrintDim(t, dim + 1, limit, index, out);
    if (index < limit || opened) out += "]";
  }
}

// Between two items of dimension `dim` (TensorFlow's PrintDimSpacing): a space in the last
// dimension, else a newline per inner dimension and dim + 1 spaces.
inline void Spacing(int dim, int rank, std::string& out) {
  if (dim == rank - 1) {
    out += " ";
    return;
  }
  out.append(static_cast<size_t>(rank - dim - 1), '\n');
  out.append(static_cast<size_t>(dim + 1), ' ');
}

// One dimension of the print_v2 = true summary (TensorFlow's PrintOneDimV2): `ends` items at
// each end of every dimension.
inline void PrintDimV2(const Tensor& t, int dim, int64_t ends, int64_t at, std::string& out) {
  const int rank = t.rank();
  if (dim == rank) {
    out += SummaryElement(t, at, true);
    return;
  }
  out += "[";
  const int64_t count = t.dim(dim);
  const int64_t start_of_end = std::max(ends, count - ends);
  int64_t per_item = 1;
  for (int d = dim + 1; d < rank; ++d) per_item *= t.dim(d);
  for (int64_t i = 0; i < ends && i < count; ++i) {
    if (i > 0) Spacing(dim, rank, out);
    PrintDimV2(t, dim + 1, ends, at + per_item * i, out);
  }
  if (count > 2 * ends) {
    Spacing(dim, rank, out);
    out += "...";
  }
  for (int64_t i = start_of_end; i < count; ++i) {
    Spacing(dim, rank, out);
    PrintDimV2(t, dim + 1, ends, at + per_item * i, out);
  }
  out += "]";
}

}  // namespace summary_internal

// TensorFlow's Tensor::SummarizeValue(max_entries, print_v2); max_entries < 0: all.
inline std::string SummarizeValue(const Tensor& t, int64_t max_entries, bool print_v2) {
  const int64_t n = t.num_elements();
  const int64_t limit = max_entries < 0 ? n : std::min(max_entries, n);
  std::string out;
  if (t.rank() == 0) {
    for (int64_t i = 0; i < limit; ++i) {
      if (i > 0) out += " ";
      out += SummaryElement(t, i, print_v2);
    }
    if (n > limit) out += "...";
  } else if (print_v2) {
    summary_internal::PrintDimV2(t, 0, limit, 0, out);
  } else {
    int64_t index = 0;
    summary_internal::PrintDim(t, 0, limit, index, out);
    if (n > limit) out += "...";
  }
  return out;
}

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_SHARED_TENSOR_SUMMARY_H_
