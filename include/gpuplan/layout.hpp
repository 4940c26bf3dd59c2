// A parallel layout and training recipe: how one training step is spread over
// GPUs. Shared by the memory model, the step-time model and the planner.
#pragma once
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpuplan/error.hpp"
#include "gpuplan/flops.hpp"
#include "gpuplan/hardware.hpp"
#include "gpuplan/model.hpp"

namespace gpuplan {

enum class Optimizer { kAdamW, kAdamW8bit, kPagedAdamW8bit, kSgdMomentum };
enum class PipelineSchedule { kOneFOneB, kInterleaved };
// The attention kernel: the s×s scores materialised and streamed through HBM
// (fused softmax before FlashAttention), FlashAttention-2 (Dao 2023),
// FlashAttention-3 (Shah et al. 2024, Hopper only), cuDNN fused attention (as
// TransformerEngine runs it), or PyTorch's scaled_dot_product_attention (its
// FlashAttention-2 backend), or Ascend's npu_fusion_attention (torch_npu's fused
// FlashAttention-style kernel on the 910B, as MindSpeed calls it). Rates per
// kernel: data/kernels/attention.json.
enum class AttentionKernel { kMaterialised, kFlash2, kFlash3, kCudnn, kSdpa, kNpuFusion };
// How an FP8 recipe casts the operands of its FP8 GEMMs: delayed scaling with a
// fused cast-and-transpose (TransformerEngine: one read of the bf16 tensor,
// fp8 and transposed-fp8 written), or dynamic tensorwise scaling (torchao
// float8: an amax pass, a cast, and a transposed copy for the backward GEMMs).
enum class Fp8Scaling { kDelayed, kDynamic };
// How a rank runs its local experts' matmuls: one grouped kernel whose grid
// holds every expert's tiles (grouped_gemm / CUTLASS, torch._grouped_mm), one
// cuBLAS GEMM per expert spread over TransformerEngine's four compute streams
// (GroupedLinear), or a Python loop running each expert's MLP in turn
// (Megatron's SequentialMLP).
enum class ExpertGemms { kGrouped, kMultiStream, kSequential };
// How context parallelism exchanges keys and values: a point-to-point ring,
// each step's transfer hidden behind the step before it and the partial outputs
// merged inside the attention kernels' epilogue (Megatron-Core/TransformerEngine,
// Liu et al. 2023), or PyTorch's experimental context_parallel as torchtitan
// ran it in 2024-12: one all-gather of every rank's K and V, waited for after
// the first (diagonal) step only; K and V repeated to every query head before
// SDPA (torchtitan's Llama code); each step's output merged with the running
// one by eager fp32 element-wise ops, the backward's gradients accumulated in
// fp32 and passed on by one all-to-all per step (torch/distributed/tensor/
// experimental/_attention.py, docs/step-time.md).
// Or DeepSpeed-Ulysses (Jacobs et al. 2023, arXiv:2309.14509): no ring at all;
// all-to-alls over the cp group turn the sequence-sharded Q, K, V (s/cp tokens,
// all of the rank's heads) into head-sharded ones (all s tokens, heads/cp),
// each rank runs ordinary causal attention on its heads, and an all-to-all
// turns the output back; the backward runs the four conjugate all-to-alls. The
// three Ulysses values differ only in what crosses for K and V:
//   kUlysses          K and V at their own head count, split over cp (DeepSpeed
//                     DistributedAttention, Colossal-AI 'all_to_all');
//   kUlyssesRepeatKv  K and V repeated to the query heads before the all-to-all
//                     (MindSpeed-LLM's --kv-head-repeat-before-uly-alltoall);
//   kUlyssesMha       the framework refuses grouped-query models under Ulysses
//                     (Megatron-DeepSpeed), so K and V have the query heads.
// ulysses_refusal() and ulysses_kv_heads() below state the rules.
enum class CpExchange { kP2pRing, kPytorchAllGather, kUlysses, kUlyssesRepeatKv, kUlyssesMha };
// How the framework's optimizer walks the parameters: multi-tensor kernels
// (torch.optim.AdamW's foreach path, Megatron/apex FusedAdam, DeepSpeed's fused
// Adam), or a Python loop that runs each update op on one tensor at a time
// (Composer DecoupledAdamW), every op its own kernel reading and writing fp32.
enum class OptimizerLoop { kForeach, kPerTensor };
enum class FineTune { kNone, kFull, kLora, kQlora };
// Where QLoRA's frozen 4-bit weights come from and how they reach the matmul:
//   kNf4       bitsandbytes NF4 (Dettmers et al. 2023): one CUDA kernel
//              dequantises each weight before every matmul that reads it,
//              forward and backward (MatMul4Bit);
//   kGptqInt4  a published GPTQ Int4 checkpoint (Qwen's -Int4 models) loaded
//              through AutoGPTQ, whose CUDA kernel serves fewer than 128 rows
//              only: larger inputs rebuild the fp16 weight with PyTorch ops
//              and multiply it with torch.matmul, which autograd saves for
//              the backward (step_time_layer.cpp add_lora has the citation).
enum class QloraBase { kNf4, kGptqInt4 };
// The linear layers LoRA can adapt, by their Hugging Face / PEFT names.
enum class LoraModule { kQ, kK, kV, kO, kGate, kUp, kDown };
// Cross-entropy on the whole fp32 logits (F.cross_entropy(logits.float())), a
// fused kernel (one pass: Megatron-Core's --cross-entropy-loss-fusion, the
// flash-attn/Triton/Liger kernels), in chunks of the sequence, each upcast on its
// own (torchtune's CEWithChunkedOutputLoss), or Megatron's vocab-parallel
// cross-entropy: the TP-sharded logits upcast and reduced by a sequence of
// in-place torch ops (tensor_parallel/cross_entropy.py, Megatron's default).
enum class LossKernel { kFull, kFused, kChunked, kVocabParallel };
// What "selective" recompute re-runs (recompute_policy.hpp has the physics):
//   kAttentionCore  the attention softmax and its inputs (Korthikanti 2022 §5, Megatron);
//   kOp             torchtitan's op-level policy: saves the outputs of matmuls
//                   (every second one recomputed) and attention, recomputes the rest;
//                   (the profile / case words: selective_recompute_name in framework.hpp)
//   kLayer          every N-th transformer block fully (torchtitan selective_ac_option = N);
//   MaxText's remat policies (jax.checkpoint_policies.save_only_these_names over
//   the checkpoint_name'd projection outputs; the block input is the checkpoint,
//   attention and all element-wise work are re-run):
//   kSaveDots       `minimal`: every projection output saved (q, k, v, out, MLP in and out);
//   kSaveDotExceptMlp `save_dot_except_mlp`: q, k, v and out saved, the MLP re-run;
//   kSaveQkvProj    `save_qkv_proj`: only q, k, v saved;
//   kNormMlaUp      `norm_mla_up`: every RMSNorm output and MLA's up-projected
//                   queries, keys and values re-run from their inputs in the
//                   backward, nothing else (DeepSeek-V3 report, arXiv:2412.19437
//                   §3.2.3 "Recomputation of RMSNorm and MLA Up-Projection");
//   kMlaUpProj      `mla_up_proj`: MLA's up-projected queries, keys and values
//                   (and their rotary) re-run from the latents, the norm outputs
//                   kept (Megatron-Core recompute_modules ["mla_up_proj"],
//                   output-discarding checkpointing: transformer_config.py's
//                   recompute_modules docstring, core_v0.14–0.18);
//   kNone           the framework offers no selective mode (parsing only).
enum class SelectiveRecompute { kAttentionCore, kOp, kLayer, kSaveDots, kSaveDotExceptMlp, kSaveQkvProj, kNormMlaUp, kMlaUpProj, kNone };

const char* optimizer_name(Optimizer o);
// PEFT's short name of an adapted matrix: q, k, v, o, gate, up, down.
const char* lora_module_name(LoraModule m);
// QLoRA's frozen weights for a model when nobody names them: AutoGPTQ's path
// for a published GPTQ Int4 checkpoint (ModelSpec::checkpoint_quant), else
// bitsandbytes NF4, QLoRA's own (Dettmers et al. 2023).
QloraBase default_qlora_base(const ModelSpec& m);

struct Layout {
  int tp = 1;    // tensor parallel (Shoeybi et al. 2019)
  int pp = 1;    // pipeline stages (Narayanan et al. 2021)
  int dp = 1;    // data parallel replicas
  int cp = 1;    // context parallel (sequence split across GPUs for attention)
  int ep = 1;    // expert parallel; experts are split over ep ranks taken from dp×cp
  // Expert tensor parallel: the routed experts' matrices split this many ways;
  // 0 = tp (Megatron-Core's default, model_parallel_config.py
  // expert_tensor_parallel_size None → tensor_model_parallel_size). With a
  // value other than tp the expert groups are laid out on their own (Megatron-Core
  // 0.10 "MoE Parallel Folding", CHANGELOG.md): etp × ep × expert-dp = tp × cp × dp,
  // so EP may span attention's TP ranks. Read it through expert_tp().
  int etp = 0;
  int vp = 1;    // virtual pipeline stages per rank (interleaved schedule when > 1)
  // Megatron's uneven pipeline (--decoder-first/last-pipeline-num-layers):
  // transformer layers on the first / last pipeline stage, the rest split evenly
  // over the others. Not set: an even split, or, when pp (pp·vp) does not divide
  // the layers, the split stage_split() chooses. Read the split through stage_split().
  std::optional<int> first_stage_layers, last_stage_layers;
  // Megatron's --pipeline-model-parallel-layout: every virtual stage's layers
  // in order, "E" embedding, "t" transformer layer, "m" MTP layer, "L" loss,
  // "|" between stages, "(...)*n" and "x*n" repeats ("Et|(tt|)*30mL").
  // Empty: none. Set: it alone decides the split (stage_split, kCustom).
  std::string pipeline_layout;
  int64_t micro_batch = 1;          // sequences per micro-batch per data-parallel rank
  std::optional<int64_t> global_batch;  // sequences per optimizer step; unset: dp × micro_batch
  int64_t seq_len = 2048;
  int zero_stage = 0;               // 0 DDP, 1 optimizer states, 2 + gradients, 3 + parameters (Rajbhandari et al. 2020)
  int shard_group = 0;              // HSDP: ZeRO-3 within groups of this many ranks; 0 = all of dp
  // ZeRO-3 collectives per module (DeepSpeed: one all-gather per parameterised
  // submodule, each norm and linear) instead of per transformer block (FSDP's wrap unit).
  bool zero3_per_module = false;
  // ZeRO-3 gathers prefetched and overlapped with compute; false: each one waits
  // (DeepSpeed ZeRO-3 before its mid-2021 prefetch fixes).
  bool zero3_prefetch = true;
  // ZeRO-3 all-gathers each parameter into a list of dp partition views, which
  // PyTorch's NCCL all_gather then fills by one copy per rank (DeepSpeed before
  // v0.5.5, #1188): host work per gather grows with the data-parallel size.
  bool zero3_gather_copies_per_rank = false;
  // ZeRO-2 as FSDP's SHARD_GRAD_OP runs it: per wrapped unit, an all-gather in
  // every micro-batch's forward and a reduce-scatter in its backward (profile
  // zero2_mode fsdp_unit); false: bucketed gradient reduce-scatters and one
  // parameter all-gather after the step (DeepSpeed ZeRO-2).
  bool zero2_per_unit = false;
  Fp8Scaling fp8_scaling = Fp8Scaling::kDelayed;  // FP8 runs only: the recipe's cast work per FP8 GEMM operand
  ExpertGemms expert_gemms = ExpertGemms::kGrouped;  // MoE layers only: how the local experts' GEMMs are launched
  // A clamped SwiGLU (gpt-oss's swiglu_limit) clamps its two halves with their
  // own ops and concatenates them before the fused activation kernel (profile
  // activation_clamp); false: the clamp is fused into the activation.
  bool clamp_outside_activation = false;
  // The token permutation's HBM traffic around the experts, per routed row in
  // units of its hidden vector, forward and backward (profile
  // moe_permute_traffic; 4: a read and a write of the k copies before and after).
  double moe_permute_units_f = 4, moe_permute_units_b = 4;
  CpExchange cp_exchange = CpExchange::kP2pRing;  // cp > 1 only: ring attention's exchange, or Ulysses's all-to-alls
  // Python-level torch calls one transformer layer's forward issues, as counted
  // from the framework's code (views, autograd Functions and RNG-state swaps
  // launch no kernel but cost host time); 0 = the layer's kernel count.
  int host_calls_per_layer = 0;
  OptimizerLoop optimizer_loop = OptimizerLoop::kForeach;  // profile optimizer_loop
  Recompute recompute = Recompute::kNone;
  bool sequence_parallel = false;   // Korthikanti et al. 2022
  AttentionKernel attention = AttentionKernel::kFlash2;  // every kernel but kMaterialised keeps no s×s scores (Dao et al. 2022)
  // Element-wise ops run one PyTorch operator at a time (eager mode: no
  // torch.compile, no fused norm/activation/rotary kernels); false = fused, as
  // Megatron's kernels or torch.compile run them.
  bool eager = false;
  Precision precision = Precision::kBf16;  // GEMM precision (fp8 keeps bf16 elsewhere)
  Optimizer optimizer = Optimizer::kAdamW;
  bool offload_optimizer = false;   // optimizer states (and master weights) in host memory
  bool offload_params = false;      // ZeRO-Infinity/FSDP CPU offload of parameters
  bool offload_activations = false; // saved activations streamed to host (torchtune/DeepSpeed activation offload)
  // Pure bf16 training: weights, gradients and optimizer states all in bf16, no
  // fp32 master copy (torchtune's default); false = mixed precision with fp32 master.
  bool pure_bf16 = false;
  FineTune finetune = FineTune::kNone;
  int64_t lora_rank = 0;            // 0 = default (8) for LoRA/QLoRA
  QloraBase qlora_base = QloraBase::kNf4;  // QLoRA only: the frozen weights' format
  // The matrices LoRA adapts (the rest stay frozen); empty = q, k, v, o, the
  // attention projections PEFT targets when none are named.
  std::vector<LoraModule> lora_modules;

