#include "ops/einsum_shapes.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "ops/array_shapes.h"

namespace smrt::ops::einsum {
namespace {

absl::Status EquationError(const std::string& equation, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("Einsum equation '", equation, "': ", why));
}

absl::StatusOr<std::vector<int>> ParseSubscript(const std::string& equation, absl::string_view sub,
                                                std::vector<char>& names) {
  std::vector<int> labels;
  bool seen_ellipsis = false;
  for (size_t i = 0; i < sub.size(); ++i) {
    const char c = sub[i];
    if (c == '.') {
      if (sub.substr(i, 3) != "...") return EquationError(equation, "'.' outside an ellipsis");
      if (seen_ellipsis) return EquationError(equation, "more than one ellipsis in a subscript");
      seen_ellipsis = true;
      labels.push_back(kEllipsis);
      i += 2;
      continue;
    }
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
      return EquationError(equation, absl::StrCat("invalid label character '", std::string(1, c),
                                                  "' (labels are letters a-z, A-Z)"));
    }
    auto it = std::find(names.begin(), names.end(), c);
    if (it == names.end()) {
      names.push_back(c);
      it = names.end() - 1;
    }
    labels.push_back(static_cast<int>(it - names.begin()));
  }
  return labels;
}

// Sizes of two occurrences of a broadcast label: equal, or one of them 1.
int64_t BroadcastDim(int64_t a, int64_t b, bool* ok) {
  if (a == 1) return b;
  if (b == 1) return a;
  if (a < 0) return b;
  if (b < 0) return a;
  if (a != b) *ok = false;
  return a;
}

}  // namespace

absl::StatusOr<EinsumEquation> ParseEquation(const std::string& equation, int num_inputs) {
  const size_t arrow = equation.find("->");
  if (arrow == std::string::npos || equation.find("->", arrow + 2) != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("Expecting exactly one '->' in einsum equation: ", equation));
  }
  std::vector<absl::string_view> subs =
      absl::StrSplit(absl::string_view(equation).substr(0, arrow), ',');
  if (subs.size() != 1 && subs.size() != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Expecting 1 or 2 input subscripts in equation '", equation, "' but got: ", subs.size()));
  }
  if (static_cast<int>(subs.size()) != num_inputs) {
    return absl::InvalidArgumentError(
        absl::StrCat("Einsum equation '", equation, "' has ", subs.size(),
                     " input subscripts but the node has ", num_inputs, " inputs"));
  }
  EinsumEquation eq;
  for (absl::string_view s : subs) {
    absl::StatusOr<std::vector<int>> labels = ParseSubscript(equation, s, eq.names);
    if (!labels.ok()) return labels.status();
    eq.inputs.push_back(*std::move(labels));
  }
  const size_t num_input_labels = eq.names.size();
  absl::StatusOr<std::vector<int>> out =
      ParseSubscript(equation, absl::string_view(equation).substr(arrow + 2), eq.names);
  if (!out.ok()) return out.status();
  eq.output = *std::move(out);
  if (eq.names.size() != num_input_labels) {
    return EquationError(equation,
                         absl::StrCat("output label '", std::string(1, eq.names[num_input_labels]),
                                      "' does not appear in any input"));
  }
  return eq;
}

