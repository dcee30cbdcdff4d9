// CTCGreedyDecoder and CTCBeamSearchDecoder as TensorFlow's ctc_decoder_ops.cc computes them,
// so that paths, their order and their log probabilities match: the greedy decoder takes the
// first maximum of each row; the beam search (blank = the last class, no language model)
// keeps its beam in a "top n" container whose ties and evictions follow TensorFlow's
// gtl::TopN step by step (heap order included), normalizes every row by its log-sum-exp,
// and adds log probabilities with log1pf(expf(.)) in float, as TensorFlow's LogSumExp does
// for both dtypes.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/registry.h"

namespace smrt::kernels {
namespace {

// paths[b][p]: the labels of path p of batch entry b.
using Paths = std::vector<std::vector<std::vector<int>>>;

// TensorFlow's CTCDecodeHelper checks, in its order and with its messages.
absl::Status CheckInputs(const Tensor& inputs, const Tensor& lengths) {
  if (inputs.rank() != 3) return absl::InvalidArgumentError("inputs is not a 3-Tensor");
  if (inputs.num_elements() == 0) return absl::InvalidArgumentError("inputs must not be empty");
  if (inputs.dtype() != DataType::kFloat && inputs.dtype() != DataType::kDouble) {
    return absl::InvalidArgumentError(
        absl::StrCat("inputs must be float or double, got ", DataTypeName(inputs.dtype())));
  }
  if (lengths.rank() != 1) return absl::InvalidArgumentError("sequence_length is not a vector");
  if (lengths.dtype() != DataType::kInt32) {
    return absl::InvalidArgumentError(
        absl::StrCat("sequence_length must be int32, got ", DataTypeName(lengths.dtype())));
  }
  const int64_t max_time = inputs.dim(0);
  const int64_t batch = inputs.dim(1);
  if (lengths.dim(0) != batch) {
    return absl::FailedPreconditionError(
        absl::StrCat("len(sequence_length) != batch_size.  len(sequence_length):  ", lengths.dim(0),
                     " batch_size: ", batch));
  }
  for (int64_t b = 0; b < batch; ++b) {
    if (!(lengths.data<int32_t>()[b] <= max_time)) {
      return absl::FailedPreconditionError(absl::StrCat("sequence_length(", b, ") <= ", max_time));
    }
  }
  if (inputs.dim(2) > std::numeric_limits<int>::max()) {
    return absl::InvalidArgumentError("num_classes cannot exceed max int");
  }
  return absl::OkStatus();
}

// Outputs 0..3p: per path p its indices [n, 2] (batch, position), values [n] and dense shape
// (batch, longest); then the log probabilities (already written by the caller).
absl::Status StorePaths(KernelContext& ctx, const Paths& paths, int top_paths) {
  const int64_t batch = static_cast<int64_t>(paths.size());
  for (int p = 0; p < top_paths; ++p) {
    int64_t total = 0;
    int64_t longest = 0;
    for (const auto& per_batch : paths) {
      total += static_cast<int64_t>(per_batch[p].size());
      longest = std::max<int64_t>(longest, static_cast<int64_t>(per_batch[p].size()));
    }
    absl::StatusOr<Tensor*> indices = ctx.allocate_output(p, DataType::kInt64, {total, 2});
    if (!indices.ok()) return indices.status();
    absl::StatusOr<Tensor*> values = ctx.allocate_output(top_paths + p, DataType::kInt64, {total});
    if (!values.ok()) return values.status();
    absl::StatusOr<Tensor*> shape = ctx.allocate_output(2 * top_paths + p, DataType::kInt64, {2});
    if (!shape.ok()) return shape.status();
    int64_t* idx = (*indices)->data<int64_t>();
    int64_t* val = (*values)->data<int64_t>();
    int64_t k = 0;
    for (int64_t b = 0; b < batch; ++b) {
      const std::vector<int>& labels = paths[b][p];
      for (size_t t = 0; t < labels.size(); ++t, ++k) {
        idx[2 * k] = b;
        idx[2 * k + 1] = static_cast<int64_t>(t);
        val[k] = labels[t];
      }
    }
    (*shape)->data<int64_t>()[0] = batch;
    (*shape)->data<int64_t>()[1] = longest;
  }
  return absl::OkStatus();
}

template <typename T>
absl::Status GreedyDecode(KernelContext& ctx, const Tensor& inputs, const Tensor& lengths) {
  absl::StatusOr<bool> merge = ctx.attrs().GetOr<bool>("merge_repeated", false);
  if (!merge.ok()) return merge.status();
  absl::StatusOr<int64_t> blank_attr = ctx.attrs().GetOr<int64_t>("blank_index", -1);
  if (!blank_attr.ok()) return blank_attr.status();
  const int64_t batch = inputs.dim(1);
  const int64_t classes = inputs.dim(2);
  const int64_t blank = *blank_attr < 0 ? classes + *blank_attr : *blank_attr;
  if (blank < 0 || blank >= classes) {
    return absl::InvalidArgumentError(absl::StrCat("blank_index expected to be between ", -classes,
                                                   " and ", classes - 1, " but was ", *blank_attr));
  }
  absl::StatusOr<Tensor*> log_prob = ctx.allocate_output(3, inputs.dtype(), {batch, 1});
  if (!log_prob.ok()) return log_prob.status();
  const T* x = inputs.data<T>();
  Paths paths(batch, std::vector<std::vector<int>>(1));
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<int>& labels = paths[b][0];
    T score = 0;
    int64_t prev = -1;
    for (int64_t t = 0; t < lengths.data<int32_t>()[b]; ++t) {
      const T* row = x + (t * batch + b) * classes;
      int64_t best = 0;
      for (int64_t c = 1; c < classes; ++c) {
        if (row[c] > row[best]) best = c;
      }
      score += -row[best];
      if (best != blank && !(*merge && best == prev)) labels.push_back(static_cast<int>(best));
      prev = best;
    }
    (*log_prob)->data<T>()[b] = score;
  }
  return StorePaths(ctx, paths, 1);
}

template <typename T>
constexpr T LogZero() {
  return -std::numeric_limits<T>::infinity();
}

// log(exp(a) + exp(b)), the correction term in float as TensorFlow's ctc_loss_util.h has it.
template <typename T>
T LogSumExp(T a, T b) {
  if (a == LogZero<T>()) return b;
  if (b == LogZero<T>()) return a;
  const T hi = a > b ? a : b;
  const T lo = a > b ? b : a;
  return hi + std::log1p(std::exp(static_cast<float>(lo - hi)));
}

// One beam entry: a label sequence (its path to the root) and its log probabilities at
// the previous (old) and current (now) step: in all, ending in a blank, ending in its label.
template <typename T>
struct Prob {
  T total = LogZero<T>();
  T blank = LogZero<T>();
  T label = LogZero<T>();
};

template <typename T>
struct Node {
  Node* parent = nullptr;
  int label = -1;
  absl::flat_hash_map<int, Node*> children;
  Prob<T> old_p;
  Prob<T> now;
  bool Active() const { return now.total != LogZero<T>(); }
};

// The n best nodes by now.total, as TensorFlow's gtl::TopN<BeamEntry*, BeamComparer> keeps
// them: unordered until full, the smallest first once asked for it, a heap of limit + 1
// (the last slot unused) once more than limit were pushed. Which of equal nodes survives,
// and the order Extract gives them, follow from the same std heap and sort calls.
template <typename T>
class TopNodes {
 public:
  explicit TopNodes(size_t limit) : limit_(limit) {}

