// DecodeBase64 and EncodeBase64 (what a TF Serving model that takes images
// as web-safe base64 strings starts with), as TensorFlow's kernels: the
// web-safe alphabet ('-' and '_'), padding with '=' to a multiple of 4 or
// none. The bytes are decoded and encoded by Abseil; TensorFlow refuses
// whitespace, which Abseil would skip, so the alphabet is checked first.
#include <string>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "kernels/registry.h"

namespace smrt::kernels {
namespace {

bool InWebSafeAlphabet(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_';
}

absl::Status Decode(const std::string& in, std::string* out) {
  const absl::Status invalid = absl::InvalidArgumentError("Invalid character found in base64.");
  size_t data = in.size();  // the characters before the padding
  while (data > 0 && in[data - 1] == '=') --data;
  for (size_t i = 0; i < data; ++i) {
    if (!InWebSafeAlphabet(in[i])) return invalid;
  }
  if (data % 4 == 1) {
    return absl::InvalidArgumentError("Base64 string length cannot be 1 modulo 4.");
  }
  if (!absl::WebSafeBase64Unescape(in, out)) return invalid;  // misplaced or partial padding
  return absl::OkStatus();
}

absl::Status ComputeDecode(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  if (x.dtype() != DataType::kString) {
    return absl::InvalidArgumentError(
        absl::StrCat("DecodeBase64 takes strings, got ", DataTypeName(x.dtype())));
  }
  absl::StatusOr<Tensor*> y = ctx.allocate_output(0, DataType::kString, x.shape());
  if (!y.ok()) return y.status();
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    if (absl::Status s = Decode(x.data<std::string>()[i], &(*y)->data<std::string>()[i]); !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

absl::Status ComputeEncode(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  if (x.dtype() != DataType::kString) {
    return absl::InvalidArgumentError(
        absl::StrCat("EncodeBase64 takes strings, got ", DataTypeName(x.dtype())));
  }
  absl::StatusOr<bool> pad = ctx.attrs().GetOr<bool>("pad", false);
  if (!pad.ok()) return pad.status();
  absl::StatusOr<Tensor*> y = ctx.allocate_output(0, DataType::kString, x.shape());
  if (!y.ok()) return y.status();
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    std::string& out = (*y)->data<std::string>()[i];
    absl::WebSafeBase64Escape(x.data<std::string>()[i], &out);
    if (*pad) out.append((4 - out.size() % 4) % 4, '=');
  }
  return absl::OkStatus();
}

}  // namespace

void RegisterBase64Ops(KernelRegistry& r) {
  r.AddKernel({"DecodeBase64", kCpu, "", {}, ComputeDecode});
  r.AddKernel({"EncodeBase64", kCpu, "", {}, ComputeEncode});
}

}  // namespace smrt::kernels
