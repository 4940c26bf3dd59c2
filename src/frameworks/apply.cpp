// A framework profile and a run's stated settings → the layout's execution
// switches; and what a framework cannot run. The one place each default is
// decided, for the CLI, the web API, the planner and validation alike.
#include <fmt/format.h>

#include <algorithm>

#include "gpuplan/error.hpp"
#include "gpuplan/framework.hpp"
#include "gpuplan/units.hpp"
#include "units/text_match.hpp"
#include "execution/layout_words.hpp"
#include "frameworks/framework_words.hpp"

namespace gpuplan {

bool FrameworkProfile::supports_zero(int stage) const {
  return std::find(zero_stages.begin(), zero_stages.end(), stage) != zero_stages.end();
}

bool FrameworkProfile::interleaving() const {
  return vp && std::find(pipeline_schedules.begin(), pipeline_schedules.end(), "interleaved") != pipeline_schedules.end();
}

// The schedule a pipelined run gets is the first the profile lists.
bool FrameworkProfile::runs_dualpipe() const { return !pipeline_schedules.empty() && pipeline_schedules.front() == "dualpipe"; }

const ProfileFact* FrameworkProfile::fact(const std::string& key) const {
  for (const auto& f : facts) {
    if (f.key == key) return &f;
  }
  return nullptr;
}

const char* attention_kernel_name(AttentionKernel k) {
  switch (k) {
    case AttentionKernel::kMaterialised: return "materialised";
    case AttentionKernel::kFlash2: return "flash2";
    case AttentionKernel::kFlash3: return "flash3";
    case AttentionKernel::kCudnn: return "cudnn";
    case AttentionKernel::kSdpa: return "sdpa";
    case AttentionKernel::kNpuFusion: return "npu_fusion";
  }
  return "flash2";
}

AttentionKernel parse_attention_kernel(const std::string& text, const std::string& field) {
  const std::string t = normalize_name(text);
  // "flash" is the validation cases' family name (README: flash / materialised).
  if (t == "flash" || t == "flash2" || t == "fa2" || t == "flashattention2") return AttentionKernel::kFlash2;
  if (t == "flash3" || t == "fa3" || t == "flashattention3") return AttentionKernel::kFlash3;
  if (t == "cudnn") return AttentionKernel::kCudnn;
  if (t == "sdpa") return AttentionKernel::kSdpa;
  if (t == "npu-fusion" || t == "npu-fusion-attention" || t == "npufa") return AttentionKernel::kNpuFusion;
  if (t == "materialised" || t == "materialized" || t == "eager" || t == "none") return AttentionKernel::kMaterialised;
  throw InputError(field, fmt::format("{} must be flash, flash2, flash3, cudnn, sdpa, npu_fusion or materialised (got '{}').", field, text),
                   fmt::format("{} 须为 flash、flash2、flash3、cudnn、sdpa、npu_fusion 或 materialised（输入为 '{}'）。", field, text));
}

const char* loss_kernel_name(LossKernel k) {
  switch (k) {
    case LossKernel::kFull: return "full";
    case LossKernel::kFused: return "fused";
    case LossKernel::kChunked: return "chunked";
    case LossKernel::kVocabParallel: return "vocab_parallel";
  }
  return "fused";
}

LossKernel parse_loss_kernel(const std::string& text, const std::string& field) {
  const std::string t = normalize_name(text);
  if (t == "full") return LossKernel::kFull;
  if (t == "fused") return LossKernel::kFused;
  if (t == "chunked") return LossKernel::kChunked;
  if (t == "vocab-parallel" || t == "vocab_parallel" || t == "vocabparallel") return LossKernel::kVocabParallel;
  throw InputError(field, fmt::format("{} must be full, fused, chunked or vocab_parallel (got '{}').", field, text),
                   fmt::format("{} 须为 full、fused、chunked 或 vocab_parallel（输入为 '{}'）。", field, text));
}

const char* selective_recompute_name(SelectiveRecompute k) {
  switch (k) {
    case SelectiveRecompute::kAttentionCore: return "attention_core";
    case SelectiveRecompute::kOp: return "op";
    case SelectiveRecompute::kLayer: return "layer";
    case SelectiveRecompute::kSaveDots: return "minimal";
    case SelectiveRecompute::kSaveDotExceptMlp: return "save_dot_except_mlp";
    case SelectiveRecompute::kSaveQkvProj: return "save_qkv_proj";
    case SelectiveRecompute::kNormMlaUp: return "norm_mla_up";
    case SelectiveRecompute::kMlaUpProj: return "mla_up_proj";
    case SelectiveRecompute::kNone: return "none";
  }
  return "attention_core";
}

SelectiveRecompute parse_selective_recompute(const std::string& text, const std::string& field) {
  const std::string t = normalize_name(text);
  if (t == "attention-core" || t == "attention_core" || t == "attentioncore") return SelectiveRecompute::kAttentionCore;
  if (t == "op") return SelectiveRecompute::kOp;
  if (t == "layer") return SelectiveRecompute::kLayer;
  // MaxText's remat_policy names (src/MaxText/layers/decoders.py get_remat_policy).
  if (t == "minimal") return SelectiveRecompute::kSaveDots;
  if (t == "save_dot_except_mlp" || t == "save-dot-except-mlp") return SelectiveRecompute::kSaveDotExceptMlp;
  if (t == "save_qkv_proj" || t == "save-qkv-proj") return SelectiveRecompute::kSaveQkvProj;
  // DeepSeek-V3's: norms and MLA up-projections re-run (arXiv:2412.19437 §3.2.3).
  if (t == "norm_mla_up" || t == "norm-mla-up") return SelectiveRecompute::kNormMlaUp;
  // Megatron-Core's recompute_modules ["mla_up_proj"].
  if (t == "mla_up_proj" || t == "mla-up-proj") return SelectiveRecompute::kMlaUpProj;
  throw InputError(field,
                   fmt::format("{} must be attention_core, op, layer, minimal, save_dot_except_mlp, save_qkv_proj, norm_mla_up or mla_up_proj (got '{}').", field, text),
                   fmt::format("{} 须为 attention_core、op、layer、minimal、save_dot_except_mlp、save_qkv_proj、norm_mla_up 或 mla_up_proj（输入为 '{}'）。", field, text));
}

namespace {

// The kernels and switches as a Chinese engineer names them in a note.
const char* attention_kernel_zh(AttentionKernel k) {
  switch (k) {
    case AttentionKernel::kMaterialised: return "显式计算 s×s 分数矩阵的非融合注意力";
    case AttentionKernel::kFlash2: return "FlashAttention-2";
    case AttentionKernel::kFlash3: return "FlashAttention-3";
    case AttentionKernel::kCudnn: return "cuDNN 融合注意力";
    case AttentionKernel::kSdpa: return "PyTorch SDPA";
    case AttentionKernel::kNpuFusion: return "昇腾 npu_fusion_attention 融合注意力";
  }
  return "";
}

const char* loss_kernel_zh(LossKernel k) {
  switch (k) {
    case LossKernel::kFull: return "完整 logits 的交叉熵";
    case LossKernel::kFused: return "融合交叉熵";
    case LossKernel::kChunked: return "分块交叉熵";
    case LossKernel::kVocabParallel: return "词表并行交叉熵";
  }
  return "";
}

const char* on_off_zh(bool on) { return on ? "开" : "关"; }

// What a fine-tuning stack does that a run does not state: its LoRA rank and
// targets, checkpoints kept in host memory, the frozen weights its preparation
// casts to fp32 (data/frameworks, each cited there).
void apply_finetune_defaults(const FrameworkProfile& f, Layout& l, std::vector<Bilingual>* notes) {
  auto note = [notes](std::string en, std::string zh) {
    if (notes) notes->push_back(Bilingual{std::move(en), std::move(zh)});
  };
  const bool lora = l.finetune == FineTune::kLora || l.finetune == FineTune::kQlora;
  if (lora && l.lora_rank == 0 && f.lora_rank_default > 0) {
    l.lora_rank = f.lora_rank_default;
    if (notes) note(fmt::format("LoRA rank {} ({} default)", l.lora_rank, f.label()), fmt::format("LoRA 秩 {}（{} 默认）", l.lora_rank, f.label()));
  }
  if (lora && l.lora_modules.empty() && !f.lora_targets_default.empty()) {
    l.lora_modules = f.lora_targets_default;
    if (notes) note(fmt::format("LoRA on {} ({} default)", lora_modules_text(l.lora_modules, ","), f.label()),
                 fmt::format("LoRA 作用于 {}（{} 默认）", lora_modules_text(l.lora_modules, ","), f.label()));
  }
  // Checkpointed layer inputs offloaded to host (Unsloth's "unsloth"
  // gradient checkpointing): only with every layer checkpointed.
  if (l.recompute == Recompute::kFull && f.checkpoint_offload && !l.offload_activations) {
    l.offload_activations = true;
    if (notes) note(fmt::format("checkpointed layer inputs kept in host memory ({} default)", f.label()),
                 fmt::format("检查点层输入放在主机内存（{} 默认）", f.label()));
  }
  // The fp32 upcast of frozen 16-bit weights; DeepSpeed's bf16/fp16 engine
  // casts the module back when ZeRO runs it (DeepSpeedEngine._configure_distributed_model).
  const bool upcast = f.frozen_upcast != FrozenUpcast::kNone && l.zero_stage == 0 && lora &&
                      (l.finetune == FineTune::kQlora || f.frozen_upcast == FrozenUpcast::kLoraAndQlora);
  l.frozen_fp32_embeddings = upcast;
  l.frozen_fp32_layers = upcast && l.finetune == FineTune::kLora;
  if (upcast) {
    if (notes) note(fmt::format("frozen {} weights held in fp32 ({} default)",
                             l.frozen_fp32_layers ? "base" : "non-4-bit (embeddings, LM head, norms)", f.label()),
                 fmt::format("冻结的{}权重以 fp32 保存（{} 默认）",
                             l.frozen_fp32_layers ? "基座" : "非 4 位（嵌入、输出层、归一化）", f.label()));
  }
}

}  // namespace

void apply_framework(const FrameworkProfile& f, const RunSettings& s, Layout& l, std::vector<Bilingual>* notes) {
  // Formats only when asked: the planner calls this for every candidate.
  // Each note in English and in Chinese, the same facts.
#define GPUPLAN_NOTE(EN, ZH) \
  if (notes) notes->push_back(Bilingual{EN, ZH})

  // Attention kernel: every kernel but the materialised one keeps no s×s scores.
  const AttentionKernel att = s.attention.value_or(f.attention);
  l.attention = att;
  if (!s.attention) {
    GPUPLAN_NOTE(fmt::format("attention kernel: {} ({} default)", attention_kernel_name(att), f.label()),
                 fmt::format("注意力内核：{}（{} 默认）", attention_kernel_zh(att), f.label()));
  }

  // Element-wise work: eager unless fused kernels or torch.compile run it. A
  // stated `compile` decides for PyTorch-native stacks; a stack with its own
  // fused kernels (Megatron, TE) is fused whatever torch.compile says.
  if (s.force_eager) {
    l.eager = true;
  } else if (f.elementwise == ElementwiseMode::kFused) {
    l.eager = false;
  } else if (s.compile) {
    l.eager = !*s.compile;
  } else {
    l.eager = f.elementwise == ElementwiseMode::kEager && !f.compile_default;
    GPUPLAN_NOTE(fmt::format("element-wise ops: {} ({} default)", l.eager ? "eager PyTorch" : "torch.compile", f.label()),
                 fmt::format("逐元素算子：{}（{} 默认）", l.eager ? "PyTorch 逐个算子执行，不融合" : "torch.compile 编译融合", f.label()));
  }

  l.loss = s.loss.value_or(f.loss);
  if (!s.loss) {
    GPUPLAN_NOTE(fmt::format("loss: {} cross-entropy ({} default)", loss_kernel_name(l.loss), f.label()),
                 fmt::format("损失：{}（{} 默认）", loss_kernel_zh(l.loss), f.label()));
  }
  // What the LM head's logits and the loss hold at their peak, per local logit:
  // with TP the logits are vocab-sharded and the stack may run another loss on
  // them (torchtitan: DTensor loss_parallel; profile loss_bytes_per_logit_tp).
  // The profile's bytes describe its own loss; a run that names another loss
  // kernel keeps the generic 10.
  if (s.loss && *s.loss != f.loss) {
    l.loss_bytes_per_logit = Layout{}.loss_bytes_per_logit;
  } else {
    l.loss_bytes_per_logit = l.tp > 1 ? f.loss_bytes_per_logit_tp.value_or(f.loss_bytes_per_logit) : f.loss_bytes_per_logit;
    // A stack that torch.compiles its loss function along with the model
    // (torchtitan from 2025-04) fuses the upcast and the log-softmax.
    const bool compiled = !s.force_eager && s.compile.value_or(f.compile_default);
    if (l.tp == 1 && compiled && f.loss_bytes_per_logit_compiled) l.loss_bytes_per_logit = *f.loss_bytes_per_logit_compiled;
  }
  // Chunked over tokens with a cap on each chunk's fp32 logits (Unsloth's
  // fused loss): the stack's own loss only.
  const bool own_loss = !(s.loss && *s.loss != f.loss);
  l.loss_chunk_cap_bytes = own_loss ? f.loss_chunk_cap_gib * kGiB : 0.0;
  l.loss_chunk_tokens = own_loss ? f.loss_chunk_tokens : 0;
  apply_finetune_defaults(f, l, notes);
  // The experts' own TP degree where the stack folds MoE parallelism and its
  // recipes choose one (Megatron-Bridge: expert_tensor_parallel_size = 1).
  if (l.etp == 0 && f.moe_parallel_folding && f.expert_tp_default > 0 && l.ep > 1) {
    l.etp = f.expert_tp_default;
    if (l.etp != l.tp) {
      GPUPLAN_NOTE(fmt::format("expert tensor parallelism: {} ({} default)", l.etp, f.label()),
                   fmt::format("专家张量并行：{}（{} 默认）", l.etp, f.label()));
    }
  }
  l.pipeline_keeps_outputs = f.pipeline_keeps_outputs && l.pp > 1;
  l.tp_saves_gathered_input = f.tp_saves_gathered_input;

  // TP overlap needs sequence parallelism in Megatron (megatron/training/
  // arguments.py refuses --tp-comm-overlap without --sequence-parallel).
  if (s.tp_comm_overlap) {
    l.tp_comm_overlap = *s.tp_comm_overlap && l.tp > 1;
  } else {
    l.tp_comm_overlap = f.tp_comm_overlap == Availability::kDefault && l.tp > 1;
    if (l.tp > 1) {
      GPUPLAN_NOTE(fmt::format("TP communication overlap {} ({} default)", l.tp_comm_overlap ? "on" : "off", f.label()),
                   fmt::format("TP 通信重叠：{}（{} 默认）", on_off_zh(l.tp_comm_overlap), f.label()));
    }
  }
  l.dp_comm_overlap = s.dp_comm_overlap.value_or(f.dp_comm_overlap_default);
  // MoE all-to-all overlap: stated, else the release's benchmark recipe
  // (apply_perf_recipe), else the profile's default; only with EP. A default
  // the layout cannot run (Megatron refuses it with pp > 1 and no vp, or with
  // full recompute: moe_a2a_overlap_can_run) is off; a stated one stands and
  // is refused where it cannot run.
  const std::optional<bool> recipe_a2a = s.recipe ? s.recipe->moe_a2a_overlap : std::nullopt;
  l.moe_a2a_overlap = l.ep > 1 && s.moe_a2a_overlap.value_or(recipe_a2a.value_or(f.moe_a2a_overlap == Availability::kDefault));
  if (!s.moe_a2a_overlap && l.moe_a2a_overlap && !moe_a2a_overlap_can_run(l)) l.moe_a2a_overlap = false;

  // Sequence parallelism.
  if (l.tp <= 1) {
    l.sequence_parallel = false;
  } else if (f.sequence_parallel == SequenceParallelMode::kWithTp) {
    l.sequence_parallel = true;
  } else if (f.sequence_parallel == SequenceParallelMode::kNone) {
    l.sequence_parallel = false;
  } else if (s.sequence_parallel) {
    l.sequence_parallel = *s.sequence_parallel;
  } else {
    l.sequence_parallel = f.sequence_parallel_default || l.tp_comm_overlap;
    GPUPLAN_NOTE(fmt::format("sequence parallelism {} ({} default)", l.sequence_parallel ? "on" : "off", f.label()),
                 fmt::format("序列并行：{}（{} 默认）", on_off_zh(l.sequence_parallel), f.label()));
  }
  if (l.tp_comm_overlap && !l.sequence_parallel && f.sequence_parallel == SequenceParallelMode::kOptional) l.sequence_parallel = true;
  // A stack whose context parallelism refuses sequence parallelism beside it
  // (profile sequence_parallel_with_cp) runs CP without it unless it is stated.
  if (l.cp > 1 && !f.sequence_parallel_with_cp && f.sequence_parallel == SequenceParallelMode::kOptional && !s.sequence_parallel) {
    l.sequence_parallel = false;
  }

  // ZeRO-3 gathers: per block (FSDP wrap unit) or per submodule (DeepSpeed hooks).
  l.zero3_per_module = f.zero3_gather_unit == GatherUnit::kModule;
  l.zero3_prefetch = f.zero3_prefetch;
  l.zero3_gather_copies_per_rank = f.zero3_gather_copies_per_rank;
  l.fp8_scaling = f.fp8_scaling;
  l.cp_exchange = f.cp_exchange;
  l.host_calls_per_layer = f.host_calls_per_layer;
  l.optimizer_loop = f.optimizer_loop;
  l.zero2_per_unit = f.zero2_per_unit;
  l.tp_grad_comm_async = f.tp_grad_comm_async && l.tp > 1;
  l.zero3_keep_gathered = f.zero3_keep_gathered_with_pp && l.pp > 1 && l.zero_stage == 3;
  // FSDP2 accumulates an unsynced gradient in its reduce dtype: the first
  // backward's bf16 .grad is upcast into unsharded_accumulated_grad and every
  // later one added to it (torch/distributed/fsdp/_fully_shard/_fsdp_param.py
  // FSDPParam.to_accumulated_grad_if_needed / accumulate_unsharded_grad_if_needed,
  // PyTorch 2.5-2.6, called from post_backward when gradient sync is off).
  l.keep_gathered_grads_fp32 = l.zero3_keep_gathered && f.grad_accum_dtype == GradAccumDtype::kFp32 &&
                               (l.precision == Precision::kBf16 || l.precision == Precision::kFp8);
  l.optimizer_in_backward = s.optimizer_in_backward.value_or(false);
  l.fp8_experts = f.fp8_gemms == Fp8Gemms::kLinearAndExperts;
  l.fp8_saves_fp8_inputs = f.fp8_saves_fp8_inputs;
  l.expert_gemms = f.expert_gemms;
  l.clamp_outside_activation = f.clamp_outside_activation;
  l.moe_permute_units_f = f.moe_permute_units_f;
  l.moe_permute_units_b = f.moe_permute_units_b;
  l.attention_output_bytes = f.attention_output_bytes;
  l.swiglu_keeps_fp8_input_only = f.swiglu_keeps_fp8_input_only;
  l.comm_sms = f.comm_sms;
  l.bf16_moments = f.bf16_moments;
  l.moe_weights_in_activation = f.moe_weights_in_activation;
  // Per-node dispatch: the profile's (DeepSeek's stack), else the recipe's flex dispatcher (DeepEP, HybridEP).
  l.moe_dispatch_per_node = f.moe_dispatch_per_node || (s.recipe && s.recipe->moe_dispatch_per_node.value_or(false));
  l.moe_dispatch_hybridep = l.moe_dispatch_per_node && s.recipe && s.recipe->moe_dispatch_hybridep.value_or(false);
  // The SMs the recipe's dispatch kernels hold (DeepEP's 20, HybridEP's 32): the
  // computation an overlapped pair runs beside them gets the rest.
  if (s.recipe && s.recipe->comm_sms && l.moe_dispatch_per_node) l.comm_sms = std::max(l.comm_sms, *s.recipe->comm_sms);
  // FP8 dispatch only where the run trains in FP8: 1 B per element and one
  // fp32 scale per 1×128 tile (DeepSeek-V3 §3.3.2-3.3.3).
  l.moe_dispatch_bytes = f.moe_dispatch_fp8 && l.precision == Precision::kFp8 ? 1.0 + 4.0 / 128.0 : 2.0;
  l.dualpipe = l.pp > 1 && f.runs_dualpipe();

  // Gradient accumulation in an fp32 buffer (Megatron main_grad) for bf16
  // pretraining. FSDP's fp32 reduce_dtype shards its gradients, which the
  // ZeRO-2/3 state sharding already counts, so only a replicated fp32 buffer
  // (ZeRO 0/1) is the 4-byte case. FP8 training keeps bf16 parameters (the fp8
  // recipe only casts GEMM operands), so it is a bf16 run here too: Megatron
  // forces accumulate_allreduce_grads_in_fp32 for every --bf16 run, --fp8-format
  // or not (megatron/training/arguments.py @core_v0.6.0).
  l.fp32_grad_accum = f.grad_accum_dtype == GradAccumDtype::kFp32 &&
                      (l.precision == Precision::kBf16 || l.precision == Precision::kFp8) && l.finetune == FineTune::kNone &&
                      l.zero_stage <= 1;
  // What its "selective" means: the stated policy, else the benchmark recipe's
  // (Megatron-Bridge's presets name their recompute_modules), else the framework's.
  if (s.recompute_policy) {
    l.selective = *s.recompute_policy;
  } else if (s.recipe && s.recipe->recompute_policy) {
    l.selective = *s.recipe->recompute_policy;
  } else if (f.recompute_selective != SelectiveRecompute::kNone) {
    l.selective = f.recompute_selective;
  } else {
    l.selective = SelectiveRecompute::kAttentionCore;
  }
  if (l.recompute == Recompute::kSelective && !s.recompute_policy && !(s.recipe && s.recipe->recompute_policy) &&
      l.selective != SelectiveRecompute::kAttentionCore) {
    const char* en = l.selective == SelectiveRecompute::kOp      ? "op-level"
                     : l.selective == SelectiveRecompute::kLayer ? "every-2nd-layer"
                                                                 : selective_recompute_name(l.selective);
    const std::string zh = l.selective == SelectiveRecompute::kOp      ? std::string("算子粒度")
                           : l.selective == SelectiveRecompute::kLayer ? std::string("每隔一层重算整层")
                                                                       : fmt::format(" {} 策略", selective_recompute_name(l.selective));
    GPUPLAN_NOTE(fmt::format("selective recompute = {} policy ({} default)", en, f.label()),
                 fmt::format("选择性重计算按{}（{} 默认）", zh, f.label()));
  }
  // Pure bf16 (no fp32 master copy): as the run states it, else the
  // framework's default for its recipes; a stack that trains in the loaded
  // dtype gets an fp32 master copy only from DeepSpeed ZeRO's bf16 optimizer
  // or FSDP's mixed precision when the run is sharded (master_weights fp32_with_zero).
  if (s.pure_bf16) {
    l.pure_bf16 = *s.pure_bf16 && l.precision != Precision::kFp32;
  } else if (l.precision != Precision::kFp32 && (f.master_weights == MasterWeights::kNone ||
                                                  (f.master_weights == MasterWeights::kFp32WithZero && l.zero_stage == 0))) {
    l.pure_bf16 = true;
  }
#undef GPUPLAN_NOTE
}

// deepseek-ai/DualPipe dualpipe.py DualPipe.step (bb214e8): `assert num_ranks % 2 == 0`
// and `assert num_chunks > 0 and num_chunks % 2 == 0 and num_chunks >= num_ranks * 2`.
bool dualpipe_can_run(const Layout& l) {
  if (!l.dualpipe) return true;
  const int64_t chunks = l.micro_batches();
  return l.pp % 2 == 0 && chunks % 2 == 0 && chunks >= 2 * static_cast<int64_t>(l.pp);
}

// transformer_config.py @core_v0.14.0 __post_init__: with pp > 1 a virtual
// pipeline size must be set, and full recompute (granularity, method, layer
// count) is refused.
bool moe_a2a_overlap_can_run(const Layout& l) {
  return !l.moe_a2a_overlap || ((l.pp == 1 || l.vp > 1) && l.recompute != Recompute::kFull);
}

Reason why_framework_cannot_run(const FrameworkProfile& f, const Layout& l) {
  const std::string who = f.label();
  auto both = [&](const std::string& en, const std::string& zh) { return Reason{fmt::format("{} {}", who, en), fmt::format("{} {}", who, zh)}; };
  if (l.tp > 1 && !f.tp) return both("has no tensor parallelism", "不支持张量并行（TP）");
  if (l.pp > 1 && !f.pp) return both("has no pipeline parallelism", "不支持流水线并行（PP）");
  if (l.dp > 1 && !f.dp) return both("has no data parallelism", "不支持数据并行（DP）");
  if (l.cp > 1 && !f.cp) return both("has no context parallelism", "不支持上下文并行（CP）");
  if (l.ep > 1 && !f.ep) return both("has no expert parallelism", "不支持专家并行（EP）");
  if (l.vp > 1 && !f.interleaving()) return both("has no interleaved pipeline schedule", "不支持交错流水线调度（VPP）");
  if (!f.supports_zero(l.zero_stage)) {
    return both(fmt::format("does not offer ZeRO stage {}", l.zero_stage), fmt::format("不提供 ZeRO-{}", l.zero_stage));
  }
  if (l.pp > 1 && l.zero_stage > f.zero_max_with_pp) {
    return both(fmt::format("runs at most ZeRO stage {} with pipeline parallelism", f.zero_max_with_pp),
                fmt::format("在流水线并行下最多运行 ZeRO-{}", f.zero_max_with_pp));
  }
  if (l.tp > 1 && l.zero_stage > f.zero_max_with_tp) {
    return both(fmt::format("runs at most ZeRO stage {} with tensor parallelism", f.zero_max_with_tp),
                fmt::format("在张量并行下最多运行 ZeRO-{}", f.zero_max_with_tp));
  }
  if (l.ep > 1 && l.zero_stage > f.zero_max_with_ep) {
    return both(fmt::format("runs at most ZeRO stage {} with expert parallelism", f.zero_max_with_ep),
                fmt::format("在专家并行下最多运行 ZeRO-{}", f.zero_max_with_ep));
  }
  if (l.recompute == Recompute::kSelective && f.recompute_selective == SelectiveRecompute::kNone) {
    return both("has no selective recompute", "不支持选择性重计算");
  }
  // MaxText's named remat policies are MaxText's alone, and MaxText has no other selective mode.
  const auto named = [](SelectiveRecompute k) {
    return k == SelectiveRecompute::kSaveDots || k == SelectiveRecompute::kSaveDotExceptMlp || k == SelectiveRecompute::kSaveQkvProj;
  };
  if (l.recompute == Recompute::kSelective && f.recompute_selective != SelectiveRecompute::kNone &&
      named(l.selective) != named(f.recompute_selective)) {
    return both(fmt::format("has no '{}' selective recompute policy", selective_recompute_name(l.selective)),
                fmt::format("没有 '{}' 选择性重计算策略", selective_recompute_name(l.selective)));
  }
  if (l.recompute == Recompute::kNone && !f.recompute_none) {
    return both("always recomputes (every layer runs under remat)", "总会重计算（每一层都在 remat 下运行），不能关闭重计算");
  }
  if (l.optimizer_in_backward && !f.optimizer_in_backward) return both("cannot step the optimizer in the backward", "不能在反向过程中执行优化器更新");
  if (l.moe_a2a_overlap) {
    // transformer_config.py @core_v0.14.0 __post_init__ (l.1298-1337).
    if (f.moe_a2a_overlap == Availability::kNone) return both("has no MoE all-to-all overlap", "不支持 MoE all-to-all 与计算重叠");
    if (!moe_a2a_overlap_can_run(l)) {
      if (l.recompute == Recompute::kFull) return both("cannot overlap the MoE all-to-all with full recompute", "MoE all-to-all 重叠不能与完整重计算同时使用");
      return both("overlaps the MoE all-to-all only with an interleaved pipeline when pp > 1 (give --vp)",
                  "在 pp > 1 时只有交错流水线（--vp）才能让 MoE all-to-all 与计算重叠");
    }
  }
  if (!dualpipe_can_run(l)) {
    if (l.pp % 2 != 0) return both(fmt::format("runs DualPipe, which needs an even number of pipeline stages (pp {})", l.pp),
                                   fmt::format("使用 DualPipe，流水线级数须为偶数（pp {}）", l.pp));
    return both(fmt::format("runs DualPipe, which needs an even number of micro-batches per step, at least 2 × pp = {} (this layout has {})",
                            2 * l.pp, l.micro_batches()),
                fmt::format("使用 DualPipe，每步微批数须为偶数且不少于 2 × pp = {}（此方案为 {}）", 2 * l.pp, l.micro_batches()));
  }
  if ((l.first_stage_layers || l.last_stage_layers || !l.pipeline_layout.empty()) && !f.uneven_stages) {
    return both("has no uneven pipeline stages", "不支持不均匀的流水线分段");
  }
  if (l.expert_tp() != l.tp && !f.moe_parallel_folding) {
    return both(fmt::format("has no MoE parallel folding (expert TP {} other than TP {})", l.expert_tp(), l.tp),
                fmt::format("不支持 MoE 并行折叠（专家张量并行 {} 与 TP {} 不同）", l.expert_tp(), l.tp));
  }
  if (l.shard_group > 0 && !f.hsdp) return both("has no HSDP shard groups", "不支持 HSDP 分片组");
  // What it can move to host memory (profile `cpu_offload`).
  const auto offloads = [&](const char* what) { return std::find(f.cpu_offload.begin(), f.cpu_offload.end(), what) != f.cpu_offload.end(); };
  if (l.offload_optimizer && !offloads("optimizer")) return both("cannot offload optimizer states to the CPU", "不能把优化器状态卸载到 CPU 内存");
  if (l.offload_params && !offloads("parameters")) return both("cannot offload parameters to the CPU", "不能把参数卸载到 CPU 内存");
  if (l.offload_activations && !offloads("activations")) return both("cannot offload activations to the CPU", "不能把激活卸载到 CPU 内存");
  if (!f.gradient_accumulation && l.pp == 1 && l.micro_batches() > 1) {
    return both(fmt::format("has no gradient accumulation: a step is one micro-batch per data-parallel rank, so the micro-batch must be the "
                            "global batch / dp ({} / {})",
                            l.effective_global_batch(), l.dp),
                fmt::format("不支持梯度累积：每个数据并行副本一步只跑一个微批次，所以微批次大小须等于全局批大小 / DP（{} / {}）",
                            l.effective_global_batch(), l.dp));
  }
  if (l.tp > 1 && l.sequence_parallel && f.sequence_parallel == SequenceParallelMode::kNone) {
    return both("has no sequence parallelism", "不支持序列并行（SP）");
  }
  if (l.tp > 1 && !l.sequence_parallel && f.sequence_parallel == SequenceParallelMode::kWithTp) {
    return both("always runs sequence parallelism with TP", "开 TP 时总是同时开序列并行（SP）");
  }
  if (l.tp > 1 && l.cp > 1 && l.sequence_parallel && !f.sequence_parallel_with_cp) {
    return both("refuses context parallelism beside sequence parallelism", "不允许上下文并行与序列并行同用");
  }
  return {};
}

std::string framework_cannot_run(const FrameworkProfile& f, const Layout& l) { return why_framework_cannot_run(f, l).en; }

namespace {

// The most even split of L layers over n stages, the remainder one each to the
// first stages, embedding on the first and loss on the last: how stacks built
// on torch.distributed.pipelining cut a model (NVIDIA-NeMo/Automodel@00f40419
// nemo_automodel/components/distributed/pipelining/functional.py
// generate_hf_model_fqn_per_model_part: layers_per_stage = L // n, the first
// L % n stages one more).
std::string balanced_layout(int64_t L, int64_t n) {
  auto layers = [](int64_t count) { return count > 1 ? fmt::format("t*{}", count) : count == 1 ? std::string("t") : std::string(); };
  auto count_of = [&](int64_t i) { return L / n + (i < L % n ? 1 : 0); };
  if (n == 1) return "E" + layers(L) + "L";
  // Runs of equal middle stages written as Megatron's repeat, "(t*2|)*28".
  std::string out = "E" + layers(count_of(0)) + "|";
  for (int64_t i = 1; i < n - 1;) {
    int64_t run = 1;
    while (i + run < n - 1 && count_of(i + run) == count_of(i)) ++run;
    out += run > 1 ? fmt::format("({}|)*{}", layers(count_of(i)), run) : layers(count_of(i)) + "|";
    i += run;
  }
  return out + layers(count_of(n - 1)) + "L";
}

}  // namespace

void apply_perf_recipe(const FrameworkProfile& f, const ModelSpec& m, const std::string& gpu_id, RunSettings& s,
                       std::vector<Bilingual>* notes) {
  s.recipe.reset();
  if (f.perf_recipes.empty() || m.count_only || s.release.empty()) return;
  // The release named, else the latest one dated at or before it.
  auto table = f.perf_recipes.find(s.release);
  if (table == f.perf_recipes.end()) {
    const std::string asked = framework_version_date(s.release);
    if (asked.empty()) return;
    std::string best_date;
    for (auto it = f.perf_recipes.begin(); it != f.perf_recipes.end(); ++it) {
      const std::string d = framework_version_date(it->first);
      if (d <= asked && d >= best_date) best_date = d, table = it;
    }
    if (table == f.perf_recipes.end()) return;
  }
  for (const std::string& name : {m.id, m.name}) {
    const auto model = table->second.find(normalize_name(name));
    if (model == table->second.end()) continue;
    const auto recipe = model->second.find(gpu_id);
    if (recipe == model->second.end()) return;
    s.recipe = recipe->second;
    if (notes) {
      const PerfRecipe& r = recipe->second;
      std::string sw, sw_zh;
      if (r.moe_a2a_overlap) {
        sw = fmt::format("MoE all-to-all overlap {}", *r.moe_a2a_overlap ? "on" : "off");
        sw_zh = fmt::format("MoE all-to-all 重叠{}", *r.moe_a2a_overlap ? "开" : "关");
      }
      if (r.moe_dispatch_per_node) {
        const char* backend = !r.moe_dispatch_hybridep ? "DeepEP/HybridEP" : *r.moe_dispatch_hybridep ? "HybridEP" : "DeepEP";
        sw += std::string(sw.empty() ? "" : ", ") + (*r.moe_dispatch_per_node ? std::string("per-node dispatch (") + backend + ")" : "all-to-all dispatch per expert");
        sw_zh += std::string(sw_zh.empty() ? "" : "，") + (*r.moe_dispatch_per_node ? std::string("按节点分发（") + backend + "）" : "按专家 all-to-all 分发");
      }
      if (r.recompute_policy) {
        sw += std::string(sw.empty() ? "" : ", ") + "selective recompute = " + selective_recompute_name(*r.recompute_policy);
        sw_zh += std::string(sw_zh.empty() ? "" : "，") + "选择性重计算按 " + selective_recompute_name(*r.recompute_policy) + " 策略";
      }
      notes->push_back({fmt::format("{} ({} {} benchmark recipe for {} on {}; unless stated)", sw, f.id, r.release, m.id, gpu_id),
                        fmt::format("{}（{} {} 基准配方：{} 在 {} 上；另有说明的除外）", sw_zh, f.id, r.release, m.id, gpu_id)});
    }
    return;
  }
}

std::string recipe_pipeline_layout(const FrameworkProfile& f, const ModelSpec& m, const Layout& l) {
  if (l.pp <= 1 || m.count_only) return "";
  const int64_t stages = static_cast<int64_t>(l.pp) * std::max(1, l.vp);
  for (const std::string& name : {m.id, m.name}) {
    const auto it = f.pipeline_layouts.find(normalize_name(name));
    if (it == f.pipeline_layouts.end()) continue;
    const auto at = it->second.find(static_cast<int>(stages));
    if (at != it->second.end()) return at->second;
  }
  return "";
}

namespace {

}  // namespace

std::string unprofiled_stack_layout(const ModelSpec& m, const Layout& l) {
  const int64_t stages = static_cast<int64_t>(l.pp) * std::max(1, l.vp);
  if (l.pp <= 1 || m.count_only || stages > m.layers || !l.pipeline_layout.empty() || l.first_stage_layers || l.last_stage_layers) return "";
  Layout probe;
  probe.pp = l.pp;
  probe.vp = l.vp;
  try {
    stage_split(m, probe);
    return "";
  } catch (const InputError&) {
    return balanced_layout(m.layers, stages);
  }
}

void apply_recipe_layout(const FrameworkProfile& f, const ModelSpec& m, Layout& l, std::vector<Bilingual>* notes) {
  if (!l.pipeline_layout.empty() || l.first_stage_layers || l.last_stage_layers) return;
  const std::string layout = recipe_pipeline_layout(f, m, l);
  if (layout.empty()) return;
  l.pipeline_layout = layout;
  if (notes) {
    notes->push_back(Bilingual{fmt::format("pipeline layout: {} ({} recipe for {} at pp×vp = {})", layout, f.label(), m.name, l.pp * l.vp),
                               fmt::format("流水线分段：{}（{} 为 {} 在 PP×VP = {} 时的配方）", layout, f.label(), m.name, l.pp * l.vp)});
  }
}

void apply_unprofiled_stack_layout(const ModelSpec& m, Layout& l, std::vector<Bilingual>* notes) {
  const std::string layout = unprofiled_stack_layout(m, l);
  if (layout.empty()) return;
  l.pipeline_layout = layout;
  if (notes) {
    notes->push_back(Bilingual{fmt::format("pipeline layout: {} (Megatron's rules cannot split {} layers over pp×vp = {}: the most even split, "
                                           "the first stages one layer more, as torch.distributed.pipelining stacks cut it)",
                                           layout, m.layers, l.pp * l.vp),
                               fmt::format("流水线分段：{}（Megatron 的规则无法把 {} 层分到 PP×VP = {} 段：取最均匀的分法，前几段各多一层，"
                                           "与基于 torch.distributed.pipelining 的框架相同）",
                                           layout, m.layers, l.pp * l.vp)});
  }
}

}  // namespace gpuplan