  size_t size() const { return std::min(items_.size(), limit_); }
  const std::vector<Node<T>*>& items() const { return items_; }  // first size() are held

  void Push(Node<T>* v) {
    if (limit_ == 0) return;
    if (state_ != kHeap) {
      items_.push_back(v);
      if (state_ == kBottomKnown && !Greater(items_.back(), items_.front())) {
        std::swap(items_.front(), items_.back());
      }
      if (items_.size() == limit_ + 1) {
        std::make_heap(items_.begin(), items_.end(), Greater);
        std::pop_heap(items_.begin(), items_.end(), Greater);
        state_ = kHeap;
      }
    } else if (Greater(v, items_.front())) {
      items_.back() = v;
      std::push_heap(items_.begin(), items_.end(), Greater);
      std::pop_heap(items_.begin(), items_.end(), Greater);
    }
  }

  // The smallest held node (there is one).
  Node<T>* Bottom() {
    if (state_ == kUnordered) {
      size_t smallest = 0;
      for (size_t i = 1; i < items_.size(); ++i) {
        if (Greater(items_[smallest], items_[i])) smallest = i;
      }
      std::swap(items_[0], items_[smallest]);
      state_ = kBottomKnown;
    }
    return items_.front();
  }

  // The held nodes, best first; leaves this empty.
  std::vector<Node<T>*> Extract() {
    std::vector<Node<T>*> out;
    out.swap(items_);
    if (state_ != kHeap) {
      std::sort(out.begin(), out.end(), Greater);
    } else {
      out.pop_back();
      std::sort_heap(out.begin(), out.end(), Greater);
    }
    state_ = kUnordered;
    return out;
  }

