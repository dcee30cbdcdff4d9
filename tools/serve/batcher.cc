#include "serve/batcher.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "serve/metrics.h"

namespace smrt::serve {
namespace {

using Clock = std::chrono::steady_clock;

bool BatchableDtype(DataType dtype) { return IsFixedSize(dtype) || dtype == DataType::kString; }

bool BatchMajor(const TensorSpec& spec) {
  return spec.known_rank && !spec.shape.empty() && spec.shape[0] == -1 &&
         BatchableDtype(spec.dtype);
}

// Copies `count` elements from src[src_offset...] to dst[dst_offset...].
void CopyElements(const Tensor& src, int64_t src_offset, Tensor& dst, int64_t dst_offset,
                  int64_t count) {
  if (count <= 0) return;
  if (src.dtype() == DataType::kString) {
    const std::string* from = src.data<std::string>() + src_offset;
    std::string* to = dst.data<std::string>() + dst_offset;
    std::copy(from, from + count, to);
    return;
  }
  const size_t size = DataTypeSize(src.dtype());
  std::memcpy(static_cast<char*>(dst.raw_data()) + dst_offset * size,
              static_cast<const char*>(src.raw_data()) + src_offset * size, count * size);
}

// Sets dst[offset, offset + count) to src's element `index`.
void FillElements(const Tensor& src, int64_t index, Tensor& dst, int64_t offset, int64_t count) {
  for (int64_t i = 0; i < count; ++i) CopyElements(src, index, dst, offset + i, 1);
}

// Writes `src` into rows [row, row + src.dim(0)) of `dst`, whose dims past
// the first are at least src's; the rest of each row is src's first element.
void PlaceRows(const Tensor& src, Tensor& dst, int64_t row) {
  const int rank = src.rank();
  const int64_t dst_row = dst.dim(0) == 0 ? 0 : dst.num_elements() / dst.dim(0);
  bool same_inner = true;
  for (int d = 1; d < rank; ++d) same_inner = same_inner && src.dim(d) == dst.dim(d);
  if (same_inner) {
    CopyElements(src, 0, dst, row * dst_row, src.num_elements());
    return;
  }
  if (src.num_elements() > 0) FillElements(src, 0, dst, row * dst_row, src.dim(0) * dst_row);
  if (src.num_elements() == 0) return;
  // Contiguous runs along the last dim: walk the indices of the others.
  const int64_t run = src.dim(rank - 1);
  std::vector<int64_t> index(rank - 1, 0);
  const int64_t runs = src.num_elements() / run;
  for (int64_t r = 0; r < runs; ++r) {
    int64_t dst_offset = row + index[0];
    for (int d = 1; d < rank - 1; ++d) dst_offset = dst_offset * dst.dim(d) + index[d];
    dst_offset *= dst.dim(rank - 1);
    CopyElements(src, r * run, dst, dst_offset, run);
    for (int d = rank - 2; d >= 0; --d) {
      if (++index[d] < src.dim(d)) break;
      index[d] = 0;
    }
  }
}

// One caller's call. std::mutex rather than absl's synchronization, whose
// (uninstrumented) Debian build TSan cannot see through.
struct Task {
  const NamedTensors* inputs = nullptr;
  int64_t size = 0;

  void Finish(absl::StatusOr<NamedTensors> r) {
    std::lock_guard<std::mutex> lock(mu);
    result = std::move(r);
    done = true;
    cv.notify_one();
  }
  absl::StatusOr<NamedTensors> Wait() {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [this] { return done; });
    return std::move(result);
  }

 private:
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  absl::StatusOr<NamedTensors> result;
};

struct Batch {
  std::vector<Task*> tasks;
  int64_t size = 0;
  Clock::time_point opened;
};

struct Queue {
  std::string signature;
  std::deque<Batch> batches;  // the back one is open
};

}  // namespace