absl::StatusOr<EinsumBinding> BindEinsum(const std::string& equation, const EinsumEquation& eq,
                                         const std::vector<const Shape*>& shapes) {
  const int num_named = static_cast<int>(eq.names.size());
  const int n = static_cast<int>(eq.inputs.size());
  std::vector<int> num_bcast(n, 0);
  int max_bcast = 0;
  for (int i = 0; i < n; ++i) {
    const std::vector<int>& labels = eq.inputs[i];
    const bool has_ellipsis = std::count(labels.begin(), labels.end(), kEllipsis) > 0;
    const int named = static_cast<int>(labels.size()) - (has_ellipsis ? 1 : 0);
    if (shapes[i] == nullptr) continue;
    const int rank = static_cast<int>(shapes[i]->size());
    if (!has_ellipsis && rank != named) {
      return absl::InvalidArgumentError(
          absl::StrCat("Expected input ", i, " to have rank ", named, " but got: ", rank));
    }
    if (has_ellipsis && rank < named) {
      return absl::InvalidArgumentError(
          absl::StrCat("Expected input ", i, " to have rank at least ", named, " but got: ", rank));
    }
    num_bcast[i] = rank - named;
    max_bcast = std::max(max_bcast, num_bcast[i]);
  }
  const bool out_ellipsis = std::count(eq.output.begin(), eq.output.end(), kEllipsis) > 0;
  if (max_bcast > 0 && !out_ellipsis) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Output contains ", max_bcast,
        " broadcasting dimension(s) but no ellipsis (...) was found in the output subscripts."));
  }
  EinsumBinding b;
  b.label_dims.assign(static_cast<size_t>(num_named + max_bcast), -2);  // -2: not seen yet
  auto expand = [&](const std::vector<int>& labels, int nb) {
    std::vector<int> out;
    for (int l : labels) {
      if (l != kEllipsis) {
        out.push_back(l);
        continue;
      }
      for (int j = max_bcast - nb; j < max_bcast; ++j) out.push_back(num_named + j);
    }
    return out;
  };
  bool bcast_ok = true;
  for (int i = 0; i < n; ++i) {
    b.inputs.push_back(expand(eq.inputs[i], num_bcast[i]));
    if (shapes[i] == nullptr) continue;
    const std::vector<int>& labels = b.inputs[i];
    for (size_t axis = 0; axis < labels.size(); ++axis) {
      const int l = labels[axis];
      const int64_t dim = (*shapes[i])[axis];
      int64_t& known = b.label_dims[l];
      if (known == -2) {
        known = dim;
      } else if (l >= num_named) {
        known = BroadcastDim(known, dim, &bcast_ok);
      } else if (known >= 0 && dim >= 0 && known != dim) {
        return absl::InvalidArgumentError(
            absl::StrCat("Expected dimension ", known, " at axis ", axis, " of the input shaped ",
                         Brackets(*shapes[i]), " but got dimension ", dim));
      } else if (known < 0) {
        known = dim;
      }
    }
  }
  if (!bcast_ok) {
    std::vector<std::string> parts;
    for (const Shape* s : shapes) parts.push_back(s == nullptr ? "unknown" : Brackets(*s));
    return absl::InvalidArgumentError(
        absl::StrCat("Einsum '", equation, "': the ellipsis dimensions of input shapes ",
                     absl::StrJoin(parts, " and "), " do not broadcast"));
  }
  for (int64_t& d : b.label_dims) {
    if (d == -2) d = -1;
  }
  b.output = expand(eq.output, max_bcast);
  return b;
}

namespace {

bool DistinctLetters(const std::string& s) {
  for (size_t i = 0; i < s.size(); ++i) {
    if (!std::isalpha(static_cast<unsigned char>(s[i]))) return false;
    if (s.find(s[i], i + 1) != std::string::npos) return false;
  }
  return true;
}

}  // namespace

std::optional<DenseEquation> ParseDenseEquation(const std::string& equation) {
  const size_t comma = equation.find(',');
  const size_t arrow = equation.find("->");
  if (comma == std::string::npos || arrow == std::string::npos || arrow < comma) return {};
  const std::string a = equation.substr(0, comma);
  const std::string b = equation.substr(comma + 1, arrow - comma - 1);
  const std::string out = equation.substr(arrow + 2);
  if (!DistinctLetters(a) || !DistinctLetters(b) || !DistinctLetters(out)) return {};
  // C: the labels both operands have, a suffix of a and a prefix of b.
  size_t c = std::min(a.size(), b.size());
  while (c > 0 && a.compare(a.size() - c, c, b, 0, c) != 0) --c;
  if (c == 0) return {};
  const std::string f = a.substr(0, a.size() - c), g = b.substr(c);
  if (out != f + g || !DistinctLetters(f + b)) return {};
  return DenseEquation{static_cast<int>(f.size()), static_cast<int>(c), static_cast<int>(g.size())};
}

absl::StatusOr<DenseProduct> DenseProductOf(const std::string& equation, const Shape& x,
                                            const Shape& w) {
  const std::optional<DenseEquation> eq = ParseDenseEquation(equation);
  const int x_rank = static_cast<int>(x.size()), w_rank = static_cast<int>(w.size());
  if (!eq || x_rank != eq->kept + eq->contracted || w_rank != eq->contracted + eq->added) {
    return absl::InvalidArgumentError(absl::StrCat("Einsum '", equation, "' on ", Brackets(x),
                                                   " and ", Brackets(w),
                                                   " is not a dense layer's"));
  }
  DenseProduct p;
  for (int i = 0; i < eq->kept; ++i) p.m *= x[i], p.out_shape.push_back(x[i]);
  for (int i = 0; i < eq->contracted; ++i) {
    if (x[eq->kept + i] != w[i]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Einsum '", equation, "': contracted dims differ: ", Brackets(x), " and ", Brackets(w)));
    }
    p.k *= w[i];
  }
  for (int i = eq->contracted; i < w_rank; ++i) p.n *= w[i], p.out_shape.push_back(w[i]);
  return p;
}

}  // namespace smrt::ops::einsum
