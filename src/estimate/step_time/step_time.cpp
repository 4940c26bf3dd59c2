// One optimizer step of a parallel layout, from physics. docs/step-time.md
// states each formula with its source; the constants are in StepTimeOptions.
//
// Structure. For one micro-batch on one pipeline stage we time, per layer:
// every GEMM at its shape after the TP/CP/EP split (gemm_efficiency.cpp),
// attention (FlashAttention-style or the materialised s×s softmax), the
// memory-bound element-wise kernels, and the exposed TP/CP/EP collectives
// (collectives.cpp). Backward GEMMs are the two products of the forward one
// (input gradient and weight gradient) at their own shapes. Recomputation adds
// what its policy re-runs (recompute_policy.hpp) to the backward. The
// pipeline runs m micro-batches on the slowest stage plus a (p−1)/v bubble of
// the mean stage (Narayanan et al. 2021, §2.2). Data-parallel reduction,
// ZeRO traffic and the optimizer step follow.
//
// Files: this one assembles the step; step_time_layer.cpp times one layer,
// step_time_pipeline.cpp the stages, bubble and sends,
// step_time_data_parallel.cpp the DP/ZeRO/HSDP traffic, step_time_optimizer.cpp
// the optimizer step; step_time_internal.hpp is their shared context.
#include <algorithm>
#include <cmath>
#include <map>

#include "gpuplan/flops.hpp"
#include "model/layer_ops.hpp"
#include "execution/recompute_policy.hpp"
#include "gpuplan/step_time.hpp"
#include "estimate/kernels/attention_kernels.hpp"
#include "estimate/finetune/lora_adapters.hpp"
#include "estimate/step_time/step_time_internal.hpp"

