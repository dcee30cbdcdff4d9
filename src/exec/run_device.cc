#include "exec/run_device.h"

#include <utility>
#include <vector>

#include "absl/status/status.h"

namespace smrt::exec {
namespace {

absl::StatusOr<int64_t> Bytes(DataType dtype, const Shape& shape) {
  absl::StatusOr<int64_t> n = NumElements(shape);
  if (!n.ok()) return n.status();
  return *n * static_cast<int64_t>(DataTypeSize(dtype));
}

}  // namespace

RunDevice::RunDevice(kernels::DeviceContext& base, void* stream,
                     std::function<void(void*)> synchronize, std::function<void(void*)> give_back,
                     AllocateFn allocate)
    : base_(base),
      stream_(stream),
      synchronize_(std::move(synchronize)),
      give_back_(std::move(give_back)),
      allocate_(std::move(allocate)) {}

RunDevice::~RunDevice() {
  synchronize_(stream_);  // nothing queued by this run reads its buffers any more
  std::multimap<int64_t, Tensor> parked;
  {
    std::lock_guard<std::mutex> lock(parking_->mu);
    parking_->open = false;  // tensors freed from now on go straight back
    parked.swap(parking_->buffers);
  }
  parked.clear();  // back to the device
  give_back_(stream_);
}

absl::StatusOr<Tensor> RunDevice::Allocate(DataType dtype, const Shape& shape,
                                           absl::string_view name) {
  absl::StatusOr<int64_t> bytes = Bytes(dtype, shape);
  if (!bytes.ok()) return bytes.status();
  if (*bytes == 0) return base_.Allocate(dtype, shape, name);
  Tensor buffer;
  {
    std::lock_guard<std::mutex> lock(parking_->mu);
    auto it = parking_->buffers.lower_bound(*bytes);
    if (it != parking_->buffers.end() && it->first <= 2 * *bytes) {
      buffer = std::move(it->second);
      parking_->buffers.erase(it);
      ++parking_->reused;
    }
  }
  if (!buffer.valid()) {
    absl::StatusOr<Tensor> fresh = Fresh(*bytes, name);
    if (!fresh.ok() && absl::IsResourceExhausted(fresh.status()) && GiveBackParked()) {
      fresh = Fresh(*bytes, name);
    }
    if (!fresh.ok()) return fresh.status();
    buffer = *std::move(fresh);
  }
  // The tensor's storage keeps the buffer; when it goes, the buffer parks
  // (while the run is on) or goes back to the device.
  void* data = buffer.raw_data();
  const int64_t size = static_cast<int64_t>(buffer.byte_size());
  std::weak_ptr<Parking> parking = parking_;
  std::shared_ptr<void> storage(data, [buffer = std::move(buffer), parking, size](void*) mutable {
    if (std::shared_ptr<Parking> p = parking.lock()) {
      std::lock_guard<std::mutex> lock(p->mu);
      if (p->open) {
        p->buffers.emplace(size, std::move(buffer));
        return;
      }
    }
    buffer = Tensor();  // freed here, outside the lock
  });
  return Tensor::DeviceStorage(dtype, shape, std::move(storage));
}

absl::StatusOr<Tensor> RunDevice::Fresh(int64_t bytes, absl::string_view name) {
  if (allocate_) return allocate_(DataType::kUInt8, {bytes}, name);
  return base_.Allocate(DataType::kUInt8, {bytes}, name);
}

bool RunDevice::GiveBackParked() {
  std::multimap<int64_t, Tensor> parked;
  {
    std::lock_guard<std::mutex> lock(parking_->mu);
    parked.swap(parking_->buffers);
  }
  if (parked.empty()) return false;
  synchronize_(stream_);  // what the run queued no longer reads them
  parked.clear();
  return true;
}

int RunDevice::parked() const {
  std::lock_guard<std::mutex> lock(parking_->mu);
  return static_cast<int>(parking_->buffers.size());
}

int64_t RunDevice::reused() const {
  std::lock_guard<std::mutex> lock(parking_->mu);
  return parking_->reused;
}

}  // namespace smrt::exec
