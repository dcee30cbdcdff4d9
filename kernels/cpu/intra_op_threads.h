// How many threads one CPU op may use. oneDNN (Debian's build) parallelises
// with OpenMP, whose thread count is per calling thread: a scope sets it for
// the calls a Run makes on this thread and restores the caller's afterwards,
// so two models with different settings can run side by side, and the
// embedding program's own OpenMP use is left as it was.
#ifndef SMRT_KERNELS_CPU_INTRA_OP_THREADS_H_
#define SMRT_KERNELS_CPU_INTRA_OP_THREADS_H_

namespace smrt::kernels {

// The threads an op started on this thread may use now.
int IntraOpThreads();

class IntraOpThreadsScope {
 public:
  // threads <= 0 leaves the current setting (OpenMP's default: all cores,
  // or OMP_NUM_THREADS).
  explicit IntraOpThreadsScope(int threads);
  ~IntraOpThreadsScope();
  IntraOpThreadsScope(const IntraOpThreadsScope&) = delete;
  IntraOpThreadsScope& operator=(const IntraOpThreadsScope&) = delete;

 private:
  int previous_ = 0;  // 0: nothing to restore
};

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_CPU_INTRA_OP_THREADS_H_