namespace gpuplan {

using namespace step_detail;

namespace {

// What a layer's backward re-runs of its forward, as shares of its GEMMs,
// attention, element-wise work and collectives.
struct RecomputeShares {
  double gemm = 0, attn = 0, elem = 0, comm = 0;
};

// Recompute: the shares of a layer's forward GEMMs, attention, element-wise
// work and collectives that the backward re-runs. Full: all of it (with its
// collectives); Megatron's selective: the attention core (Korthikanti 2022,
// §5); torchtitan's op policy: every second matmul and all element-wise work,
// attention saved, the all-gathers redone and the reduce-scatters saved
// (recompute_policy.hpp); every-N-th layer: those blocks fully; MaxText's
// named saves: the unnamed matmuls, attention and element-wise work.
RecomputeShares recompute_shares(const ModelSpec& model, const Layout& l, int64_t moe_layers) {
  const int64_t L = model.layers;
  const double p = l.pp;
  RecomputeShares x;
  if (l.recompute == Recompute::kFull) {
    x.gemm = x.attn = x.elem = x.comm = 1;
  } else if (l.recompute == Recompute::kSelective) {
    if (l.selective == SelectiveRecompute::kOp) {
      const OpPolicySplit sd = op_policy_split(model, false);
      double share = sd.recomputed_gemm_flop / std::max(1.0, sd.gemm_flop);
      if (moe_layers > 0) {
        const OpPolicySplit sm = op_policy_split(model, true);
        const double fm = static_cast<double>(moe_layers) / static_cast<double>(L);
        share = (1 - fm) * share + fm * sm.recomputed_gemm_flop / std::max(1.0, sm.gemm_flop);
      }
      x.gemm = share;
      x.elem = 1;
      x.comm = 0.5;
    } else if (is_named_save_policy(l.selective)) {
      // MaxText's named saves: the unnamed matmuls, all of attention and all
      // element-wise work re-run; a row-parallel matmul re-run brings its
      // collective with it (recompute_policy.hpp).
      const OpPolicySplit sd = named_policy_split(model, false, l.selective);
      double share = sd.recomputed_gemm_flop / std::max(1.0, sd.gemm_flop), rows = sd.recomputed_row_share;
      if (moe_layers > 0) {
        const OpPolicySplit sm = named_policy_split(model, true, l.selective);
        const double fm = static_cast<double>(moe_layers) / static_cast<double>(L);
        share = (1 - fm) * share + fm * sm.recomputed_gemm_flop / std::max(1.0, sm.gemm_flop);
        rows = (1 - fm) * rows + fm * sm.recomputed_row_share;
      }
      x.gemm = share;
      x.attn = 1;
      x.elem = 1;
      x.comm = rows;
    } else if (l.selective == SelectiveRecompute::kNormMlaUp || l.selective == SelectiveRecompute::kMlaUpProj) {
      // DeepSeek-V3's: the MLA up-projections and the element-wise work whose
      // outputs are not kept (norms, rotary on the re-run q and k, the MoE
      // SwiGLU) run again; attention and the other matmuls do not. Megatron's
      // mla_up_proj module re-runs the same up-projections and no norm (the
      // rotary on the re-run q and k, a few per cent of the layer's
      // element-wise bytes, is not counted).
      double share = norm_mla_up_gemm_share(model, false);
      if (moe_layers > 0) {
        const double fm = static_cast<double>(moe_layers) / static_cast<double>(L);
        share = (1 - fm) * share + fm * norm_mla_up_gemm_share(model, true);
      }
      x.gemm = share;
      if (l.selective == SelectiveRecompute::kNormMlaUp) x.elem = 1;
    } else if (l.selective == SelectiveRecompute::kLayer) {
      x.gemm = x.attn = x.elem = x.comm = layer_policy_share(static_cast<int64_t>(std::ceil(static_cast<double>(L) / p)), l.selective_every);
    } else {
      x.attn = 1;
    }
  }
  return x;
}

// LM head and loss on the last stage: logits GEMM split over TP, then a
// vocab-parallel cross-entropy streaming fp32 logits (~14 B per logit
// forward, ~8 B backward). The embedding lookup on the first stage is a copy.
LayerCost head_cost(const Ctx& c, const ModelSpec& model, const Layout& l) {
  const double tp = l.tp;
  const double h = static_cast<double>(model.hidden);
  LayerCost head;
  // The output layer stays in 16 bits under the FP8 recipes of TransformerEngine
  // and torchao (profile fp8_gemms: the transformer's linears only).
  add_gemm_at(c, head, c.act_p, c.tokens, static_cast<double>(model.vocab) / tp, h, 1, !is_lora(l));  // LoRA: the head is frozen
  const double logits = c.tokens * static_cast<double>(model.vocab) / tp;
  // Bytes moved per logit by each loss kernel, forward / backward:
  //  full or chunked (F.cross_entropy on logits.float()): to(fp32) 2+4,
  //   log-softmax max, sum-exp and output 4+4+4+4 = 22 B; backward scatter 4,
  //   log-softmax 4+4+4, to(bf16) 4+2 = 22 B;
  //  vocab-parallel (Megatron tensor_parallel/cross_entropy.py, every release
  //   without --cross-entropy-loss-fusion): .float() 2+4, max 4, `-= max` 4+4,
  //   exp (out=) 4+4, sum 4, div_ 4+4 = 38 B; backward mul_ 4+4 and the
  //   .float() backward 4+2 = 14 B;
  //  fused (one kernel reads the bf16 logits and writes the fp32 gradient
  //   in place), and full or chunked under torch.compile (Inductor fuses the
  //   upcast, log-softmax and its backward into one reduction each): 14 B / 8 B.
  double loss_f = 14.0, loss_b = 8.0;
  if (l.loss == LossKernel::kVocabParallel) loss_f = 38.0, loss_b = 14.0;
  else if ((l.loss == LossKernel::kFull || l.loss == LossKernel::kChunked) && l.eager) loss_f = 22.0, loss_b = 22.0;
  head.elem_f += stream_s(c, loss_f * logits + 4.0 * c.tokens * h, 6);  // + final norm
  head.elem_b += stream_s(c, loss_b * logits + 8.0 * c.tokens * h, 6);
  return head;
}

// What the step assumed, as values (StepTimeOptions::explain); the report
// says them in words (report/step_time_notes.cpp).
StepTimeBasis explain_step(const Ctx& c, const Layout& l, const GpuSpec& g, const StepTimeOptions& o, double intra_bw) {
  StepTimeBasis b;
  b.explained = true;
  b.gemm_ceiling = c.ceiling;
  b.gemm_precision = c.gemm_p;
  b.gemm_ceiling_basis = o.gemm_ceiling ? GemmCeilingBasis::kGiven : training_gemm_ceiling_basis(g);
  b.attention = attention_rate_source(g, l.attention);
  b.power_limit_w = g.power_limit_w;
  b.tdp_w = g.tdp_w;
  b.clock_factor = power_clock_factor(g);
  b.intra_busbw_bytes_per_s = intra_bw;
  b.scaleout_bytes_per_s = c.inter.bytes_per_s;
  b.hbm_efficiency = o.hbm_efficiency;
  b.hbm_bytes_per_s = g.hbm_bytes_per_s;
  b.tp_comm = l.tp_comm_overlap ? TpCommExposure::kOverlapped : l.tp_grad_comm_async ? TpCommExposure::kInputGradAsync : TpCommExposure::kExposed;
  b.overlap_efficiency = o.overlap_efficiency;
  return b;
}

// One layer's costs for this micro-batch shape, averaged over the dense and
// MoE layers (moe_layers of the model's L).
LayerCost average_layer_cost(const Ctx& c, int64_t moe_layers) {
  const ModelSpec& model = c.m;
  const Layout& l = c.l;
  const GpuSpec& g = c.g;
  const StepTimeOptions& o = c.o;
  const int64_t L = model.layers;
  LayerCost avg;
  // The per-layer costs depend only on the shape of one micro-batch on one
  // rank; the planner asks for thousands of layouts sharing a few shapes, so
  // the last ones are remembered (per thread).
  // Keyed by value: callers reuse one options object (calibration bisects
  // on gemm_ceiling) and build specs in the same stack slot (validation), so
  // addresses alone would return another configuration's costs.
  // The whole ModelSpec is compared (a field left out of a key once made a
  // changed learned_positions return the old costs), the GPU by every
  // number layer_cost reads, and the layout by the fields layer_cost reads.
  struct Key {
    StepTimeOptions opt; std::string gpu_id; std::map<Precision, double> gpu_peaks; double gpu_hbm, gpu_link, gpu_burst, gpu_sustained,
        gpu_busbw, gpu_nic, gpu_tdp, gpu_power_limit; int gpu_node, gpu_domain, gpu_units; std::string gpu_arch;
    int tp, cp, ep, etp; int64_t mb, seq; bool sp; AttentionKernel attention; bool eager, tp_overlap, tp_grad_async, fp8_experts; Fp8Scaling fp8_scaling; ExpertGemms expert_gemms; CpExchange cp_exchange; int host_calls; Precision p; int node;
    FineTune ft; int64_t lora_rank; std::vector<LoraModule> lora_modules; QloraBase qlora_base; bool clamp_split; double permute_f, permute_b;
    bool operator==(const Key&) const = default;
  };
  struct Entry { ModelSpec model; Key key; LayerCost dense, moe; bool used = false; };
  thread_local Entry cache[64];
  const size_t slot = (static_cast<size_t>(l.tp) * 31 + static_cast<size_t>(l.cp) * 7 + static_cast<size_t>(l.ep) * 13 +
                       static_cast<size_t>(l.micro_batch) * 17 + (l.sequence_parallel ? 1 : 0)) % 64;
  Entry& e = cache[slot];
  auto key_matches = [&](const Key& k) {
    return k.opt == o && k.gpu_id == g.id && k.gpu_peaks == g.peak_flop_per_s && k.gpu_hbm == g.hbm_bytes_per_s &&
           k.gpu_link == g.intra_bytes_per_s && k.gpu_burst == g.gemm_efficiency && k.gpu_sustained == g.gemm_sustained_efficiency &&
           k.gpu_busbw == g.allreduce_busbw_bytes_per_s && k.gpu_nic == g.scaleout_bytes_per_s && k.gpu_tdp == g.tdp_w && k.gpu_power_limit == g.power_limit_w && k.gpu_node == g.gpus_per_node &&
           k.gpu_domain == g.nvlink_domain_gpus && k.gpu_units == g.compute_units && k.gpu_arch == g.architecture && k.tp == l.tp && k.cp == l.cp && k.ep == l.ep && k.etp == l.expert_tp() && k.mb == l.micro_batch &&
           k.seq == l.seq_len && k.sp == l.sequence_parallel && k.attention == l.attention && k.eager == l.eager &&
           k.tp_overlap == l.tp_comm_overlap && k.tp_grad_async == l.tp_grad_comm_async && k.fp8_experts == l.fp8_experts && k.fp8_scaling == l.fp8_scaling && k.expert_gemms == l.expert_gemms && k.cp_exchange == l.cp_exchange && k.host_calls == l.host_calls_per_layer && k.p == l.precision && k.node == c.node &&
           k.ft == l.finetune && k.lora_rank == l.lora_rank && k.lora_modules == l.lora_modules && k.qlora_base == l.qlora_base && k.clamp_split == l.clamp_outside_activation && k.permute_f == l.moe_permute_units_f && k.permute_b == l.moe_permute_units_b;
  };
  if (!(e.used && !o.explain && key_matches(e.key) && e.model == model)) {
    e.key = Key{o, g.id, g.peak_flop_per_s, g.hbm_bytes_per_s, g.intra_bytes_per_s, g.gemm_efficiency, g.gemm_sustained_efficiency,
                g.allreduce_busbw_bytes_per_s, g.scaleout_bytes_per_s, g.tdp_w, g.power_limit_w, g.gpus_per_node, g.nvlink_domain_gpus, g.compute_units, g.architecture,
                l.tp, l.cp, l.ep, l.expert_tp(), l.micro_batch, l.seq_len, l.sequence_parallel, l.attention, l.eager, l.tp_comm_overlap, l.tp_grad_comm_async, l.fp8_experts, l.fp8_scaling, l.expert_gemms, l.cp_exchange, l.host_calls_per_layer,
                l.precision, c.node, l.finetune, l.lora_rank, l.lora_modules, l.qlora_base, l.clamp_outside_activation, l.moe_permute_units_f, l.moe_permute_units_b};
    e.model = model;
    e.used = true;
    e.dense = layer_cost(c, false);
    e.moe = moe_layers > 0 ? layer_cost(c, true) : e.dense;
  }
  const LayerCost dense = e.dense;
  const LayerCost moe = e.moe;
  const double fm = static_cast<double>(moe_layers) / static_cast<double>(L), fd = 1 - fm;
  auto mix = [&](double LayerCost::*f) { avg.*f = fd * dense.*f + fm * moe.*f; };
  for (auto f : {&LayerCost::gemm_f, &LayerCost::gemm_b, &LayerCost::attn_f, &LayerCost::attn_b, &LayerCost::elem_f,
                 &LayerCost::elem_b, &LayerCost::tp_f, &LayerCost::tp_b, &LayerCost::cp_f, &LayerCost::cp_b, &LayerCost::ep_f,
                 &LayerCost::ep_b, &LayerCost::comm_raw, &LayerCost::gemm_flop, &LayerCost::gemm_flop_over_eff}) {
    mix(f);
  }
  return avg;
}

}  // namespace

StepTime estimate_step_time(const ModelSpec& model, const Layout& l, const GpuSpec& g, const StepTimeOptions& o) {
  StepTime r;
  Ctx c{model, l, g, o, l.precision, l.precision == Precision::kFp16 ? Precision::kFp16 : Precision::kBf16, 0.8, 0, 8, Link{}, Link{}, 0};
  if (!g.has(c.gemm_p)) c.gemm_p = g.has(Precision::kFp16) ? Precision::kFp16 : Precision::kBf16;
  if (!g.has(c.act_p)) c.act_p = c.gemm_p == Precision::kFp8 ? Precision::kBf16 : c.gemm_p;
  c.ceiling = o.gemm_ceiling ? *o.gemm_ceiling : training_gemm_ceiling(g, c.gemm_p);
  c.hbm = g.hbm_bytes_per_s * o.hbm_efficiency;
  c.node = o.gpus_per_node > 0 ? o.gpus_per_node : g.gpus_per_node;
  if (g.nvlink_domain_gpus > c.node) c.node = g.nvlink_domain_gpus;
  // Intra-node: measured all-reduce bus bandwidth (nccl-tests) where the
  // catalog has it, else 80% of the link (A100: 230 of 300; H100: 365 of 450;
  // hardware_facts §2d).
  const double intra_bw = o.intra_busbw_bytes_per_s ? *o.intra_busbw_bytes_per_s
                          : g.allreduce_busbw_bytes_per_s > 0 ? g.allreduce_busbw_bytes_per_s
                                                               : 0.80 * g.intra_bytes_per_s;
  const double nic = o.scaleout_bytes_per_s.value_or(g.scaleout_bytes_per_s);
  c.intra = Link{intra_bw, o.intra_latency_s};
  c.inter = Link{std::max(nic * o.scaleout_efficiency, 1e6), o.inter_latency_s};
  c.tokens = static_cast<double>(l.micro_batch) * static_cast<double>(l.seq_len) / l.cp;
  r.peak_flop_per_s = g.peak(c.gemm_p);

  const int64_t L = model.layers;
  const int64_t m = std::max<int64_t>(1, l.micro_batches());
  r.micro_batches = m;
  const double h = static_cast<double>(model.hidden);
  const double tp = l.tp;

  // Layer costs, averaged over dense and MoE layers.
  int64_t moe_layers = 0;
  if (model.moe) {
    for (int64_t i = 0; i < L; ++i) moe_layers += model.is_moe_layer(i) ? 1 : 0;
  }
  const LayerCost avg = average_layer_cost(c, moe_layers);

  const RecomputeShares shares = recompute_shares(model, l, moe_layers);
  const double rf_gemm = shares.gemm, rf_attn = shares.attn, rf_elem = shares.elem, rf_comm = shares.comm;
  const double rc = rf_gemm * avg.gemm_f + rf_attn * avg.attn_f + rf_elem * avg.elem_f + rf_comm * (avg.tp_f + avg.cp_f + avg.ep_f);

  const LayerCost head = head_cost(c, model, l);  // LM head and loss on the last stage
  const double embed_s = stream_s(c, 2.0 * c.tokens * h * 2.0, 2);  // the embedding lookup on the first stage: a copy

  // ---- Pipeline: the stages (stage_split), the slowest one, the bubble and the sends.
  const double layer_fb = avg.fwd() + avg.bwd() + rc;
  const PipelineCost pipe = pipeline_cost(c, layer_fb, embed_s, head.fwd() + head.bwd(), m);
  const double t_max = pipe.t_max;
  const double layers_slow = pipe.layers_slow;
  const double head_on = pipe.head_on, embed_on = pipe.embed_on;
  // The stage holding the most parameters (its gradients are reduced last).
  const double layers_max = pipe.layers_max;
  r.stage_fwd_s = layers_slow * avg.fwd() + head_on * head.fwd();
  r.stage_bwd_s = layers_slow * (avg.bwd() + rc) + head_on * head.bwd();
  double pp_comm = pipe.p2p_exposed_s;
  const double pp_raw = pipe.p2p_raw_s;

  // ---- Data parallelism. Parameters on the largest stage per GPU.
  // Parameter counts and FLOPs per token depend on the model (and sequence)
  // only; remembered for the planner's inner loop.
  // Keyed by value: the whole ModelSpec (and for the FLOPs the sequence, one
  // slot per recompute mode, which the planner's candidates alternate).
  struct ParamSlot { ModelSpec model; ParamCounts pc; bool used = false; };
  struct FlopSlot { ModelSpec model; int64_t seq = -1; FlopsPerToken f; };
  thread_local ParamSlot pslot;
  thread_local FlopSlot fslots[3];
  if (o.explain || !pslot.used || !(pslot.model == model)) {
    pslot.pc = count_params(model);
    pslot.model = model;
    pslot.used = true;
  }
  FlopSlot& fs = fslots[static_cast<int>(l.recompute) % 3];
  if (o.explain || fs.seq != l.seq_len || !(fs.model == model)) {
    FlopOptions fo;
    fo.seq_len = l.seq_len;
    fo.causal_half = false;
    fo.recompute = l.recompute;
    fs.f = flops_per_token(model, fo);
    fs.model = model;
    fs.seq = l.seq_len;
  }
  const ParamCounts& pc_cached = pslot.pc;
  const FlopsPerToken& f_cached = fs.f;
  const ParamCounts& pc = pc_cached;
  const double frac = layers_max / static_cast<double>(L);
  const double expert_params = pc.mlp_experts * frac / (static_cast<double>(l.expert_tp()) * l.ep);
  // A stage's embedding or LM head; DualPipe's ranks 0 and pp−1 hold both (the first and the last stage).
  const double stage_extra = l.pp == 1 ? pc.embedding : static_cast<double>(model.vocab) * h * (l.dualpipe ? 2.0 : 1.0);
  const double dense_params = ((pc.attention + pc.mlp_dense + pc.norms) * frac + stage_extra) / tp;
  const double gb = o.grad_reduce_bytes.value_or(l.precision == Precision::kFp16 ? 2.0 : 4.0);
  // LoRA: only the adapters have gradients and optimizer states (their fp32
  // copies: PEFT keeps adapter weights in fp32 under autocast); the frozen base
  // is still gathered where ZeRO-3 shards it.
  const bool lora = is_lora(l);
  double adapter_params = 0, adapter_tensors = 0;
  if (lora) {
    const std::vector<LoraModule> mods = lora_modules_or_default(l);
    const int64_t rank = lora_rank_or_default(l);
    const double fm = static_cast<double>(moe_layers) / static_cast<double>(L);
    double per_layer = 0, tensors = 0;  // adapter parameters, and tensors (A and B per adapter), of the average layer
    for (const bool moe : {false, true}) {
      const double share = moe ? fm : 1 - fm;
      if (share <= 0) continue;
      for (const LoraAdapter& a : lora_adapters(model, moe, mods)) {
        per_layer += share * a.params(rank);
        tensors += share * 2.0;
      }
    }
    adapter_params = per_layer * layers_max / tp;
    adapter_tensors = tensors * layers_max;
  }
  DataParallelInputs dpi;
  dpi.dense_params = dense_params;
  dpi.expert_params = expert_params;
  dpi.layers_max = layers_max;
  dpi.micro_batches = m;
  dpi.stage_fwd_s = r.stage_fwd_s;
  dpi.stage_bwd_s = r.stage_bwd_s;
  dpi.compute_mb_s = t_max;  // one micro-batch on the slowest stage
  dpi.regathers = rf_elem;   // recomputed blocks run their forward (and its hooks) again
  dpi.grad_bytes = gb;
  if (lora) dpi.trainable_share = adapter_params / std::max(1.0, dense_params + expert_params);
  const DataParallelCost dpc = data_parallel_cost(c, dpi);
  r.dp_nodes = dpc.dp_nodes;
  const int64_t dp_group = static_cast<int64_t>(l.dp) * l.cp;
  const int ep_group = dpc.ep_group;
  const double dp_exposed = dpc.dp_exposed_s, dp_raw = dpc.dp_raw_s, z3_exposed = dpc.zero3_exposed_s, z3_raw = dpc.zero3_raw_s;

  // ---- Optimizer step: memory-bound over the parameters this GPU updates.
  double opt_params = dense_params + expert_params;
  if (l.zero_stage >= 1) opt_params = dense_params / dp_group + expert_params / ep_group;
  // Parameter tensors this GPU's optimizer walks: every tensor of its layers
  // (and the embedding, head and final norm) when it holds them whole; sharded
  // (ZeRO ≥ 1, FSDP's flat parameter per block cut into contiguous chunks) a
  // rank's chunk of a block's T tensors spans about 1 + T/shards of them.
  const double per_layer_tensors = param_tensors_per_layer(model);
  const double shards = l.zero_stage >= 1 ? static_cast<double>(dp_group) : 1.0;
  double opt_tensors = (layers_max + 1) * std::min(per_layer_tensors, 1.0 + per_layer_tensors / shards);
  if (lora) {
    opt_params = l.zero_stage >= 1 ? adapter_params / dp_group : adapter_params;
    opt_tensors = std::max(1.0, l.zero_stage >= 1 ? adapter_tensors / shards + 1 : adapter_tensors);
  }
  const double opt_s = optimizer_step_s(c, opt_params, gb, opt_tensors);

  // ---- DualPipe or Megatron's combined 1F1B: paired micro-batches set the pace (step_time_pipeline.cpp).
  const bool dualpipe = l.dualpipe && l.pp > 1, paired = dualpipe || (l.moe_a2a_overlap && l.ep > 1 && model.moe && m > 1);
  const OverlapPace dpp = dualpipe ? dualpipe_pace(c, pipe, avg, head, rc, rf_gemm, rf_attn, rf_comm)
                          : paired ? combined_1f1b_pace(c, pipe, avg, head, rf_gemm, rf_attn, rf_comm) : OverlapPace{};
  const double t_pace = paired ? dpp.pace_s : t_max, bubble = paired ? dpp.bubble_s : pipe.bubble_s;
  if (dualpipe) pp_comm = 0;  // under the paired chunk, or in exposed_s

  // ---- Assemble.
  const double md = static_cast<double>(m);
  r.bubble_s = bubble;
  const double per_mb_compute = layers_slow * (avg.gemm_f + avg.gemm_b + avg.attn_f + avg.attn_b + avg.elem_f + avg.elem_b) +
                                head_on * (head.gemm_f + head.gemm_b + head.elem_f + head.elem_b) + embed_on * embed_s;
  const double per_mb_rc_compute = layers_slow * (rf_gemm * avg.gemm_f + rf_attn * avg.attn_f + rf_elem * avg.elem_f);
  const double rc_comm_tp = rf_comm * avg.tp_f;
  const double rc_comm_cp = rf_comm * avg.cp_f;
  const double rc_comm_ep = rf_comm * avg.ep_f;
  r.compute_s = md * (per_mb_compute + per_mb_rc_compute);
  r.gemm_s = md * (layers_slow * (avg.gemm_f + avg.gemm_b) + head_on * (head.gemm_f + head.gemm_b));
  r.attention_s = md * layers_slow * (avg.attn_f + avg.attn_b);
  r.elementwise_s = md * (layers_slow * (avg.elem_f + avg.elem_b) + head_on * (head.elem_f + head.elem_b) + embed_on * embed_s);
  r.gemm_s += md * layers_slow * rf_gemm * avg.gemm_f;
  r.attention_s += md * layers_slow * rf_attn * avg.attn_f;
  r.elementwise_s += md * layers_slow * rf_elem * avg.elem_f;
  r.recompute_s = md * per_mb_rc_compute;
  r.tp_comm_s = md * layers_slow * (avg.tp_f + avg.tp_b + rc_comm_tp);
  r.cp_comm_s = md * layers_slow * (avg.cp_f + avg.cp_b + rc_comm_cp);
  r.ep_comm_s = paired ? md * dpp.exposed_s : md * layers_slow * (avg.ep_f + avg.ep_b + rc_comm_ep);
  r.pp_comm_s = pp_comm;
  r.dp_comm_s = dp_exposed;
  r.zero3_comm_s = z3_exposed;
  r.optimizer_s = opt_s;
  r.step_s = md * t_pace + r.bubble_s + pp_comm + dp_exposed + z3_exposed + opt_s;

  const double rc_raw = 0.25 * rf_comm;  // recompute repeats the forward's 1 of 4 collectives
  r.comm_total_s = md * layers_slow * avg.comm_raw * (1 + rc_raw) + pp_raw + dp_raw + z3_raw;
  r.comm_exposed_s = r.tp_comm_s + r.cp_comm_s + r.ep_comm_s + r.pp_comm_s + r.dp_comm_s + r.zero3_comm_s;
  r.comm_share = r.comm_exposed_s / r.step_s;
  r.bubble_fraction = r.bubble_s / std::max(1e-12, md * t_pace + r.bubble_s);
  r.gemm_efficiency_mean = avg.gemm_flop > 0 ? avg.gemm_flop / avg.gemm_flop_over_eff : 0;

  // ---- Rates. MFU counts model FLOPs without recompute and with the full s×s
  // attention matrix (Narayanan 2021 eq. 3; Korthikanti 2022; PaLM appendix B);
  // HFU adds the recompute forward.
  const FlopsPerToken& f = f_cached;
  r.tokens_per_step = static_cast<double>(l.effective_global_batch()) * static_cast<double>(l.seq_len);
  r.tokens_per_s = r.tokens_per_step / r.step_s;
  r.tokens_per_s_per_gpu = r.tokens_per_s / static_cast<double>(l.gpus());
  r.model_flop_per_step = f.model_flop * r.tokens_per_step;
  r.hardware_flop_per_step = f.hardware_flop * r.tokens_per_step;
  const double cluster_peak = r.peak_flop_per_s * static_cast<double>(l.gpus());
  r.mfu = r.model_flop_per_step / (r.step_s * cluster_peak);
  r.hfu = r.hardware_flop_per_step / (r.step_s * cluster_peak);

  if (o.explain) r.basis = explain_step(c, l, g, o, intra_bw);
  return r;
}

}  // namespace gpuplan