  void Clear() {
    items_.clear();
    state_ = kUnordered;
  }

 private:
  enum State { kUnordered, kBottomKnown, kHeap };
  static bool Greater(const Node<T>* a, const Node<T>* b) { return a->now.total > b->now.total; }

  std::vector<Node<T>*> items_;
  size_t limit_;
  State state_ = kUnordered;
};

template <typename T>
class BeamSearch {
 public:
  BeamSearch(int classes, int width) : classes_(classes), width_(width), leaves_(width) {}

  void Reset() {
    leaves_.Clear();
    nodes_.clear();
    Node<T>* root = NewNode(nullptr, -1);
    root->now.total = 0;
    root->now.blank = 0;
    leaves_.Push(root);
  }

  void Step(const T* row) {
    const int blank = classes_ - 1;
    T top = row[0];
    for (int c = 1; c < classes_; ++c) top = std::max(top, row[c]);
    T sum = 0;
    for (int c = 0; c < classes_; ++c) sum += std::exp(row[c] - top);
    const T norm = top + std::log(sum);

    const std::vector<Node<T>*> branches = leaves_.Extract();
    for (Node<T>* n : branches) n->old_p = n->now;
    for (Node<T>* n : branches) {
      if (n->parent != nullptr) {
        if (n->parent->Active()) {
          const T before =
              n->label == n->parent->label ? n->parent->old_p.blank : n->parent->old_p.total;
          n->now.label = LogSumExp(n->now.label, before);
        }
        n->now.label += row[n->label] - norm;
      }
      n->now.blank = n->old_p.total + row[blank] - norm;
      n->now.total = LogSumExp(n->now.blank, n->now.label);
      leaves_.Push(n);
    }
    auto candidate = [this](const Prob<T>& p) {
      return p.total > LogZero<T>() && (leaves_.size() < static_cast<size_t>(width_) ||
                                        p.total > leaves_.Bottom()->now.total);
    };
    for (Node<T>* n : branches) {
      if (!candidate(n->old_p)) continue;
      for (int label = 0; label < classes_ - 1; ++label) {
        Node<T>& c = Child(n, label);
        if (c.Active()) continue;
        c.now.blank = LogZero<T>();
        const T before = c.label == n->label ? n->old_p.blank : n->old_p.total;
        c.now.label = row[label] - norm + before;
        c.now.total = c.now.label;
        if (candidate(c.now)) {
          if (leaves_.size() == static_cast<size_t>(width_)) leaves_.Bottom()->now = Prob<T>();
          leaves_.Push(&c);
        } else {
          c.old_p = Prob<T>();
          c.now = Prob<T>();
        }
      }
    }
  }

  // The n best label sequences and their log probabilities, best first.
  absl::Status TopPaths(int n, bool merge_repeated, std::vector<std::vector<int>>* paths,
                        std::vector<T>* log_probs) const {
    if (n > width_) {
      return absl::InvalidArgumentError("requested more paths than the beam width.");
    }
    if (static_cast<size_t>(n) > leaves_.size()) {
      return absl::InvalidArgumentError("Less leaves in the beam search than requested.");
    }
    TopNodes<T> best(n);
    for (size_t i = 0; i < leaves_.size(); ++i) best.Push(leaves_.items()[i]);
    paths->clear();
    log_probs->clear();
    for (const Node<T>* e : best.Extract()) {
      std::vector<int> labels;
      int prev = -1;
      for (const Node<T>* c = e; c->parent != nullptr; c = c->parent) {
        if (!merge_repeated || c->label != prev) labels.push_back(c->label);
        prev = c->label;
      }
      std::reverse(labels.begin(), labels.end());
      paths->push_back(std::move(labels));
      log_probs->push_back(e->now.total);
    }
    return absl::OkStatus();
  }