  // Execution switches the framework profile sets (apply_framework in
  // framework.hpp) unless the run states them. Here, not in the estimators'
  // options, so memory, step time, the planner and the exporters see one run.
  bool tp_comm_overlap = false;     // TP collectives overlapped with GEMMs (TE userbuffers, torchtitan async TP)
  // The backward's column-parallel input-gradient all-reduce (reduce-scatter
  // with SP) issued asynchronously under the weight-gradient GEMM, and with SP
  // the input re-gathered under the data-gradient GEMM (Megatron's
  // LinearWithGradAccumulationAndAsyncCommunication; profile tp_grad_comm_async).
  bool tp_grad_comm_async = false;
  bool dp_comm_overlap = true;      // gradient reduction and parameter gathers overlapped with compute
  // Gradients accumulated and reduced in an fp32 buffer (Megatron's main_grad,
  // --accumulate-allreduce-grads-in-fp32): 4 bytes per parameter, not ZeRO-2 sharded.
  bool fp32_grad_accum = false;
  LossKernel loss = LossKernel::kFused;
  // Peak bytes per logit entry (token × vocab/tp) of the LM head output and the
  // loss, forward and backward, at their largest moment (profile
  // loss_bytes_per_logit / loss_bytes_per_logit_tp; 10 when no profile is
  // applied: bf16 logits 2 + fp32 copy 4 + fp32 log-softmax 4).
  double loss_bytes_per_logit = 10;
  // The loss runs over chunks of tokens whose fp32 logits stay under this many
  // bytes each (Unsloth's fused cross-entropy; profile loss_chunk_cap_gib); 0: none.
  double loss_chunk_cap_bytes = 0;
  int64_t loss_chunk_tokens = 0;    // the LM head and loss over this many tokens at a time (profile loss_chunk_tokens); 0: all
  // Frozen 16-bit weights the fine-tuning stack casts to fp32 (profile
  // frozen_upcast): the embeddings, LM head and norms, or every frozen weight.
  bool frozen_fp32_embeddings = false;
  bool frozen_fp32_layers = false;
  // With pp > 1: the last stage keeps every micro-batch's bf16 logits until the
  // step ends (torch.distributed.pipelining; profile pipeline_keeps_outputs).
  bool pipeline_keeps_outputs = false;
  // With TP + SP: the QKV, MLP-input and LM-head linears keep their
  // all-gathered input for the backward (PyTorch DTensor TP), not the
  // sequence-sharded one Megatron keeps (profile tp_saved_input).
  bool tp_saves_gathered_input = false;
  SelectiveRecompute selective = SelectiveRecompute::kAttentionCore;  // meaning of Recompute::kSelective
  int selective_every = 2;          // kLayer: every N-th block recomputed
  // ZeRO-3 with pipelining: a stage's parameters stay gathered from each
  // micro-batch's forward to its backward (no re-gather, the whole stage
  // unsharded in memory), as torchtitan runs FSDP2 under PP.
  bool zero3_keep_gathered = false;
  // ...and the gradients accumulated across its unsynced micro-batches are
  // upcast to an fp32 reduce dtype (FSDP2 MixedPrecisionPolicy reduce_dtype
  // float32): 4 bytes per parameter of the stage instead of the bf16 .grad.
  bool keep_gathered_grads_fp32 = false;
  // The optimizer steps each parameter inside the backward and frees its
  // gradient (torchtune optimizer_in_bwd): no whole-model gradient buffer.
  bool optimizer_in_backward = false;
  // With precision fp8: the routed experts' grouped GEMMs run in FP8 too
  // (profile fp8_gemms = linear_and_experts); the LM head and attention's
  // batched products always stay in 16 bits.
  bool fp8_experts = true;
  // With precision fp8: each FP8 linear saves its input for the weight
  // gradient as the quantised FP8 copy, 1 byte per element (TransformerEngine;
  // profile fp8_saved_input), instead of the bf16 input it received (torchao).
  bool fp8_saves_fp8_inputs = false;
  // Bytes per element the attention output is kept in for the output
  // projection's weight gradient and the attention backward, one copy serving
  // both (DeepSeek-V3 §3.3.3: E5M6, 1.5 B); 0: the rule of the kernels (a bf16
  // copy, and an FP8 linear's own copy beside it). Profile attention_output_saved.
  double attention_output_bytes = 0;
  // The MoE SwiGLU keeps only its input, in FP8, and re-runs its output in the
  // backward (DeepSeek-V3 §3.3.3 "Inputs of the SwiGLU operator in MoE");
  // false: its input in bf16 and its output as the second linear's input.
  // Profile swiglu_saved.
  bool swiglu_keeps_fp8_input_only = false;
  // DeepSeek's DualPipe schedule (V3 report §3.2.1; deepseek-ai/DualPipe):
  // micro-batches fed from both ends, each rank holding stages i and pp−1−i,
  // a forward and a backward chunk overlapped so the MoE all-to-alls and the
  // pipeline sends run under the other chunk's computation; bubble
  // (pp/2 − 1)(F&B + B − 3W), parameters 2×, activations pp + 1 chunks.
  bool dualpipe = false;
  // Streaming multiprocessors the stack's communication kernels hold while
  // they overlap computation (DeepSeek-V3 §3.2.2: 20 of the H800's 132); the
  // overlapped computation runs on the rest. 0: none reserved (no overlap).
  int comm_sms = 0;
  // MoE dispatch: each token crosses the network once per destination node and
  // is forwarded to its experts over NVLink there (DeepSeek-V3 §3.2.2; DeepEP's
  // internode kernels); with group-limited routing whose groups sit on whole
  // nodes, at most topk_group nodes (node-limited routing, §2.1.2). False:
  // one copy per routed expert, each to its own rank.
  bool moe_dispatch_per_node = false;
  // The kernels that carry a per-node dispatch across nodes, each at its own
  // published rate (collectives.hpp flex_dispatch_network_rates): DeepEP's
  // internode normal kernels (DeepSeek's stack, Megatron's flex dispatcher
  // before HybridEP) or NVIDIA's HybridEP (moe_flex_dispatcher_backend hybridep).
  bool moe_dispatch_hybridep = false;
  // Bytes per element of the dispatched tokens: 2 (bf16), or 1 plus one fp32
  // scale per 128 elements where the stack dispatches FP8 (DeepSeek-V3 §3.3.3,
  // fine-grained 1×128 quantisation). The combine stays bf16.
  double moe_dispatch_bytes = 2;
  // AdamW's two moments in bf16 beside the fp32 master weights (DeepSeek-V3
  // §3.3.3 "Low-Precision Optimizer States"; profile optimizer_moments).
  bool bf16_moments = false;
  // Where the router's weights multiply the routed experts' work: on their
  // outputs in the combine, which keeps those outputs (k rows of h per token)
  // for the weights' gradient; or on the SwiGLU output inside each expert,
  // whose saved tensors already serve that gradient (Megatron-Core from
  // 0.13.0). Profile moe_router_weights.
  bool moe_weights_in_activation = false;
  // Megatron-Core's combined 1F1B (--overlap-moe-expert-parallel-comm, core
  // 0.14.0, pipeline_parallel/combined_1f1b.py): in the steady state a
  // forward micro-batch and a backward one are interleaved layer by layer so
  // each one's dispatch and combine run under the other's computation; one
  // more micro-batch is warmed up first (schedules.py: num_warmup_microbatches
  // + 1). Profile moe_a2a_overlap, --moe-a2a-overlap.
  bool moe_a2a_overlap = false;

