// Activations: what the forward pass keeps for the backward pass.
//
// Korthikanti et al. 2022, "Reducing Activation Recomputation in Large
// Transformer Models" (arXiv:2205.05198), section 4.1 and Table 2, count the
// bytes one transformer layer saves for one micro-batch of b sequences of s
// tokens, hidden h, a heads, 2-byte activations and 1-byte dropout masks:
//
//   attention  QKV input 2sbh, Q and K 4sbh, softmax output 2as²b, its dropout
//              mask as²b, dropout output 2as²b, V 2sbh, output-projection input
//              2sbh, dropout mask sbh                       = 11sbh + 5as²b
//   MLP        inputs of the two linears 2sbh + 8sbh, GeLU input 8sbh, mask sbh = 19sbh
//   norms      two inputs of 2sbh                             = 4sbh
//   total      sbh·(34 + 5as/h)
//   TP, no SP  sbh·(10 + 24/t + 5as/(ht))  (norm/dropout inputs are replicated)
//   TP + SP    sbh·(34/t + 5as/(ht))
//   selective  sbh·34/t   (the as² terms are recomputed)
//   full       2sbh       (only the layer input is kept)
//
// Generalised here, term by term, to the widths a real model has:
//   Q and K  2·T·(q_width + k_width), V 2·T·v_width: GQA keeps g·d, not h, for K/V;
//   MLP      plain: 2·T·f + 2·T·f (activation input + second linear input);
//            gated (SwiGLU): gate and up outputs 2·2·T·f plus the product 2·T·f = 6·T·f;
//   FlashAttention (Dao et al. 2022) saves no s×s matrix, only the fp32
//            log-sum-exp per head and row (4·T·a bytes); the output it also needs
//            is the projection input already counted;
//   no dropout (Llama-era pretraining): no masks, and the softmax output is what
//            the attention-over-values matmul reads (2as²b instead of 5as²b);
//   MoE      every token goes to k experts: permuted input 2·T·k·c·h, expert MLP
//            internals as above on T·k·c tokens (c = capacity factor), the router's
//            fp32 logits and probabilities 8·T·E, the combine input 2·T·k·h;
//   CP       each rank holds T = s·b/cp tokens (Liu et al. 2023, ring attention);
//            Ulysses (Jacobs et al. 2023) keeps Q, K, V and the output at all s
//            tokens of 1/cp of the heads instead: the same elements, except K
//            and V where the framework repeats key/value heads to the query
//            heads (MindSpeed-LLM), and a second copy of the output (below);
//   MLA      the compressed q and kv latents 2·T·(r_q + r_kv + d_rope) as well.
//   TP + SP in PyTorch DTensor (torchtitan): the QKV and MLP-input linears
//            keep the all-gathered input, 2·T·h each, not 2·T·h/t (profile
//            tp_saved_input gathered; Megatron keeps the shard and re-gathers).
//   FP8 in TransformerEngine: every FP8 linear keeps the quantised copy of
//            its input for the weight gradient, 1 byte per element, and the
//            bf16 tensor is freed unless another op saved it (profile
//            fp8_saved_input; see fp8_linear_inputs below). torchao keeps the
//            bf16 input, as the counts above assume.
// T = s·b/cp tokens; matrices split by TP are divided by t; with SP everything is.
#include <algorithm>
#include <cmath>

#include "estimate/memory/memory_internal.hpp"

