// Internal to the step-time model (src/estimate/step_time*.cpp): the context
// one estimate runs in, one layer's cost, and the parts the step is assembled
// from (pipeline, data parallelism and ZeRO, optimizer). Not a public header.
#pragma once
#include <cstdint>

#include "gpuplan/layout.hpp"
#include "gpuplan/model.hpp"
#include "gpuplan/step_time.hpp"

namespace gpuplan::step_detail {

struct LayerCost {
  double gemm_f = 0, gemm_b = 0;
  double attn_f = 0, attn_b = 0;
  double elem_f = 0, elem_b = 0;
  double tp_f = 0, tp_b = 0;       // exposed TP collectives
  double cp_f = 0, cp_b = 0;       // exposed CP exchange
  double ep_f = 0, ep_b = 0;       // exposed expert all-to-all
  double comm_raw = 0;             // all communication of the layer, forward + backward, hidden or not
  double kernels_f = 0;            // kernels launched in the forward (the backward launches about twice as many)
  double adapter_calls_f = 0;      // host calls LoRA adapters add to the layer's forward beyond its own linears
  // Of kernels_f and adapter_calls_f, those with no counterpart in the backward
  // (AutoGPTQ's weight rebuild: autograd reuses the rebuilt weight).
  double forward_only_kernels_f = 0, forward_only_calls_f = 0;
  double gemm_flop = 0;            // forward GEMM FLOPs
  double gemm_flop_over_eff = 0;   // Σ flop/eff, for the mean efficiency
  double fwd() const { return gemm_f + attn_f + elem_f + tp_f + cp_f + ep_f; }
  double bwd() const { return gemm_b + attn_b + elem_b + tp_b + cp_b + ep_b; }
};

struct Ctx {
  const ModelSpec& m;
  const Layout& l;
  const GpuSpec& g;
  const StepTimeOptions& o;
  Precision gemm_p;      // GEMM precision the GPU supports
  Precision act_p;       // attention / element-wise precision (bf16 or fp16)
  double ceiling = 0.8;
  double hbm = 0;        // achieved bytes/s
  int node = 8;          // GPUs sharing the fast link
  Link intra, inter;
  double tokens = 0;     // tokens of one micro-batch on one rank: b·s/cp
};

// The times add_gemm booked, for a caller that overlaps something with one of them.
struct GemmPassTimes {
  double fwd_s = 0;
  double dgrad_s = 0;  // dX = dY·Wᵀ
  double wgrad_s = 0;  // dW = Xᵀ·dY
};
// One GEMM [m×k]·[k×n] (`count` of them batched) forward and its two backward
// products; a frozen weight (`weight_grad` false: LoRA's base model, whose
// weights have requires_grad off, so autograd computes no dW) only the input gradient.
GemmPassTimes add_gemm(const Ctx& c, LayerCost& lc, double m, double n, double k, double count = 1, bool weight_grad = true);
// The same at precision `p` (a GEMM the framework's FP8 recipe keeps in 16 bits).
GemmPassTimes add_gemm_at(const Ctx& c, LayerCost& lc, Precision p, double m, double n, double k, double count = 1,
                          bool weight_grad = true);
// A memory-bound kernel sequence: bytes over the achieved HBM rate plus launch costs.
double stream_s(const Ctx& c, double bytes, double kernels);
// The link a group of `n` ranks spaced `stride` apart uses.
Link group_link(const Ctx& c, int64_t stride, int64_t n);

// One layer (dense or MoE) for one micro-batch on one rank (step_time_layer.cpp).
LayerCost layer_cost(const Ctx& c, bool moe_layer);

// Pipeline parallelism (step_time_pipeline.cpp): each stage's time for one
// micro-batch from its layers (stage_split), the embedding on the first and
// the LM head on the last; the slowest sets the pace, the bubble is (p−1)/v of
// the mean stage (Narayanan et al. 2021, §2.2), plus the point-to-point sends.
struct PipelineCost {
  double t_max = -1;         // the slowest stage, one micro-batch
  double t_mean = 0;         // the mean stage
  int slow = 0;              // which stage is slowest
  double layers_slow = 0, layers_max = 0;
  double head_on = 0, embed_on = 0;  // 1 when the slowest stage holds the LM head / embedding
  double bubble_s = 0;
  double p2p_exposed_s = 0, p2p_raw_s = 0;
  double p2p_one_s = 0;      // one activation (or its gradient) sent between two stages
};
PipelineCost pipeline_cost(const Ctx& c, double layer_fb_s, double embed_s, double head_fb_s, int64_t micro_batches);

// A schedule that pairs a forward and a backward micro-batch so each one's
// communication runs under the other's computation, on the slowest rank: the
// time of one pair, which paces the steady phase; the bubble; and the
// communication the pair's computation does not cover, per micro-batch.
// `rc_s` is one layer's recompute, `rf_*` its shares.
struct OverlapPace {
  double pace_s = 0, bubble_s = 0, exposed_s = 0;
};
// DualPipe (DeepSeek-V3 report §3.2.1; deepseek-ai/DualPipe): the all-to-alls
// and pipeline sends hidden, bubble (pp/2 − 1)(F&B + B − 3W).
OverlapPace dualpipe_pace(const Ctx& c, const PipelineCost& pipe, const LayerCost& avg, const LayerCost& head, double rc_s,
                          double rf_gemm, double rf_attn, double rf_comm);
// Megatron-Core's combined 1F1B (--overlap-moe-expert-parallel-comm): the
// all-to-alls hidden, the pipeline's own bubble and sends unchanged.
OverlapPace combined_1f1b_pace(const Ctx& c, const PipelineCost& pipe, const LayerCost& avg, const LayerCost& head, double rf_gemm,
                               double rf_attn, double rf_comm);

// Parameter tensors of one dense layer (weights, biases, norm scales).
double param_tensors_per_layer(const ModelSpec& m);

// Data parallelism and ZeRO/FSDP (step_time_data_parallel.cpp) over the
// parameters one GPU of the largest stage holds.
struct DataParallelInputs {
  double dense_params = 0, expert_params = 0;  // per GPU, before ZeRO sharding
  double layers_max = 0;                       // layers of the largest stage
  int64_t micro_batches = 1;
  double stage_fwd_s = 0, stage_bwd_s = 0;     // one micro-batch on the slowest stage
  double compute_mb_s = 0;                     // the slowest stage's whole micro-batch
  double regathers = 0;                        // share of the layers whose forward runs again (recompute)
  double grad_bytes = 4;                       // bytes per gradient element reduced
  double trainable_share = 1;                  // share of those parameters with gradients (LoRA: the adapters)
};
struct DataParallelCost {
  double dp_exposed_s = 0, dp_raw_s = 0;       // gradient reduction, ZeRO-1/2 gathers, HSDP replicas
  double zero3_exposed_s = 0, zero3_raw_s = 0;
  int dp_nodes = 1;
  int ep_group = 1;                            // data-parallel ranks sharing one expert shard
};
DataParallelCost data_parallel_cost(const Ctx& c, const DataParallelInputs& in);

// The optimizer step (step_time_optimizer.cpp) over `params` this GPU updates,
// held in `tensors` parameter tensors (what a per-tensor loop walks).
double optimizer_step_s(const Ctx& c, double params, double grad_bytes, double tensors);

}  // namespace gpuplan::step_detail
