// How fast an attention kernel runs: measured rates per kernel, pass, mask,
// head dimension and key length (data/kernels/attention.json), carried to a GPU
// of the same architecture by its dense 16-bit peak and its power limit.
// Internal to the estimators.
#pragma once
#include <string>

#include "gpuplan/hardware.hpp"
#include "gpuplan/layout.hpp"
#include "gpuplan/step_time.hpp"

namespace gpuplan {

enum class AttentionPass { kForward, kBackward };

// FLOP/s of one call of `kernel` on `gpu`, as the kernel papers count FLOPs
// (forward 4·q·k·d per head, the unmasked half under a causal mask; backward
// 2.5× the forward's). `key_len` is the keys one call sees (s, or s/cp per ring
// step). The materialised kernel has no table: it is GEMMs plus HBM streaming.
double attention_rate_flop_per_s(const GpuSpec& gpu, AttentionKernel kernel, AttentionPass pass, bool causal, double head_dim,
                                 double key_len);

// The rate a training step holds: a rate the table measured in a short burst
// (boost clock) times the GPU's sustained/burst ratio (sustained_over_burst);
// a rate measured with the clock settled under the power limit as it is.
double attention_training_rate_flop_per_s(const GpuSpec& gpu, AttentionKernel kernel, AttentionPass pass, bool causal,
                                          double head_dim, double key_len);

// How full the reference GPU's waves were in the grid the table behind that
// rate was timed at (thread_blocks in data/kernels/attention.json): the
// measured rate holds this last-wave loss, which a call of another grid does
// not share. 1 where a table states no grid.
double attention_table_wave_fill(const GpuSpec& gpu, AttentionKernel kernel, AttentionPass pass, double head_dim,
                                 double key_len);

// The measurement behind that rate (the report's assumptions say it in words).
AttentionRateSource attention_rate_source(const GpuSpec& gpu, AttentionKernel kernel);

}  // namespace gpuplan