namespace gpuplan {

namespace {

struct Dims {
  double T, s, h, t, rep, a;
  // Divisor of the inputs the column-parallel linears save: `rep` where they
  // keep the sequence-sharded input and gather it again in the backward
  // (Megatron's LinearWithGradAccumulationAndAsyncCommunication saves `input`,
  // megatron/core/tensor_parallel/layers.py at core_v0.8.0), 1 where they keep
  // the all-gathered one (PyTorch DTensor TP: PrepareModuleInput redistributes
  // to Replicate before wq/wk/wv and w1/w3, and autograd saves what the
  // matmul received; profile tp_saved_input).
  double gathered;
};

Dims dims(const ModelSpec& m, const Layout& l) {
  Dims d;
  d.s = static_cast<double>(l.seq_len);
  d.T = d.s * static_cast<double>(l.micro_batch) / l.cp;
  d.h = static_cast<double>(m.hidden);
  d.t = l.tp;
  d.rep = (l.sequence_parallel && l.tp > 1) ? d.t : 1.0;  // divisor of the TP-replicated parts
  d.gathered = l.tp_saves_gathered_input ? 1.0 : d.rep;
  d.a = static_cast<double>(m.heads);
  return d;
}

// Bytes an MLP of width f keeps over `tokens` tokens, split t ways: the
// activation's input (gate and up: 2·2 B; GeLU: 2 B) and the second linear's
// input, 2 B in bf16 or `in_bytes` where that linear saves an FP8 copy.
double mlp_internal(const ModelSpec& m, double tokens, double f, double t, double in_bytes = 2.0) {
  return ((m.mlp == MlpKind::kGated ? 4.0 : 2.0) + in_bytes) * tokens * f / t;
}

// Bytes per element a linear saves of its input for the weight gradient.
// TransformerEngine under fp8_autocast casts the input once and saves that
// FP8 tensor, not the bf16 one: Linear saves `inputmat_t` (module/linear.py
// @v1.5 _Linear.forward, `saved_inputmat_t = inputmat_t` when the wgrad runs
// in FP8) or the quantised `inputmat` with only the usage the backward needs
// (@v2.9, `saved_inputmat = inputmat` after update_usage), and
// LayerNormLinear writes the norm output straight into a uint8 buffer and
// saves it (module/layernorm_linear.py @v1.5: ln_out_dtype = torch.uint8 when
// fp8). Colossal-AI's linear_fp8 keeps `ctx.x_fp8` (quantization/fp8.py
// @v0.4.9). torchao's Float8Linear saves `input_hp` (float8_linear.py
// matmul_with_hp_or_float8_args), 2 B.
double fp8_linear_inputs(const Layout& l) { return l.precision == Precision::kFp8 && l.fp8_saves_fp8_inputs ? 1.0 : 2.0; }

}  // namespace

double activation_bytes_per_layer(const ModelSpec& m, const Layout& l, bool moe_layer, const MemoryOptions& o) {
  if (m.count_only) return 0;
  const Dims d = dims(m, l);
  const double T = d.T, h = d.h, t = d.t, rep = d.rep, a = d.a, gathered = d.gathered;
  const double mask = o.dropout ? 1.0 : 0.0;
  const double lin = fp8_linear_inputs(l);                      // dense linears' saved input, bytes per element
  const double expert_lin = l.fp8_experts ? lin : 2.0;          // the routed experts' grouped GEMMs
  // DeepSeek-V3's selective recompute (§3.2.3): every RMSNorm output (the
  // inputs of the linears after a norm) and MLA's up-projected q, k, v are
  // re-run from what is kept (the norm inputs, the latents), so neither is saved.
  const bool norm_mla_up = l.recompute == Recompute::kSelective && l.selective == SelectiveRecompute::kNormMlaUp;
  const double norm_out = norm_mla_up ? 0.0 : 1.0;
  // Megatron's mla_up_proj module: the same up-projected q, k, v re-run, the norm outputs kept.
  const bool mla_up = norm_mla_up || (l.recompute == Recompute::kSelective && l.selective == SelectiveRecompute::kMlaUpProj);
  // An MLP of width f over `tokens` rows, split `split` ways: mlp_internal, or
  // with the SwiGLU keeping only its FP8 input (DeepSeek-V3 §3.3.3: its output,
  // the second linear's input, re-run in the backward), 1 B over the 2·f gate
  // and up outputs.
  auto mlp_saved = [&](double tokens, double f, double split, double in_bytes) {
    if (l.swiglu_keeps_fp8_input_only && m.mlp == MlpKind::kGated) return 2.0 * tokens * f / split;
    return mlp_internal(m, tokens, f, split, in_bytes);
  };

  // Attention block widths.
  double q_w = static_cast<double>(m.q_width()), k_w = static_cast<double>(m.kv_width());
  double v_w = k_w, o_in = q_w, latent = 0;
  if (m.mla) {
    const MlaSpec& x = *m.mla;
    const double qk = static_cast<double>(x.qk_nope_head_dim + x.qk_rope_head_dim);
    q_w = k_w = a * qk;
    v_w = o_in = a * static_cast<double>(x.v_head_dim);
    latent = 2 * T * static_cast<double>(x.q_lora_rank + x.kv_lora_rank + x.qk_rope_head_dim) / rep;
  }
  const bool ulysses = l.cp > 1 && cp_is_ulysses(l.cp_exchange);
  if (ulysses && !m.mla) {
    // The head-sharded K and V attention saves after the all-to-all: s·b tokens
    // of (kv heads moved per TP rank)/cp heads, i.e. T tokens of that many heads.
    k_w = v_w = ulysses_kv_heads_per_tp_rank(m, l.tp, l.cp_exchange) * t * static_cast<double>(m.head_dim);
  }
  double bytes = 0;
  bytes += 2 * T * h / rep;                    // norm input
  bytes += norm_out * lin * T * h / gathered;  // QKV input (norm output)
  if (!(mla_up && m.mla)) {
    bytes += 2 * T * (q_w + k_w) / t;          // Q and K
    bytes += 2 * T * v_w / t;                  // V
  }
  bytes += latent;
  if (keeps_attention_scores(l)) {
    if (l.recompute == Recompute::kNone) {
      // Scores over all s keys of the full sequence: softmax output, and with
      // dropout its mask and output.
      bytes += (o.dropout ? 5.0 : 2.0) * a * T * d.s / t;
    }
  } else {
    bytes += 4 * T * a / t;                    // fp32 log-sum-exp per head and row
  }
  // Output-projection input. A fused attention kernel saves its output for
  // its own backward (flash-attn FlashAttnFunc: save_for_backward(q, k, v,
  // out_padded, …); TE FusedAttnFunc likewise), which in bf16 is the tensor
  // the projection saves too; an FP8 projection keeps its own 1-byte copy
  // beside it. Without a fused kernel nothing else keeps it.
  const double fp8_copy = lin < 2.0 ? lin : 0.0;
  if (l.attention_output_bytes > 0 && !keeps_attention_scores(l)) {
    // One copy serves the attention backward and the projection's weight
    // gradient (DeepSeek-V3 §3.3.3: E5M6, 1.5 B; profile attention_output_saved).
    bytes += l.attention_output_bytes * T * o_in / t;
  } else {
    bytes += (keeps_attention_scores(l) ? lin : 2.0 + fp8_copy) * T * o_in / t;
  }
  if (ulysses && !keeps_attention_scores(l)) {
    // A fused kernel saves its output for the backward (flash-attn
    // flash_attn_interface.py FlashAttnFunc.forward ctx.save_for_backward(q, k,
    // v, out_padded, softmax_lse, …); torch_npu npu_fusion_attention_grad takes
    // attention_in). Under Ulysses that head-sharded output is not the tensor
    // the output projection saves: the output all-to-all writes a new one
    // (DeepSpeed v0.16.4 layer.py single_all_to_all: torch.empty_like, then
    // all_to_all_single; MindSpeed and Colossal-AI alike), so both stay, each
    // T·o_in/t elements. In the ring the projection's input is a view of it.
    bytes += 2 * T * o_in / t;
  }
  bytes += mask * T * h / rep;                 // attention dropout mask

  // MLP block.
  bytes += 2 * T * h / rep;                    // norm input
  if (moe_layer && m.moe) {
    const MoeSpec& e = *m.moe;
    const double k = static_cast<double>(e.experts_per_token);
    // A rank's experts see its sequence-parallel slice (T/t tokens) routed k
    // ways and all-gathered over the *expert*-TP group only: Megatron's token
    // dispatchers gather over expert_tensor_parallel_size, not TP
    // (megatron/core/transformer/moe/token_dispatcher.py @core_v0.12.0:
    // MoETokenDispatcher.tp_size = config.expert_tensor_parallel_size, and the
    // all-to-all dispatcher's gather_from_sequence_parallel_region runs over
    // that group). With expert TP = TP that is the whole TP group's T·k, split
    // t ways inside the experts; with expert TP narrower (MoE parallel folding)
    // a rank holds etp/t of them at widths split etp ways. The step-time
    // model's tokens_per_expert takes the same share (step_time_layer.cpp).
    const double etp = l.expert_tp();
    const double routed_tokens = T * k * o.moe_capacity_factor * (rep > 1 ? etp / rep : 1.0);
    bytes += norm_out * 2 * T * h / gathered;                   // router / expert input (norm output)
    bytes += 8 * T * static_cast<double>(e.routed_experts) / rep;  // fp32 router logits and probabilities
    // Permuted tokens (gathered over expert TP): the experts' first GEMM
    // input; the permutation itself saves only its index map.
    bytes += expert_lin * routed_tokens * h;
    bytes += mlp_saved(routed_tokens, static_cast<double>(e.expert_intermediate), rep > 1 ? etp : t, expert_lin);
    if (m.swiglu_limit > 0 && l.clamp_outside_activation) {
      // A clamped SwiGLU clamped by separate ops (profile activation_clamp):
      // the clamps keep the fc1 output for their masks and the fused kernel
      // saves the concatenated clamped copy beside it, 2·f wide
      // (fused_bias_geglu.py weighted_bias_quick_geglu_impl, core 0.16).
      bytes += 2.0 * routed_tokens * 2.0 * static_cast<double>(e.expert_intermediate) / (rep > 1 ? etp : t);
    }
    // The experts' outputs before the weighted combine: the second expert
    // GEMM is row-parallel over expert TP, so each rank holds partial sums of
    // its routed tokens at the full hidden width until the combine's
    // reduce-scatter; the multiply by the router probabilities saves them for
    // the probabilities' gradient (token_dispatcher.py @core_v0.6.0
    // token_unpermutation: `unpermuted_local_hidden * scores`, then
    // scatter_add and reduce_scatter_to_sequence_parallel_region_from_moe).
    // Megatron-Core from 0.13.0 multiplies the weights into the SwiGLU output
    // inside the experts instead (experts.py @core_v0.13.0 TEGroupedMLP.forward:
    // bias_act_func(intermediate_parallel, bias_parallel, permuted_probs); the
    // dispatchers no longer weight the outputs): the weighted activation keeps
    // its input, already counted, and nothing of the outputs is kept.
    if (!l.moe_weights_in_activation) bytes += 2 * routed_tokens * h / o.moe_capacity_factor;
    if (e.shared_intermediate > 0) bytes += mlp_saved(T, static_cast<double>(e.shared_intermediate), t, lin);
  } else {
    bytes += norm_out * lin * T * h / gathered;  // first linear input (norm output)
    bytes += mlp_internal(m, T, static_cast<double>(m.intermediate), t, lin);  // the report's SwiGLU rule is for MoE layers
  }
  bytes += mask * T * h / rep;                 // MLP dropout mask
  if (l.eager) {
    // Eager operators keep what fused kernels recompute in registers: an
    // RMSNorm saves its fp32 input (4 B) beside the bf16 one (the pow and the
    // multiply need it), and SwiGLU's multiply saves silu's output (2 B over f).
    if (m.norm == NormKind::kRms) bytes += static_cast<double>(m.norms_per_layer) * 4 * T * h / rep;
    if (m.mlp == MlpKind::kGated) {
      const double f = moe_layer && m.moe ? static_cast<double>(m.moe->expert_intermediate) * static_cast<double>(m.moe->experts_per_token)
                                          : static_cast<double>(m.intermediate);
      bytes += 2 * T * f / t;
    }
  }
  return bytes;
}

namespace memory_detail {

double checkpoint_bytes_per_layer(const ModelSpec& m, const Layout& l) {
  if (m.count_only) return 0;
  const Dims d = dims(m, l);
  // Full recompute keeps the layer input, 2sbh (Korthikanti Table 2); with SP
  // Megatron checkpoints the sequence-sharded input, 2sbh/t.
  return 2 * d.T * d.h / d.rep;
}

double embedding_activation_bytes(const ModelSpec& m, const Layout& l, const MemoryOptions& o) {
  if (m.count_only || !o.dropout) return 0;
  const Dims d = dims(m, l);
  return d.T * d.h / d.rep;  // embedding dropout mask (Korthikanti section 4.3)
}

double head_activation_bytes(const ModelSpec& m, const Layout& l) {
  if (m.count_only) return 0;
  const Dims d = dims(m, l);
  return 2 * d.T * d.h / d.rep + 2 * d.T * d.h / d.gathered;  // final norm input and LM-head input
}

double loss_bytes_per_logit(const Layout& l, const MemoryOptions& o) {
  return o.logits_bytes_per_entry.value_or(l.loss_bytes_per_logit);
}

double logits_bytes(const ModelSpec& m, const Layout& l, const MemoryOptions& o) {
  if (m.count_only) return 0;
  const Dims d = dims(m, l);
  // Logits s·b/cp × V/t (vocab-parallel LM head) times the bytes per entry
  // alive at the loss's largest moment, forward or backward. Without a
  // framework profile: the bf16 logits (2), their fp32 upcast (4) and the fp32
  // log-softmax the loss saves for backward (4) = 10 bytes per entry in eager
  // PyTorch (Hugging Face, torchtune without chunked cross-entropy).
  // Frameworks state their own (loss_bytes_per_logit in data/frameworks:
  // torchtitan's eager loss 12, its DTensor loss_parallel 16 with TP).
  // 128K-256K vocabularies make this the largest single tensor of a step:
  // 8192 tokens × 128256 × 10 B = 10.5 GB.
  const double bytes = loss_bytes_per_logit(l, o);
  double per_entry = bytes;
  if (l.loss == LossKernel::kChunked) {
    // Chunked cross-entropy (torchtune modules/loss/ce_chunked_output_loss.py,
    // CEWithChunkedOutputLoss, num_output_chunks = 8): the bf16 logits of every
    // chunk stay (2 B) and only one chunk at a time is upcast and log-softmaxed
    // in fp32 (8 B over 1/8 of the entries).
    constexpr double kChunks = 8;
    per_entry = 2.0 + (bytes - 2.0) / kChunks;
  }
  double held = 0;
  if (l.pipeline_keeps_outputs && l.pp > 1) {
    // torch.distributed.pipelining's last stage appends every micro-batch's
    // output to output_chunks for the step's merged result (stage.py
    // forward_one_chunk, PyTorch 2.5/2.6) and frees them when the next step
    // starts: by the last micro-batch's loss backward, the bf16 logits (2 B)
    // of all the step's micro-batches are alive beside that loss's own peak.
    held = 2.0 * static_cast<double>(std::max<int64_t>(1, l.micro_batches()));
  }
  double entries = d.T * static_cast<double>(m.vocab) / d.t;
  // The LM head and the loss over a fixed number of tokens at a time (TRL's
  // chunked_nll, trl/trainer/sft_trainer.py _CHUNKED_LM_HEAD_CHUNK_SIZE = 256,
  // each chunk checkpointed): one chunk's logits are alive.
  if (l.loss_chunk_tokens > 0) entries = std::min(entries, static_cast<double>(l.loss_chunk_tokens) * static_cast<double>(m.vocab) / d.t);
  if (l.loss_chunk_cap_bytes > 0) {
    // Chunks of tokens sized to the cap on their fp32 logits (4 B per entry):
    // one chunk when the whole fits, else a multiple of 4 chunks (Unsloth's
    // fused cross-entropy, unsloth_zoo fused_losses/cross_entropy_loss.py
    // _get_chunk_multiplier: ceil(bytes / target / 4) * 4); one chunk's logits,
    // upcast and gradient are alive at a time.
    const double fp32 = entries * 4.0;
    const double chunks = fp32 <= l.loss_chunk_cap_bytes ? 1.0 : std::ceil(fp32 / l.loss_chunk_cap_bytes / 4.0) * 4.0;
    return entries / chunks * per_entry + entries * held;
  }
  return entries * (per_entry + held);
}

}  // namespace memory_detail
}  // namespace gpuplan
