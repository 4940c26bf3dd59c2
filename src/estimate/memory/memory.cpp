// Per-GPU memory of a training layout: assembles model states, activations and
// overheads for every pipeline stage, reports the worst, and answers "what
// micro-batch fits" and "what change would make it fit". Formulas and sources:
// memory_states.cpp, memory_activations.cpp and docs/memory.md.

#include <algorithm>
#include <cmath>

#include "gpuplan/error.hpp"
#include "gpuplan/framework.hpp"
#include "gpuplan/memory.hpp"
#include "gpuplan/units.hpp"
#include "execution/recompute_policy.hpp"
#include "estimate/memory/memory_internal.hpp"
#include "estimate/finetune/lora_adapters.hpp"
#include "estimate/memory/runtime_reserve.hpp"

namespace gpuplan {

using namespace memory_detail;

namespace {

// Defaults, each stated in the report and overridable (the CUDA context and
// NCCL buffers are in runtime_reserve.hpp, shared with serving).
constexpr double kFragmentation = 0.05;   // PyTorch caching allocator, reserved vs allocated
// DDP's default bucket_cap_mb = 25 (torch.nn.parallel.DistributedDataParallel);
// one bucket reducing while the next fills.
constexpr double kBucketBytes = 2 * 25.0 * 1024 * 1024;

struct StageMemory {
  double weights = 0, grads = 0, optimizer = 0, activations = 0, logits = 0, comm = 0, gathered = 0;
  double host = 0, paged = 0;
  double params = 0, trainable = 0, per_layer = 0, layers = 0, inflight = 0;
  double per_micro = 0, live_extra = 0;  // one micro-batch's saved activations, and what is live once
  double allocated() const { return weights + grads + optimizer + activations + logits + comm + gathered; }
};

// ZeRO/FSDP sharding degree for the dense and the expert parameters.
double dense_shard(const Layout& l) {
  const double group = (l.zero_stage == 3 && l.shard_group > 0) ? l.shard_group : l.dp;
  return group * l.cp;  // Megatron shards over the data-parallel × context-parallel group
}
// The experts' states shard over the expert-data-parallel group, tp·cp·dp /
// (etp·ep) ranks (Megatron-Core's distributed optimizer over
// expert_data_parallel_group); with etp = tp that is dp·cp / ep.
double expert_shard(const Layout& l) {
  return std::max(1.0, dense_shard(l) * l.tp / (static_cast<double>(l.expert_tp()) * l.ep));
}

double inflight_micro_batches(const Layout& l, int stage) {
  // Without pipelining one micro-batch is in flight; Megatron's MoE all-to-all
  // overlap runs the next one's forward beside this one's backward
  // (combined_1f1b_schedule_for_no_pipelining @core_v0.14.0): two.
  if (l.pp <= 1) return l.moe_a2a_overlap && l.ep > 1 && l.micro_batches() > 1 ? 2 : 1;
  // 1F1B (Narayanan et al. 2021, section 2.2.1): stage i starts p - i forward
  // passes before its first backward, so it holds min(p - i, m) micro-batches.
  const double m = static_cast<double>(std::max<int64_t>(1, l.micro_batches()));
  double n = std::min<double>(l.pp - stage, m);
  // Interleaved schedule with v chunks per rank: the first stage holds
  // p·(1 + (p-1)/(p·v)) micro-batches' worth of its L/p layers (Korthikanti et
  // al. 2022, section 4.2.3); other stages scale alike (an approximation).
  const double interleave = l.vp > 1 ? 1 + (l.pp - 1.0) / (static_cast<double>(l.pp) * l.vp) : 1.0;
  n *= interleave;
  // Megatron's MoE all-to-all overlap warms up one more micro-batch (one
  // chunk of 1/vp of the stage's layers): schedules.py @core_v0.14.0
  // `num_warmup_microbatches + 1` "to ensure the forward and backward
  // computations are independent in all 1f1b steps".
  if (l.moe_a2a_overlap && l.ep > 1) n = std::min(n + 1.0 / l.vp, m * interleave);
  return n;
}

// QLoRA's frozen layer weights, bytes per weight: NF4 (4 bits) with
// double-quantised constants (Dettmers et al. 2023: 0.127 bits/param), or a
// GPTQ checkpoint's 4 bits with an fp16 scale and a 4-bit zero point per group
// of 128 (AutoGPTQ QuantLinear's scales and qzeros; Qwen's -Int4 checkpoints'
// quantize_config.json: group_size 128).
double qlora_weight_bytes(const Layout& l) { return l.qlora_base == QloraBase::kGptqInt4 ? 0.5 + 2.5 / 128 : 0.5 + 0.127 / 8; }

// AutoGPTQ rebuilds each fp16 weight with torch ops and autograd keeps it for
// the input gradient (step_time_layer.cpp add_gptq_dequant): with full
// recompute one layer's worth is held while that layer runs its backward,
// without it every layer's, per micro-batch in flight. (The int32 and int8
// copies the rebuild passes through are freed before the matmul, while the
// layer's activations are not yet all live.)
double gptq_rebuilt_weight_bytes(const Layout& l, const StageParams& p, double inflight) {
  if (l.finetune != FineTune::kQlora || l.qlora_base != QloraBase::kGptqInt4 || p.layers <= 0) return 0;
  const double held = l.recompute == Recompute::kFull ? p.largest_layer : p.largest_layer * static_cast<double>(p.layers) * inflight;
  return 2.0 * held;
}

// ZeRO-3 / FSDP gathers each layer's full parameters before it runs and
// prefetches the next: `zero3_prefetch_layers` layers of full bf16 weights,
// plus one layer of unsharded gradients before their reduce-scatter.
double gathered_bytes(const Layout& l, const MemoryOptions& o, const StageParams& p, const StateBytes& b, bool lora, double Nd) {
  const int z = l.zero_stage;
  double gathered = 0;
  if ((z == 3 && Nd > 1) || l.offload_params) {
    const double full_layer = p.largest_layer;
    const double head = p.embedding;  // the embedding / LM head is gathered whole too
    double window = std::max(o.zero3_prefetch_layers * full_layer, head);
    gathered = window * b.weight + (lora ? 0 : full_layer * b.grad);
    if (l.zero3_keep_gathered && l.pp > 1 && z == 3) {
      // With pipelining the stage stays unsharded for the whole step: torchtitan
      // sets reshard_after_forward=False under PP (parallelize_llama.py
      // apply_fsdp), and torch.distributed.pipelining's stage runs every
      // micro-batch but the last with reshard_after_backward and gradient sync
      // off (stage.py backward_maybe_with_nosync), so the stage's full
      // parameters and their unsharded gradients are held: in the parameter
      // dtype, or upcast to an fp32 reduce dtype (keep_gathered_grads_fp32),
      // while one layer's fresh bf16 .grad waits to be added to it.
      const double stage = p.layer_dense + p.layer_expert + p.embedding;
      const double grads = l.keep_gathered_grads_fp32 ? stage * 4.0 + full_layer * b.weight : stage * b.weight;
      gathered = stage * b.weight + (lora ? 0 : grads);
    }
  }
  return gathered;
}

StageMemory stage_memory(const ModelSpec& m, const Layout& l, const MemoryOptions& o, const StageSplit& split, int stage) {
  StageMemory s;
  const StageParams p = stage_params(m, l, split, stage);
  const StateBytes b = state_bytes(l, o);
  const bool lora = is_lora(l);
  const double Nd = dense_shard(l), Ne = expert_shard(l);
  const int z = l.zero_stage;

  // Base weights (QLoRA's 4-bit layer weights: qlora_weight_bytes); the
  // embedding and LM head stay 16-bit unless the stack's preparation cast the
  // frozen 16-bit weights to fp32 (PEFT prepare_model_for_kbit_training:
  // "cast all non INT8 parameters to fp32"; profile frozen_upcast).
  const double layer_w = l.finetune == FineTune::kQlora ? qlora_weight_bytes(l) : (l.frozen_fp32_layers ? 4.0 : b.weight);
  const double embedding_w = l.frozen_fp32_embeddings ? 4.0 : b.weight;
  const double base_dense = p.layer_dense * layer_w + p.embedding * embedding_w + p.layer_dense * b.fp8_cache;
  const double base_expert = p.layer_expert * (layer_w + b.fp8_cache);
  s.params = p.layer_dense + p.layer_expert + p.embedding;

  // Trainable parameters: everything, or only the LoRA adapters (fp32 weights,
  // fp32 gradients and fp32 AdamW moments: 4 + 4 + 8 = 16 bytes, PEFT's
  // autocast_adapter_dtype default).
  double w_dense = base_dense, w_expert = base_expert;
  double g_dense = 0, g_expert = 0, o_dense = 0, o_expert = 0;
  if (lora) {
    w_dense += p.adapters * 4;
    g_dense = p.adapters * 4;
    // The adapters' optimizer states, over fp32 adapters (no master copy).
    o_dense = p.adapters * moment_bytes(l.optimizer, 4);
    s.trainable = p.adapters;
  } else {
    g_dense = p.dense() * b.grad;
    g_expert = p.layer_expert * b.grad;
    o_dense = p.dense() * b.optimizer;
    o_expert = p.layer_expert * b.optimizer;
    s.trainable = s.params;
  }
  // ZeRO (Rajbhandari et al. 2020): stage 1 shards optimizer states, stage 2
  // also gradients, stage 3 also parameters, over the data-parallel ranks.
  const double zw = z >= 3 ? 1 : 0, zg = z >= 2 ? 1 : 0, zo = z >= 1 ? 1 : 0;
  auto shard = [](double bytes, double n, double on) { return on > 0 ? bytes / n : bytes; };
  s.weights = shard(w_dense, Nd, zw) + shard(w_expert, Ne, zw);
  s.grads = shard(g_dense, Nd, zg) + shard(g_expert, Ne, zg);
  s.optimizer = shard(o_dense, Nd, zo) + shard(o_expert, Ne, zo);
  if (l.optimizer_in_backward && !lora) {
    // The optimizer steps each parameter inside the backward as soon as its
    // gradient is complete and frees that gradient (torchtune optimizer_in_bwd:
    // training.register_optim_in_bwd_hooks, a post-accumulate-grad hook per
    // parameter; PyTorch's "fuse the optimizer step into the backward" recipe):
    // at most the largest parameter's gradient is alive, the embedding or LM
    // head (vocab × hidden) or one MLP matrix, split as the weights are.
    const double largest = std::max(static_cast<double>(m.vocab) * static_cast<double>(m.hidden) / l.tp,
                                    static_cast<double>(m.hidden) * static_cast<double>(std::max(m.intermediate, m.moe ? m.moe->expert_intermediate : 0)) / l.tp);
    s.grads = std::min(s.grads, largest * b.grad);
  }
  if (b.paged && !lora) {
    // Paged 8-bit states live in CUDA unified memory (bitsandbytes paged
    // optimizers): the driver evicts them to host when the GPU is full, so they
    // do not cause an out-of-memory error and are not in PyTorch's counters.
    s.paged = s.optimizer;
    s.optimizer = 0;
  }
  // CPU offload: ZeRO-Offload (Ren et al. 2021) and FSDP CPUOffload keep the
  // optimizer states, master weights and gradients in host memory; parameter
  // offload (ZeRO-Infinity, FSDP offload_params) keeps the weights there too,
  // and only the gathered layers (below) are on the GPU.
  if (l.offload_optimizer || l.offload_params) {
    s.host += s.optimizer + s.grads;
    s.optimizer = 0;
    s.grads = 0;
  }
  if (l.offload_params) {
    s.host += s.weights;
    s.weights = 0;
  }

  s.gathered = gathered_bytes(l, o, p, b, lora, Nd);
  // Communication buckets (DDP / ZeRO-1/2 gradient reduction) when there is a
  // data-parallel peer.
  if (z < 3 && Nd > 1) s.comm = o.comm_bucket_bytes.value_or(kBucketBytes);

  // Activations of the micro-batches in flight.
  s.layers = static_cast<double>(p.layers);
  s.inflight = inflight_micro_batches(l, stage);
  // A layer's activations depend only on whether it is a MoE layer: compute
  // each kind once and add them in layer order (the same sum, bit for bit, as
  // evaluating every layer; the planner calls this ~10^4 times per search).
  struct PerKind {
    const ModelSpec& m;
    const Layout& l;
    const MemoryOptions& o;
    double v[2] = {-1, -1};
    double operator()(bool moe) {
      double& x = v[moe ? 1 : 0];
      if (x < 0) x = activation_bytes_per_layer(m, l, moe, o);
      return x;
    }
  };
  PerKind act{m, l, o};
  double largest_full = 0, sum_layers = 0;
  for_each_layer(p, [&](int64_t layer) {
    const double a = act(m.is_moe_layer(layer));
    largest_full = std::max(largest_full, a);
    sum_layers += a;
  });
  const double ckpt = checkpoint_bytes_per_layer(m, l);
  double per_micro = 0;
  double live_extra = 0;  // bytes live once, not per micro-batch
  if (l.recompute == Recompute::kFull) {
    per_micro = ckpt * static_cast<double>(p.layers);
    // During the backward pass one layer is recomputed and its full activations
    // are live again (Korthikanti et al. 2022, section 4).
    Layout no_recompute = l;
    no_recompute.recompute = Recompute::kNone;
    PerKind act_full{m, no_recompute, o};
    double full = 0;
    for_each_layer(p, [&](int64_t layer) { full = std::max(full, act_full(m.is_moe_layer(layer))); });
    // The recomputed layer's input is its checkpoint, already counted above.
    live_extra = p.layers > 0 ? std::max(0.0, full - ckpt) : 0.0;
  } else if (l.recompute == Recompute::kSelective && l.selective == SelectiveRecompute::kLayer) {
    // Every N-th block is checkpointed (keeps its input), the others keep all
    // their activations; one checkpointed block is live again in the backward.
    const double share = layer_policy_share(p.layers, l.selective_every);
    per_micro = share * ckpt * static_cast<double>(p.layers) + (1 - share) * sum_layers;
    live_extra = p.layers > 0 ? std::max(0.0, largest_full - ckpt) : 0.0;
  } else if (l.recompute == Recompute::kSelective && l.selective == SelectiveRecompute::kOp) {
    // torchtitan's op policy keeps the block input, the saved matmul outputs
    // and the attention output with its fp32 log-sum-exp (recompute_policy.hpp);
    // one block is recomputed whole in the backward.
    const double T = static_cast<double>(l.seq_len) * static_cast<double>(l.micro_batch) / l.cp;
    const double t = l.tp, rep = (l.sequence_parallel && l.tp > 1) ? t : 1.0;
    const double attn_out = static_cast<double>(m.mla ? m.heads * m.mla->v_head_dim : m.q_width());
    per_micro = 0;
    const OpPolicySplit dense_split = op_policy_split(m, false);
    const OpPolicySplit moe_split = m.moe ? op_policy_split(m, true) : dense_split;
    for_each_layer(p, [&](int64_t layer) {
      const OpPolicySplit& sp = m.is_moe_layer(layer) ? moe_split : dense_split;
      per_micro += ckpt + 2 * T * (sp.saved_tp_elems + attn_out) / t + 2 * T * sp.saved_rep_elems / rep +
                   4 * T * static_cast<double>(m.heads) / t;
    });
    live_extra = p.layers > 0 ? std::max(0.0, largest_full - ckpt) : 0.0;
  } else if (l.recompute == Recompute::kSelective && is_named_save_policy(l.selective)) {
    // MaxText's named-save policies keep the block input and the bf16 outputs
    // the policy names (recompute_policy.hpp), nothing of attention; one block
    // is recomputed whole in the backward.
    const double T = static_cast<double>(l.seq_len) * static_cast<double>(l.micro_batch) / l.cp;
    const double t = l.tp, rep = (l.sequence_parallel && l.tp > 1) ? t : 1.0;
    const OpPolicySplit dense_split = named_policy_split(m, false, l.selective);
    const OpPolicySplit moe_split = m.moe ? named_policy_split(m, true, l.selective) : dense_split;
    per_micro = 0;
    for_each_layer(p, [&](int64_t layer) {
      const OpPolicySplit& sp = m.is_moe_layer(layer) ? moe_split : dense_split;
      per_micro += ckpt + 2 * T * sp.saved_tp_elems / t + 2 * T * sp.saved_rep_elems / rep;
    });
    live_extra = p.layers > 0 ? std::max(0.0, largest_full - ckpt) : 0.0;
  } else {
    per_micro = sum_layers;
    if (l.recompute == Recompute::kSelective && keeps_attention_scores(l)) {
      // Selective recompute re-runs the attention core in the backward pass:
      // one layer's s×s scores are live again while it does.
      Layout no_recompute = l;
      no_recompute.recompute = Recompute::kNone;
      PerKind act_full{m, no_recompute, o};
      for_each_layer(p, [&](int64_t layer) {
        const bool moe = m.is_moe_layer(layer);
        live_extra = std::max(live_extra, act_full(moe) - act(moe));
      });
    }
  }
  s.per_layer = p.layers > 0 ? per_micro / static_cast<double>(p.layers) : 0;
  if (stage == 0) per_micro += embedding_activation_bytes(m, l, o);
  if (p.has_lm_head) per_micro += head_activation_bytes(m, l);
  if (l.offload_activations && p.layers > 0) {
    // Activation offload streams the saved tensors to host: the GPU keeps the
    // layer being computed and one in transfer (double buffering).
    const double keep = std::min<double>(2, static_cast<double>(p.layers)) / static_cast<double>(p.layers);
    s.host += per_micro * (1 - keep) * s.inflight;
    per_micro *= keep;
  }
  s.per_micro = per_micro;
  s.live_extra = live_extra;
  s.activations = per_micro * s.inflight + live_extra;
  s.activations += gptq_rebuilt_weight_bytes(l, p, s.inflight);
  if (p.has_lm_head) s.logits = logits_bytes(m, l, o);  // one micro-batch at a time
  return s;
}

MemoryBreakdown evaluate(const ModelSpec& m, const Layout& l, const GpuSpec& gpu, const MemoryOptions& o) {
  MemoryBreakdown br;
  br.capacity_bytes = gpu.memory_bytes;
  const double frag = o.fragmentation.value_or(kFragmentation);
  double context = o.cuda_context_bytes ? *o.cuda_context_bytes
                                             : (kCudaContextGiB + (l.gpus() > 1 ? kNcclBuffersGiB : 0.0)) * kGiB;
  double frag_used = frag;
  if (o.scope != MemoryScope::kDevice) context = 0;       // PyTorch's counters exclude the context
  if (o.scope == MemoryScope::kAllocated) frag_used = 0;  // live tensors only

  double worst = -1;
  StageMemory best;
  // The real split (stage_split): with uneven stages the first and last hold
  // fewer layers than the middle ones, besides the embedding and the LM head.
  const StageSplit split = stage_split(m, l);
  auto keep_worst = [&](const StageMemory& s, int stage) {
    const double total = s.allocated() * (1 + frag_used) + context;
    if (total > worst) {
      worst = total;
      best = s;
      br.worst_stage = stage;
    }
  };
  for (int stage = 0; stage < l.pp; ++stage) {
    if (l.dualpipe && l.pp > 1) {
      // DualPipe: rank i holds stages i and pp−1−i (ranks i and pp−1−i the
      // same pair), so their parameters, gradients and optimizer states add
      // ("2×" parameters), and pp + 1 chunks' activations are in flight, each
      // one micro-batch through one of its two stages (deepseek-ai/DualPipe
      // README, "Pipeline Bubbles and Memory Usage Comparison"; V3 report §3.2.1).
      if (stage >= l.pp / 2) break;
      if (stage > 1 && l.pp > 4 && stage != l.pp / 4) continue;  // middle pairs hold the same layers
      const StageMemory a = stage_memory(m, l, o, split, stage), b = stage_memory(m, l, o, split, l.pp - 1 - stage);
      StageMemory s = a;
      s.weights += b.weights;
      s.grads += b.grads;
      s.optimizer += b.optimizer;
      s.gathered = std::max(a.gathered, b.gathered);
      s.logits = std::max(a.logits, b.logits);
      s.host += b.host;
      s.paged += b.paged;
      s.params += b.params;
      s.trainable += b.trainable;
      s.layers = a.layers + b.layers;
      s.inflight = l.pp + 1.0;
      s.per_micro = (a.per_micro + b.per_micro) / 2;
      s.live_extra = std::max(a.live_extra, b.live_extra);
      s.per_layer = s.layers > 0 ? (a.per_micro + b.per_micro) / s.layers : 0;
      s.activations = s.per_micro * s.inflight + s.live_extra;
      keep_worst(s, stage);
      continue;
    }
    // Middle stages all hold the same number of layers (every rule in
    // stage_split) and fewer micro-batches in flight than stage 1; skip them when p is large.
    if (stage > 1 && stage < l.pp - 1 && l.pp > 4 && stage != l.pp / 2) continue;
    keep_worst(stage_memory(m, l, o, split, stage), stage);
  }
  br.weights_bytes = best.weights;
  br.gradients_bytes = best.grads;
  br.optimizer_bytes = best.optimizer;
  br.activations_bytes = best.activations;
  br.logits_bytes = best.logits;
  br.comm_buffers_bytes = best.comm;
  br.zero3_gathered_bytes = best.gathered;
  br.cuda_context_bytes = context;
  br.fragmentation_bytes = best.allocated() * frag_used;
  br.peak_bytes = best.allocated() + br.fragmentation_bytes + context;
  br.safety_margin_bytes = o.safety_margin * br.capacity_bytes;
  br.headroom_bytes = br.capacity_bytes - br.safety_margin_bytes - br.peak_bytes;
  br.fits = br.headroom_bytes >= 0;
  br.fits_card = br.peak_bytes <= br.capacity_bytes;

  const StateBytes b = state_bytes(l, o);
  br.params_on_gpu = best.params;
  br.trainable_params_on_gpu = best.trainable;
  br.weight_bytes_per_param = b.weight + b.fp8_cache;
  br.grad_bytes_per_param = b.grad;
  br.optimizer_bytes_per_param = b.optimizer;
  br.host_offload_bytes = best.host;
  br.paged_optimizer_bytes = best.paged;
  br.activations_per_layer_bytes = best.per_layer;
  br.layers_on_stage = best.layers;
  br.inflight_micro_batches = best.inflight;
  return br;
}

// What the breakdown assumed, as values (the report words them: report/memory_report.cpp).
void describe_memory_basis(const ModelSpec& m, const Layout& l, const MemoryOptions& o, MemoryBreakdown& br) {
  MemoryBasis& basis = br.basis;
  const StateBytes b = state_bytes(l, o);
  basis.architecture = !m.count_only;
  basis.fp8_weight_cache = b.fp8_cache > 0;
  // What the linears keep for the weight gradient follows the stack (profile fp8_saved_input).
  basis.fp8_saved_inputs = l.fp8_saves_fp8_inputs;
  basis.finetune = l.finetune;
  if (is_lora(l)) {
    basis.lora_rank = lora_rank_or_default(l);
    basis.lora_modules = lora_modules_or_default(l);
  }
  basis.gated_mlp = m.mlp == MlpKind::kGated;
  basis.attention_scores_kept = keeps_attention_scores(l);
  basis.dropout = o.dropout;
  basis.eager = l.eager;
  basis.loss_bytes_per_logit = loss_bytes_per_logit(l, o);
  basis.kept_logits_micro_batches = l.pipeline_keeps_outputs && l.pp > 1 ? l.micro_batches() : 0;
  basis.fragmentation = o.fragmentation.value_or(kFragmentation);
  basis.safety_margin = o.safety_margin;
  if (l.pp > 1 && !m.count_only) br.stage_split = stage_split(m, l);
}

// The largest micro-batch that fits, keeping the number of micro-batches per step.
int64_t largest_micro_batch(const ModelSpec& m, const Layout& l, const GpuSpec& gpu, const MemoryOptions& o) {
  const int64_t micro_batches = std::max<int64_t>(1, l.micro_batches());
  auto fits = [&](int64_t mb) {
    Layout x = l;
    x.micro_batch = mb;
    x.global_batch = static_cast<int64_t>(x.dp) * mb * micro_batches;
    return evaluate(m, x, gpu, o).fits;
  };
  if (!fits(1)) return 0;
  int64_t lo = 1, hi = 2;
  const int64_t cap = int64_t{1} << 20;
  while (hi <= cap && fits(hi)) { lo = hi; hi *= 2; }
  if (hi > cap) return lo;
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    (fits(mid) ? lo : hi) = mid;
  }
  return lo;
}

void add_suggestions(const ModelSpec& m, const Layout& l, const GpuSpec& gpu, const MemoryOptions& o, MemoryBreakdown& br) {
  auto consider = [&](Layout x, MemoryChange change) {
    if (o.framework) {
      // A stack that runs SP whenever TP is on does so on the wider TP too.
      if (x.tp > 1 && o.framework->sequence_parallel == SequenceParallelMode::kWithTp) x.sequence_parallel = true;
      if (!framework_cannot_run(*o.framework, x).empty()) return false;
    }
    try {
      validate_layout(m, x, l.gpus());
    } catch (const InputError&) {
      return false;
    }
    const MemoryBreakdown r = evaluate(m, x, gpu, o);
    if (r.peak_bytes >= br.peak_bytes) return false;  // no gain
    br.suggestions.push_back({change, x, r.peak_bytes, r.fits});
    return r.fits;
  };
  const bool sharded = dense_shard(l) > 1;
  if (sharded) {
    for (int z = l.zero_stage + 1; z <= 3; ++z) {
      Layout x = l;
      x.zero_stage = z;
      if (consider(x, MemoryChange::kZeroStage)) break;
    }
  }
  if (l.recompute == Recompute::kNone && keeps_attention_scores(l)) {
    Layout x = l;
    x.recompute = Recompute::kSelective;
    consider(x, MemoryChange::kSelectiveRecompute);
  }
  if (l.recompute != Recompute::kFull) {
    Layout x = l;
    x.recompute = Recompute::kFull;
    consider(x, MemoryChange::kFullRecompute);
  }
  if (l.tp > 1 && !l.sequence_parallel) {
    Layout x = l;
    x.sequence_parallel = true;
    consider(x, MemoryChange::kSequenceParallel);
  }
  for (int tp = l.tp * 2; tp <= std::max(8, l.tp) && l.dp % (tp / l.tp) == 0; tp *= 2) {
    Layout x = l;
    x.dp = l.dp / (tp / l.tp);
    x.tp = tp;
    if (x.global_batch && *x.global_batch % (static_cast<int64_t>(x.dp) * x.micro_batch) != 0) break;
    if (consider(x, MemoryChange::kTensorParallel)) break;
  }
  for (int pp = l.pp * 2; pp <= l.pp * 16 && l.dp % (pp / l.pp) == 0; pp *= 2) {
    Layout x = l;
    x.dp = l.dp / (pp / l.pp);
    x.pp = pp;
    if (x.global_batch && *x.global_batch % (static_cast<int64_t>(x.dp) * x.micro_batch) != 0) break;
    if (consider(x, MemoryChange::kPipelineParallel)) break;
  }
  if (!l.offload_optimizer) {
    Layout x = l;
    x.offload_optimizer = true;
    consider(x, MemoryChange::kOffloadOptimizer);
  }
  if (!l.offload_params) {
    Layout x = l;
    x.offload_params = true;
    x.offload_optimizer = true;
    if (sharded) x.zero_stage = 3;
    consider(x, MemoryChange::kOffloadParams);
  }
  if (l.micro_batch > 1) {
    Layout x = l;
    x.micro_batch = 1;
    x.global_batch = static_cast<int64_t>(x.dp) * std::max<int64_t>(1, l.micro_batches()) * l.micro_batch;
    consider(x, MemoryChange::kMicroBatchOne);
  }
}

}  // namespace

MemoryBreakdown estimate_memory_numbers(const ModelSpec& model, const Layout& layout, const GpuSpec& gpu, const MemoryOptions& options) {
  return evaluate(model, layout, gpu, options);
}

MemoryBreakdown estimate_memory(const ModelSpec& model, const Layout& layout, const GpuSpec& gpu, const MemoryOptions& options) {
  MemoryBreakdown br = evaluate(model, layout, gpu, options);
  describe_memory_basis(model, layout, options, br);
  if (options.suggest) {
    br.largest_micro_batch = model.count_only ? -1 : largest_micro_batch(model, layout, gpu, options);
    if (!br.fits) add_suggestions(model, layout, gpu, options, br);
  }
  return br;
}

double largest_margin_admitting(const MemoryBreakdown& br) {
  return std::floor(100 * (1 - br.peak_bytes / br.capacity_bytes)) / 100;
}

}  // namespace gpuplan
