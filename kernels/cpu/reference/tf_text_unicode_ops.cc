// The ops that need Unicode's tables, through ICU as their kernels call it:
// tensorflow_text's CaseFoldUTF8 (Normalizer2's NFKC_Casefold) and
// NormalizeUTF8 (NFC, NFKC, NFD, NFKD; the form's case does not matter),
// tensorflow_text/core/kernels/normalize_kernels.cc, and TensorFlow's
// UnicodeScript (uscript_getScript; -1 for what ICU refuses).
//
// The tables are ICU's data library (Debian's libicu, 72.1 in bookworm);
// TensorFlow and TF Text bundle their own ICU, so characters assigned after
// 72.1's Unicode 15.0 may differ. As in TF Text, one ICU error fails the
// op, and an unknown normalization form fails when the op runs.
#include <unicode/bytestream.h>
#include <unicode/errorcode.h>
#include <unicode/normalizer2.h>
#include <unicode/stringpiece.h>
#include <unicode/uscript.h>

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "kernels/registry.h"

namespace smrt::kernels {
namespace {

absl::Status CheckStrings(const Tensor& t, absl::string_view op) {
  if (t.dtype() == DataType::kString) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(op, " takes strings, got ", DataTypeName(t.dtype())));
}

// Normalizes every string of input 0 into output 0; NormalizeUTF8's message
// for a failed string starts with ICU's error name, CaseFoldUTF8's does not.
absl::Status Normalize(KernelContext& ctx, const icu::Normalizer2& normalizer,
                       bool with_error_name) {
  const Tensor& in = ctx.input(0);
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, DataType::kString, in.shape());
  if (!out.ok()) return out.status();
  icu::ErrorCode error;
  for (int64_t i = 0; i < in.num_elements(); ++i) {
    const std::string& s = in.data<std::string>()[i];
    std::string& text = (*out)->data<std::string>()[i];
    text.clear();
    icu::StringByteSink<std::string> sink(&text);
    normalizer.normalizeUTF8(0, icu::StringPiece(s.data(), static_cast<int32_t>(s.size())), sink,
                             nullptr, error);
    if (error.isFailure()) {
      return absl::InternalError(
          absl::StrCat(with_error_name ? absl::StrCat(error.errorName(), ": ") : std::string(),
                       "Could not normalize input string: ", s));
    }
  }
  return absl::OkStatus();
}

absl::Status ComputeCaseFold(KernelContext& ctx) {
  if (absl::Status s = CheckStrings(ctx.input(0), "CaseFoldUTF8"); !s.ok()) return s;
  icu::ErrorCode error;
  const icu::Normalizer2* nfkc_cf = icu::Normalizer2::getNFKCCasefoldInstance(error);
  if (error.isFailure()) {
    return absl::InternalError(
        absl::StrCat(error.errorName(), ": Could not retrieve ICU NFKC_CaseFold normalizer"));
  }
  return Normalize(ctx, *nfkc_cf, /*with_error_name=*/false);
}

absl::Status ComputeNormalize(KernelContext& ctx) {
  if (absl::Status s = CheckStrings(ctx.input(0), "NormalizeUTF8"); !s.ok()) return s;
  absl::StatusOr<std::string> attr = ctx.attrs().Get<std::string>("normalization_form");
  if (!attr.ok()) return attr.status();
  const std::string form = absl::AsciiStrToUpper(*attr);
  icu::ErrorCode error;
  const icu::Normalizer2* normalizer = nullptr;
  if (form == "NFKC") {
    normalizer = icu::Normalizer2::getNFKCInstance(error);
  } else if (form == "NFC") {
    normalizer = icu::Normalizer2::getNFCInstance(error);
  } else if (form == "NFD") {
    normalizer = icu::Normalizer2::getNFDInstance(error);
  } else if (form == "NFKD") {
    normalizer = icu::Normalizer2::getNFKDInstance(error);
  } else {
    // TensorFlow Text's spelling.
    return absl::InvalidArgumentError(
        absl::StrCat("Unknown normalization form requrested: ", form));
  }
  if (error.isFailure()) {
    return absl::InternalError(
        absl::StrCat(error.errorName(), ": Could not retrieve ICU ", form, " normalizer"));
  }
  return Normalize(ctx, *normalizer, /*with_error_name=*/true);
}

absl::Status ComputeUnicodeScript(KernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  if (in.dtype() != DataType::kInt32) {
    return absl::InvalidArgumentError(
        absl::StrCat("UnicodeScript takes int32 code points, got ", DataTypeName(in.dtype())));
  }
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, DataType::kInt32, in.shape());
  if (!out.ok()) return out.status();
  for (int64_t i = 0; i < in.num_elements(); ++i) {
    UErrorCode error = U_ZERO_ERROR;
    const UScriptCode script = uscript_getScript(in.data<int32_t>()[i], &error);
    (*out)->data<int32_t>()[i] = U_SUCCESS(error) ? static_cast<int32_t>(script) : -1;
  }
  return absl::OkStatus();
}

}  // namespace

void RegisterTfTextUnicodeOps(KernelRegistry& r) {
  r.AddKernel({"CaseFoldUTF8", kCpu, "", {}, ComputeCaseFold});
  r.AddKernel({"NormalizeUTF8", kCpu, "", {}, ComputeNormalize});
  r.AddKernel({"UnicodeScript", kCpu, "", {}, ComputeUnicodeScript});
}

}  // namespace smrt::kernels
