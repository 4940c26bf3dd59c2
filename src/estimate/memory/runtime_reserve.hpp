// Per-GPU memory the runtime holds before any weight or activation, shared by
// the training (memory.cpp) and serving (inference_memory.cpp) estimators so
// the two never disagree. Defaults, each stated in the report and overridable
// (--cuda-context-gib).
#pragma once

namespace gpuplan {

// CUDA context with lazy module loading (CUDA >= 11.7) is ~0.3-0.5 GiB under
// PyTorch; cuBLAS/cuDNN workspaces add up to a few hundred MiB (cuBLAS uses
// 32 MiB per stream/handle on Hopper).
inline constexpr double kCudaContextGiB = 0.75;
// NCCL's channel buffers (NCCL_BUFFSIZE 4 MiB × channels × peers), ~0.25 GiB
// once a communicator exists, i.e. on more than one GPU.
inline constexpr double kNcclBuffersGiB = 0.25;

}  // namespace gpuplan
