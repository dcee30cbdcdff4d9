// One Run's view of a device: the model's device and memory, with a stream
// of the run's own, so that concurrent runs on one GPU overlap instead of
// queuing behind each other on one stream (and each waits only for its own
// work when it copies its outputs back).
//
// Memory is what makes this safe. The host frees a device buffer as soon as
// its last reader is queued, not run. On one stream that is harmless: any
// later user is queued after that reader. Across streams it is not: another
// run could be handed the buffer and write it while this run's queued work
// still reads it. So what a run frees is parked, not given back: the run
// reuses its parked buffers itself (its own stream orders that), and gives
// them back to the device when it ends, after waiting for its stream (or
// earlier, after a wait too, when the device has no room for what the run
// asks and its parked buffers do not fit the request: a loop whose buffers
// grow each step).
// Tensors that outlive the run (a kernel's cached filter) go straight back
// when they are freed.
#ifndef SMRT_EXEC_RUN_DEVICE_H_
#define SMRT_EXEC_RUN_DEVICE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>

#include "absl/status/statusor.h"
#include "kernels/kernel.h"

namespace smrt::exec {

class RunDevice final : public kernels::DeviceContext {
 public:
  // Runs on `stream` over `base`'s memory. `synchronize(stream)` waits for
  // the stream's work (when the run ends, and before parked buffers go back
  // early); `give_back(stream)` returns it to its owner when the run ends.
  // `allocate`, when set, takes the place of base.Allocate (a
  // stream-ordered arena allocating on the run's stream).
  using AllocateFn =
      std::function<absl::StatusOr<Tensor>(DataType, const Shape&, absl::string_view)>;
  RunDevice(kernels::DeviceContext& base, void* stream, std::function<void(void*)> synchronize,
            std::function<void(void*)> give_back, AllocateFn allocate = nullptr);
  // Waits for the stream, gives the parked buffers back to the device, then
  // the stream to its owner.
  ~RunDevice() override;

  absl::string_view device_type() const override { return base_.device_type(); }
  // A parked buffer of this run that fits (at most twice the bytes), else
  // one from the device; when the device is full, the run waits for its
  // stream, gives its parked buffers back and asks once more.
  absl::StatusOr<Tensor> Allocate(DataType dtype, const Shape& shape,
                                  absl::string_view name) override;
  void* stream() const override { return stream_; }
  kernels::TuningCache* tuning_cache() const override { return base_.tuning_cache(); }
  absl::Status MakeCurrent() const override { return base_.MakeCurrent(); }

  // For tests: buffers parked now, and how many allocations reused one.
  int parked() const;
  int64_t reused() const;

 private:
  // The run's parked buffers by size; shared with the deleters of the
  // tensors it handed out, which may run after the RunDevice is gone.
  struct Parking {
    std::mutex mu;
    bool open = true;
    std::multimap<int64_t, Tensor> buffers;  // by bytes
    int64_t reused = 0;
  };

  // Waits for the stream and gives every parked buffer back; false when
  // none was parked.
  bool GiveBackParked();
  // A new buffer of `bytes` bytes from the device.
  absl::StatusOr<Tensor> Fresh(int64_t bytes, absl::string_view name);

  kernels::DeviceContext& base_;
  void* stream_;
  std::function<void(void*)> synchronize_;
  std::function<void(void*)> give_back_;
  AllocateFn allocate_;
  std::shared_ptr<Parking> parking_ = std::make_shared<Parking>();
};

}  // namespace smrt::exec

#endif  // SMRT_EXEC_RUN_DEVICE_H_