  int64_t gpus() const { return static_cast<int64_t>(tp) * pp * dp * cp; }
  int expert_tp() const { return etp > 0 ? etp : tp; }
  // Data-parallel replicas of each expert: tp·cp·dp / (etp·ep).
  int64_t expert_dp() const { return std::max<int64_t>(1, static_cast<int64_t>(tp) * cp * dp / (static_cast<int64_t>(expert_tp()) * ep)); }
  PipelineSchedule schedule() const { return vp > 1 ? PipelineSchedule::kInterleaved : PipelineSchedule::kOneFOneB; }
  int64_t effective_global_batch() const { return global_batch ? *global_batch : static_cast<int64_t>(dp) * micro_batch; }
  // Micro-batches per pipeline per step (gradient-accumulation steps when pp = 1).
  int64_t micro_batches() const { return effective_global_batch() / (static_cast<int64_t>(dp) * micro_batch); }
};

// How the transformer layers are spread over the pipeline stages.
enum class StageSplitRule {
  kEven,          // L / (pp·vp) layers in every chunk
  kFirstLast,     // Megatron --decoder-first/last-pipeline-num-layers (first_stage_layers / last_stage_layers)
  kEmbeddingLoss, // Megatron --account-for-embedding-in-pipeline-split and --account-for-loss-in-pipeline-split:
                  // the embedding and the loss each take one layer's slot, (L + 2) / (pp·vp) per chunk
  kLoss,          // --account-for-loss-in-pipeline-split alone: (L + 1) / (pp·vp) per chunk
  kCustom,        // --pipeline-model-parallel-layout (Layout::pipeline_layout)
};

struct LayerRange {
  int64_t first = 0;  // index of the chunk's first transformer layer in the model
  int64_t count = 0;
};

struct StageSplit {
  StageSplitRule rule = StageSplitRule::kEven;
  // chunks[stage][c]: the layers of virtual chunk c on pipeline rank `stage`
  // (one chunk per rank without interleaving).
  std::vector<std::vector<LayerRange>> chunks;
  // kFirstLast: the values of Megatron's two flags (one may be unset: that
  // stage is a middle one). Set whether the layout gave them or stage_split chose them.
  std::optional<int> first_stage_layers, last_stage_layers;
  // kCustom: the layout's MTP layers ("m"). The model description has no MTP
  // module, so they hold no work here; the reports say so.
  int mtp_layers = 0;
  int64_t layers(int stage) const;
  int64_t max_layers() const;
  // "15 | 16 ×6 | 15" (and the per-chunk sizes with vp > 1).
  std::string describe() const;
  std::string describe_zh() const;  // the same, chunks in Chinese: "10 ×8（虚拟级：首级 [5,5]，中间级 [5,5]，末级 [5,5]）"
};

// The layers of every pipeline stage (and virtual chunk) of `layout`, by
// Megatron-LM's rules (src/execution/layout.cpp cites them). The one place the
// split is decided: memory, step time, the planner and the export read it here.
// Throws InputError naming the field (--first-stage-layers, --last-stage-layers,
// --pp or --vp) when Megatron would refuse the split.
StageSplit stage_split(const ModelSpec& model, const Layout& layout);

// Megatron's layout string unrolled into its virtual stages, in order (each a
// string of E, t, m and L). Throws InputError naming --pipeline-layout for a
// character Megatron does not know or an unbalanced repeat
// (megatron/core/transformer/pipeline_parallel_layer_layout.py parse_str_to_list).
std::vector<std::string> parse_pipeline_layout(const std::string& text);

// Megatron-valid (first, last) splits for a layout whose pp·vp does not divide
// the layers: a handful per (pp, vp), each no stage heavier than a middle one,
// for the planner to search. Empty when the even split works.
std::vector<std::pair<std::optional<int>, std::optional<int>>> uneven_split_candidates(int64_t layers, int pp, int vp);

// Throws InputError with the field named when the layout cannot run this
// model on `gpus` GPUs: TP not dividing the heads, PP above the layer count,
// ZeRO stage outside 0–3, micro-batch 0, a batch not divisible by dp×micro,
// a tp×cp the framework's Ulysses all-to-alls refuse (ulysses_refusal).
void validate_layout(const ModelSpec& model, const Layout& layout, int64_t gpus);

// Ulysses context parallelism (the kUlysses* values of CpExchange).
inline bool cp_is_ulysses(CpExchange e) {
  return e == CpExchange::kUlysses || e == CpExchange::kUlyssesRepeatKv || e == CpExchange::kUlyssesMha;
}
// Why the framework's Ulysses all-to-alls refuse this model at tp×cp (empty:
// they run, or the exchange is a ring, or cp is 1). src/execution/ulysses.cpp
// cites each framework's assertion. validate_layout and the planner read it.
Reason ulysses_refusal(const ModelSpec& model, int tp, int cp, CpExchange exchange);
// Key/value heads of one TP rank that the Ulysses all-to-alls move and that
// attention then holds (1/cp of them on each rank of the group, at every token):
// the model's kv_heads/tp, or heads/tp where the framework repeats them first.
double ulysses_kv_heads_per_tp_rank(const ModelSpec& model, int tp, CpExchange exchange);

// FlashAttention-style kernels keep no s×s score matrix; the materialised one does.
inline bool keeps_attention_scores(const Layout& l) { return l.attention == AttentionKernel::kMaterialised; }

}  // namespace gpuplan
