#include "kernels/cuda/einsum_plan.h"

#include <algorithm>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace smrt::kernels::cuda {
namespace {

bool Has(const std::string& s, char c) { return s.find(c) != std::string::npos; }

absl::Status NotServed(absl::string_view equation, absl::string_view why) {
  return absl::UnimplementedError(
      absl::StrCat("CUDA Einsum does not serve '", equation, "': ", why));
}

absl::Status CheckSubscript(absl::string_view equation, const std::string& s) {
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '.') return NotServed(equation, "ellipsis");
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
      return absl::InvalidArgumentError(absl::StrCat("Einsum equation '", equation,
                                                     "': invalid label character '",
                                                     std::string(1, c), "'"));
    }
    if (s.find(c, i + 1) != std::string::npos) {
      return NotServed(equation, absl::StrCat("label '", std::string(1, c), "' repeats in '", s,
                                              "'"));
    }
  }
  return absl::OkStatus();
}

// Labels of `from` that `keep` accepts, in `from`'s order.
template <typename Pred>
std::string Select(const std::string& from, Pred keep) {
  std::string out;
  for (char c : from) {
    if (keep(c)) out.push_back(c);
  }
  return out;
}

// perm[d] = position in `labels` of layout[d].
std::vector<int> PermTo(const std::string& labels, const std::string& layout) {
  std::vector<int> perm;
  for (char c : layout) perm.push_back(static_cast<int>(labels.find(c)));
  return perm;
}

int64_t Product(const std::string& labels, const std::vector<int64_t>& size_of) {
  int64_t p = 1;
  for (char c : labels) p *= size_of[static_cast<unsigned char>(c)];
  return p;
}

// The plan with `x` as the GEMM's left operand.
EinsumPlan PlanWith(const std::string& x, const Shape& xs, const std::string& y, const Shape& ys,
                    const std::string& out, const std::vector<int64_t>& size_of) {
  const std::string batch = Select(out, [&](char c) { return Has(x, c) && Has(y, c); });
  const std::string free_x = Select(out, [&](char c) { return Has(x, c) && !Has(y, c); });
  const std::string free_y = Select(out, [&](char c) { return Has(y, c) && !Has(x, c); });
  const std::string contracted = Select(x, [&](char c) { return !Has(out, c); });
  EinsumPlan p;
  p.batch = Product(batch, size_of);
  p.m = Product(free_x, size_of);
  p.n = Product(free_y, size_of);
  p.k = Product(contracted, size_of);
  std::vector<int> perm = PermTo(x, batch + free_x + contracted);
  if (!PermKeepsOrder(xs, perm)) {
    if (PermKeepsOrder(xs, PermTo(x, batch + contracted + free_x))) {
      p.trans_x = true;
    } else {
      p.perm_x = std::move(perm);
    }
  }
  perm = PermTo(y, batch + contracted + free_y);
  if (!PermKeepsOrder(ys, perm)) {
    if (PermKeepsOrder(ys, PermTo(y, batch + free_y + contracted))) {
      p.trans_y = true;
    } else {
      p.perm_y = std::move(perm);
    }
  }
  const std::string result = batch + free_x + free_y;
  for (char c : result) p.result_dims.push_back(size_of[static_cast<unsigned char>(c)]);
  for (char c : out) p.out_shape.push_back(size_of[static_cast<unsigned char>(c)]);
  perm = PermTo(result, out);
  if (!PermKeepsOrder(p.result_dims, perm)) p.out_perm = std::move(perm);
  return p;
}

int Copies(const EinsumPlan& p) {
  return !p.perm_x.empty() + !p.perm_y.empty() + !p.out_perm.empty();
}

}  // namespace

absl::StatusOr<EinsumSubscripts> ParseCudaEinsum(absl::string_view equation) {
  const size_t arrow = equation.find("->");
  if (arrow == absl::string_view::npos ||
      equation.find("->", arrow + 2) != absl::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("Expecting exactly one '->' in einsum equation: ", equation));
  }
  std::vector<std::string> inputs = absl::StrSplit(equation.substr(0, arrow), ',');
  if (inputs.size() != 2) {
    return NotServed(equation, absl::StrCat(inputs.size(), " operands (it takes 2)"));
  }
  EinsumSubscripts s{inputs[0], inputs[1], std::string(equation.substr(arrow + 2))};
  for (const std::string* sub : {&s.a, &s.b, &s.out}) {
    if (absl::Status st = CheckSubscript(equation, *sub); !st.ok()) return st;
  }
  for (char c : s.out) {
    if (!Has(s.a, c) && !Has(s.b, c)) {
      return absl::InvalidArgumentError(absl::StrCat("Einsum equation '", equation,
                                                     "': output label '", std::string(1, c),
                                                     "' does not appear in any input"));
    }
  }
  for (const auto& [self, other] : {std::pair(&s.a, &s.b), std::pair(&s.b, &s.a)}) {
    for (char c : *self) {
      if (!Has(*other, c) && !Has(s.out, c)) {
        return NotServed(equation, absl::StrCat("label '", std::string(1, c),
                                                "' is summed within one operand"));
      }
    }
  }
  return s;
}

bool PermKeepsOrder(const Shape& dims, const std::vector<int>& perm) {
  int last = -1;
  for (int p : perm) {
    if (dims[p] == 1) continue;
    if (p < last) return false;
    last = p;
  }
  return true;
}

absl::StatusOr<EinsumPlan> PlanEinsum(const EinsumSubscripts& s, const Shape& a, const Shape& b) {
  std::vector<int64_t> size_of(256, -1);
  int i = 0;
  for (const auto& [labels, shape] : {std::pair(&s.a, &a), std::pair(&s.b, &b)}) {
    if (shape->size() != labels->size()) {
      return absl::InvalidArgumentError(absl::StrCat("Expected input ", i, " to have rank ",
                                                     labels->size(), " but got: ",
                                                     shape->size()));
    }
    for (size_t axis = 0; axis < labels->size(); ++axis) {
      int64_t& known = size_of[static_cast<unsigned char>((*labels)[axis])];
      const int64_t dim = (*shape)[axis];
      if (known >= 0 && known != dim) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Expected dimension ", known, " at axis ", axis, " of the input shaped ",
            ShapeToString(*shape), " but got dimension ", dim));
      }
      known = dim;
    }
    ++i;
  }
  // The operands in either order give the same numbers; take the order that
  // moves fewer tensors.
  EinsumPlan plan = PlanWith(s.a, a, s.b, b, s.out, size_of);
  EinsumPlan swapped = PlanWith(s.b, b, s.a, a, s.out, size_of);
  swapped.swap_operands = true;
  if (Copies(swapped) < Copies(plan)) return swapped;
  return plan;
}

}  // namespace smrt::kernels::cuda