absl::Status ValidateBatchingOptions(const BatchingOptions& options) {
  if (options.max_batch_size <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_batch_size must be positive; was ", options.max_batch_size));
  }
  if (options.batch_timeout < absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("batch_timeout_micros must be non-negative; was ",
                     absl::ToInt64Microseconds(options.batch_timeout)));
  }
  if (options.max_enqueued_batches <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_enqueued_batches must be positive; was ", options.max_enqueued_batches));
  }
  if (options.num_batch_threads < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("num_batch_threads must be positive; was ", options.num_batch_threads));
  }
  const std::vector<int64_t>& allowed = options.allowed_batch_sizes;
  for (size_t i = 0; i < allowed.size(); ++i) {
    if (allowed[i] <= 0 || (i > 0 && allowed[i] <= allowed[i - 1])) {
      return absl::InvalidArgumentError(
          "allowed_batch_sizes entries must be monotonically increasing");
    }
  }
  if (!allowed.empty() && allowed.back() != options.max_batch_size) {
    return absl::InvalidArgumentError(
        absl::StrCat("Last entry in allowed_batch_sizes must match max_batch_size; last entry was ",
                     allowed.back(), "; expected ", options.max_batch_size));
  }
  return absl::OkStatus();
}

int64_t RoundToAllowedBatchSize(const BatchingOptions& options, int64_t size) {
  for (int64_t allowed : options.allowed_batch_sizes) {
    if (allowed >= size) return allowed;
  }
  return size;
}

struct Batcher::Impl {
  const Model* model = nullptr;
  std::string model_name;
  BatchingOptions options;
  Metrics* metrics = nullptr;
  std::set<std::string, std::less<>> batched_signatures;

  std::mutex mu;
  std::condition_variable cv;
  bool stop = false;
  std::map<std::string, Queue> queues;  // by signature and input shapes
  std::vector<std::thread> workers;

  // The queue key of a call, or "" when it must run unbatched.
  std::string QueueKey(const SignatureInfo& sig, const NamedTensors& inputs, int64_t* size) const;
  void Work();
  // A ready batch (its queue's oldest), else the time the first open batch
  // becomes ready (Clock::time_point::max() when there is none).
  bool TakeReady(Batch* batch, std::string* signature, Clock::time_point* next);
  void Process(const std::string& signature, Batch& batch);
  absl::StatusOr<std::vector<NamedTensors>> RunMerged(const std::string& signature,
                                                      const Batch& batch);
};

std::string Batcher::Impl::QueueKey(const SignatureInfo& sig, const NamedTensors& inputs,
                                    int64_t* size) const {
  if (inputs.size() != sig.inputs.size()) return "";
  std::string key = sig.key;
  int64_t rows = -1;
  for (const TensorSpec& spec : sig.inputs) {
    auto it = inputs.find(spec.name);
    if (it == inputs.end()) return "";
    const Tensor& t = it->second;
    if (!t.valid() || t.on_device() || t.dtype() != spec.dtype || !spec.known_rank ||
        t.rank() != static_cast<int>(spec.shape.size()) || t.rank() == 0) {
      return "";
    }
    for (int d = 1; d < t.rank(); ++d) {
      if (spec.shape[d] >= 0 && spec.shape[d] != t.dim(d)) return "";
    }
    if (rows == -1) rows = t.dim(0);
    if (t.dim(0) != rows) return "";
    absl::StrAppend(&key, "|", spec.name, ":", static_cast<int>(t.dtype()));
    if (!options.pad_variable_length_inputs) {
      for (int d = 1; d < t.rank(); ++d) absl::StrAppend(&key, ",", t.dim(d));
    }
  }
  if (rows <= 0) return "";
  *size = rows;
  return key;
}

bool Batcher::Impl::TakeReady(Batch* batch, std::string* signature, Clock::time_point* next) {
  const Clock::time_point now = Clock::now();
  const auto timeout = std::chrono::microseconds(absl::ToInt64Microseconds(options.batch_timeout));
  *next = Clock::time_point::max();
  auto best = queues.end();
  for (auto it = queues.begin(); it != queues.end(); ++it) {
    const std::deque<Batch>& batches = it->second.batches;
    if (batches.empty()) continue;
    const Batch& front = batches.front();
    const bool ready = batches.size() > 1 || front.size >= options.max_batch_size ||
                       now >= front.opened + timeout || stop;
    if (ready) {
      if (best == queues.end() || front.opened < best->second.batches.front().opened) best = it;
    } else {
      *next = std::min(*next, front.opened + timeout);
    }
  }
  if (best == queues.end()) return false;
  *batch = std::move(best->second.batches.front());
  *signature = best->second.signature;
  best->second.batches.pop_front();
  if (best->second.batches.empty()) queues.erase(best);
  return true;
}