 private:
  Node<T>* NewNode(Node<T>* parent, int label) {
    nodes_.push_back(std::make_unique<Node<T>>());
    nodes_.back()->parent = parent;
    nodes_.back()->label = label;
    return nodes_.back().get();
  }

  Node<T>& Child(Node<T>* n, int label) {
    auto [it, inserted] = n->children.try_emplace(label, nullptr);
    if (inserted) it->second = NewNode(n, label);
    return *it->second;
  }

  int classes_;
  int width_;
  TopNodes<T> leaves_;
  std::vector<std::unique_ptr<Node<T>>> nodes_;
};

template <typename T>
absl::Status BeamDecode(KernelContext& ctx, const Tensor& inputs, const Tensor& lengths) {
  absl::StatusOr<bool> merge = ctx.attrs().GetOr<bool>("merge_repeated", true);
  if (!merge.ok()) return merge.status();
  absl::StatusOr<int64_t> width = ctx.attrs().GetOr<int64_t>("beam_width", 0);
  if (!width.ok()) return width.status();
  absl::StatusOr<int64_t> top_paths = ctx.attrs().GetOr<int64_t>("top_paths", 0);
  if (!top_paths.ok()) return top_paths.status();
  if (*width < 1 || *width > std::numeric_limits<int>::max() || *top_paths < 1 ||
      ctx.num_outputs() != 3 * *top_paths + 1) {
    return absl::InvalidArgumentError(absl::StrCat("beam_width (", *width, ") and top_paths (",
                                                   *top_paths, ") must be at least 1, with ",
                                                   "3 * top_paths + 1 outputs"));
  }
  const int p = static_cast<int>(*top_paths);
  const int64_t batch = inputs.dim(1);
  const int classes = static_cast<int>(inputs.dim(2));
  absl::StatusOr<Tensor*> log_prob =
      ctx.allocate_output(3 * p, inputs.dtype(), {batch, *top_paths});
  if (!log_prob.ok()) return log_prob.status();
  BeamSearch<T> search(classes, static_cast<int>(*width));
  const T* x = inputs.data<T>();
  Paths paths(batch);
  std::vector<T> scores;
  for (int64_t b = 0; b < batch; ++b) {
    search.Reset();
    for (int64_t t = 0; t < lengths.data<int32_t>()[b]; ++t) {
      search.Step(x + (t * batch + b) * classes);
    }
    if (absl::Status s = search.TopPaths(p, *merge, &paths[b], &scores); !s.ok()) return s;
    std::copy(scores.begin(), scores.end(), (*log_prob)->data<T>() + b * p);
  }
  return StorePaths(ctx, paths, p);
}

absl::Status ComputeGreedy(KernelContext& ctx) {
  const Tensor& inputs = ctx.input(0);
  const Tensor& lengths = ctx.input(1);
  if (absl::Status s = CheckInputs(inputs, lengths); !s.ok()) return s;
  return inputs.dtype() == DataType::kFloat ? GreedyDecode<float>(ctx, inputs, lengths)
                                            : GreedyDecode<double>(ctx, inputs, lengths);
}

absl::Status ComputeBeam(KernelContext& ctx) {
  const Tensor& inputs = ctx.input(0);
  const Tensor& lengths = ctx.input(1);
  if (absl::Status s = CheckInputs(inputs, lengths); !s.ok()) return s;
  return inputs.dtype() == DataType::kFloat ? BeamDecode<float>(ctx, inputs, lengths)
                                            : BeamDecode<double>(ctx, inputs, lengths);
}

}  // namespace

void RegisterCtcOps(KernelRegistry& r) {
  r.AddKernel(
      {"CTCGreedyDecoder", kCpu, "T", {DataType::kFloat, DataType::kDouble}, ComputeGreedy});
  r.AddKernel(
      {"CTCBeamSearchDecoder", kCpu, "T", {DataType::kFloat, DataType::kDouble}, ComputeBeam});
}

}  // namespace smrt::kernels
