// Whether oneDNN's parallel regions run on smrt's teams (openmp_entry_points.cc)
// rather than on libgomp's. They do unless an OpenMP runtime was bound first
// (a program that links libgomp itself ahead of libsmrt): then oneDNN keeps
// libgomp's threads, which spin at every join on a shared CPU.
#ifndef SMRT_KERNELS_CPU_OPENMP_BINDING_H_
#define SMRT_KERNELS_CPU_OPENMP_BINDING_H_

#include <cstdint>

namespace smrt::kernels {

// oneDNN regions that ran on smrt's teams in this process so far.
uint64_t DnnlRegionsOnSmrtTeams();

// True when the process resolves GOMP_parallel (the symbol libdnnl calls) to
// smrt's definition, i.e. oneDNN runs on smrt's teams.
bool OneDnnUsesSmrtTeams();

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_CPU_OPENMP_BINDING_H_