void Batcher::Impl::Work() {
  std::unique_lock<std::mutex> lock(mu);
  while (true) {
    Batch batch;
    std::string signature;
    Clock::time_point next;
    if (TakeReady(&batch, &signature, &next)) {
      lock.unlock();
      Process(signature, batch);
      lock.lock();
      continue;
    }
    if (stop && queues.empty()) return;
    if (next == Clock::time_point::max()) {
      cv.wait(lock);
    } else {
      cv.wait_until(lock, next);
    }
  }
}

absl::StatusOr<std::vector<NamedTensors>> Batcher::Impl::RunMerged(const std::string& signature,
                                                                   const Batch& batch) {
  const int64_t padded = RoundToAllowedBatchSize(options, batch.size);
  NamedTensors merged;
  for (const auto& [name, first] : *batch.tasks.front()->inputs) {
    Shape shape = first.shape();
    for (const Task* task : batch.tasks) {
      const Tensor& t = task->inputs->at(name);
      for (int d = 1; d < t.rank(); ++d) shape[d] = std::max(shape[d], t.dim(d));
    }
    shape[0] = padded;
    absl::StatusOr<Tensor> out = Tensor::CreateUninitialized(first.dtype(), shape);
    if (!out.ok()) return out.status();
    int64_t row = 0;
    for (const Task* task : batch.tasks) {
      const Tensor& t = task->inputs->at(name);
      if (t.num_elements() == 0 && out->num_elements() != 0) {
        return absl::InvalidArgumentError("Got empty tensor in batch of non-empty tensors.");
      }
      PlaceRows(t, *out, row);
      row += t.dim(0);
    }
    // Padding rows repeat the first row of the last call's (padded) input.
    const int64_t row_elements = padded == 0 ? 0 : out->num_elements() / padded;
    const int64_t last_first_row = batch.size - batch.tasks.back()->size;
    for (; row < padded; ++row) {
      CopyElements(*out, last_first_row * row_elements, *out, row * row_elements, row_elements);
    }
    merged.emplace(name, *std::move(out));
  }
  absl::StatusOr<NamedTensors> outputs = model->Run(signature, merged);
  if (!outputs.ok()) return outputs.status();
  if (metrics != nullptr) metrics->RecordBatch(model_name, batch.size, padded);

  std::vector<NamedTensors> split(batch.tasks.size());
  for (const auto& [name, tensor] : *outputs) {
    if (tensor.rank() == 0) {
      return absl::FailedPreconditionError("Batched output tensor has 0 dimensions");
    }
    if (tensor.dim(0) != padded) {
      return absl::FailedPreconditionError(
          "Batched output tensor's 0th dimension does not equal the sum of the 0th dimension "
          "sizes of the input tensors");
    }
    const int64_t row_elements = padded == 0 ? 0 : tensor.num_elements() / padded;
    int64_t row = 0;
    for (size_t i = 0; i < batch.tasks.size(); ++i) {
      Shape shape = tensor.shape();
      shape[0] = batch.tasks[i]->size;
      absl::StatusOr<Tensor> part = Tensor::CreateUninitialized(tensor.dtype(), shape);
      if (!part.ok()) return part.status();
      CopyElements(tensor, row * row_elements, *part, 0, part->num_elements());
      row += batch.tasks[i]->size;
      split[i].emplace(name, *std::move(part));
    }
  }
  return split;
}

void Batcher::Impl::Process(const std::string& signature, Batch& batch) {
  const bool alone =
      batch.tasks.size() == 1 && RoundToAllowedBatchSize(options, batch.size) == batch.size;
  if (alone) {
    // Nothing to merge or pad: the call's own tensors, no copies.
    Task* task = batch.tasks.front();
    absl::StatusOr<NamedTensors> result = model->Run(signature, *task->inputs);
    if (result.ok() && metrics != nullptr) {
      metrics->RecordBatch(model_name, batch.size, batch.size);
    }
    task->Finish(std::move(result));
    return;
  }
  absl::StatusOr<std::vector<NamedTensors>> results = RunMerged(signature, batch);
  for (size_t i = 0; i < batch.tasks.size(); ++i) {
    Task* task = batch.tasks[i];
    if (results.ok()) {
      task->Finish(std::move((*results)[i]));
    } else {
      // One call's bad values (or a model that does not keep rows apart)
      // must not fail the others: each runs alone and gets its own answer.
      task->Finish(model->Run(signature, *task->inputs));
    }
  }
}

Batcher::Batcher(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Batcher::~Batcher() {
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->stop = true;
  }
  impl_->cv.notify_all();
  for (std::thread& worker : impl_->workers) worker.join();
}

absl::StatusOr<std::unique_ptr<Batcher>> Batcher::Create(const Model* model, std::string model_name,
                                                         const BatchingOptions& options,
                                                         Metrics* metrics) {
  if (auto status = ValidateBatchingOptions(options); !status.ok()) return status;
  auto impl = std::make_unique<Impl>();
  impl->model = model;
  impl->model_name = std::move(model_name);
  impl->options = options;
  impl->metrics = metrics;
  for (const std::string& key : model->signature_keys()) {
    absl::StatusOr<const SignatureInfo*> sig = model->signature(key);
    if (!sig.ok()) continue;
    bool batch_major = !(*sig)->inputs.empty() && !(*sig)->outputs.empty();
    for (const TensorSpec& spec : (*sig)->inputs) batch_major = batch_major && BatchMajor(spec);
    for (const TensorSpec& spec : (*sig)->outputs) batch_major = batch_major && BatchMajor(spec);
    if (batch_major) impl->batched_signatures.insert(key);
  }
  int64_t threads = options.num_batch_threads;
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  std::unique_ptr<Batcher> batcher(new Batcher(std::move(impl)));
  Impl* raw = batcher->impl_.get();
  for (int64_t i = 0; i < threads; ++i) raw->workers.emplace_back([raw] { raw->Work(); });
  return batcher;
}

bool Batcher::Batches(std::string_view signature) const {
  return impl_->batched_signatures.count(signature) > 0;
}

absl::StatusOr<NamedTensors> Batcher::Run(std::string_view signature, const NamedTensors& inputs) {
  Impl& impl = *impl_;
  const std::string name(signature);
  if (!Batches(signature)) return impl.model->Run(name, inputs);
  absl::StatusOr<const SignatureInfo*> sig = impl.model->signature(name);
  if (!sig.ok()) return sig.status();
  Task task;
  const std::string key = impl.QueueKey(**sig, inputs, &task.size);
  if (key.empty()) return impl.model->Run(name, inputs);
  if (task.size > impl.options.max_batch_size) {
    return absl::InvalidArgumentError(
        absl::StrFormat("Task size %d is larger than maximum input batch size %d", task.size,
                        impl.options.max_batch_size));
  }
  task.inputs = &inputs;
  {
    std::lock_guard<std::mutex> lock(impl.mu);
    Queue& queue = impl.queues[key];
    if (queue.signature.empty()) queue.signature = name;
    if (queue.batches.empty() ||
        queue.batches.back().size + task.size > impl.options.max_batch_size) {
      if (static_cast<int64_t>(queue.batches.size()) >= impl.options.max_enqueued_batches) {
        return absl::UnavailableError(
            "The batch scheduling queue to which this task was submitted is full");
      }
      Batch batch;
      batch.opened = Clock::now();
      queue.batches.push_back(std::move(batch));
    }
    queue.batches.back().tasks.push_back(&task);
    queue.batches.back().size += task.size;
  }
  impl.cv.notify_all();
  return task.Wait();
}

}  // namespace smrt::serve
