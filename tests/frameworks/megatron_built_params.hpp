// The parameter count of the GPT model Megatron-LM builds from launch flags,
// counted from the flags alone (not with gpuplan's counter): the export tests'
// "the model it builds is ours" (issue 29). The MindSpeed-LLM, Megatron-Bridge
// and NeMo export tests translate their own spellings into these flags first.
#pragma once
#include <cmath>
#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace gpuplan {

// The parameters of the GPT model Megatron-LM builds from exported arguments,
// counted from the flags alone (not with gpuplan's counter), as
// megatron/core/models/gpt/gpt_model.py with the Transformer Engine layer spec
// builds it at core_v0.14.0: the embedding (and the output layer unless tied)
// at the padded vocabulary (megatron/training/tokenizer/tokenizer.py
// _vocab_size_with_padding: ceil(V / (divisible_by × TP)) × divisible_by × TP),
// a learned position table unless RoPE, per layer two norms (RMSNorm: weight;
// LayerNorm: weight and bias), q/k/v and output projections (biases unless
// --disable-bias-linear; q/k/v biases alone with --add-qkv-bias), per-head q
// and k RMSNorms with --qk-layernorm, the MLP (SwiGLU: two input matrices) or
// the MoE block (router h × E, E experts, shared experts), and the final norm.
inline double megatron_built_params(const std::string& arguments, int64_t tokenizer_vocab) {
  std::map<std::string, std::string> f;
  std::istringstream in(arguments);
  std::string line;
  while (std::getline(in, line)) {
    const size_t space = line.find(' ');
    f[line.substr(0, space)] = space == std::string::npos ? "" : line.substr(space + 1);
  }
  auto num = [&](const char* k, double fallback) { return f.count(k) ? std::stod(f.at(k)) : fallback; };
  auto has = [&](const char* k) { return f.count(k) > 0; };
  const double h = num("--hidden-size", 0), layers = num("--num-layers", 0), heads = num("--num-attention-heads", 0);
  const double groups = has("--group-query-attention") ? num("--num-query-groups", heads) : heads;
  const double kv = num("--kv-channels", h / heads), ffn = num("--ffn-hidden-size", 4 * h);
  const double multiple = num("--make-vocab-size-divisible-by", 128) * num("--tensor-model-parallel-size", 1);
  const double vocab = std::ceil(static_cast<double>(tokenizer_vocab) / multiple) * multiple;
  const bool rms = f.count("--normalization") && f.at("--normalization") == "RMSNorm";
  const bool bias = !has("--disable-bias-linear"), swiglu = has("--swiglu");
  const double norm = rms ? h : 2 * h;
  const bool rope = f.count("--position-embedding-type") && f.at("--position-embedding-type") == "rope";
  double total = vocab * h + (has("--untie-embeddings-and-output-weights") ? vocab * h : 0) + (rope ? 0 : num("--max-position-embeddings", 0) * h) + norm;
  const double qkv_out = (heads + 2 * groups) * kv;
  double attention = h * qkv_out + heads * kv * h + ((bias || has("--add-qkv-bias")) ? qkv_out : 0) + (bias ? h : 0);
  if (has("--qk-layernorm")) attention += 2 * kv;
  if (has("--multi-latent-attention")) {
    // MLASelfAttention (megatron/core/transformer/multi_latent_attention.py): q down/up with its norm
    // (or one q projection), kv down (with the shared rope key) and up with its norm, the output projection.
    const double q_lora = num("--q-lora-rank", 0), kv_lora = num("--kv-lora-rank", 0), nope = num("--qk-head-dim", 0),
                 rope_dim = num("--qk-pos-emb-head-dim", 0), v = num("--v-head-dim", 0);
    attention = (q_lora > 0 ? h * q_lora + q_lora + q_lora * heads * (nope + rope_dim) : h * heads * (nope + rope_dim)) +
                h * (kv_lora + rope_dim) + kv_lora + kv_lora * heads * (nope + v) + heads * v * h;
  }
  const double dense_mlp = (swiglu ? 3 : 2) * h * ffn + (bias ? (swiglu ? 2 : 1) * ffn + h : 0);
  double moe_mlp = 0;
  if (has("--num-experts")) {
    const double experts = num("--num-experts", 0), f_moe = num("--moe-ffn-hidden-size", ffn), shared = num("--moe-shared-expert-intermediate-size", 0);
    moe_mlp = h * experts + experts * (swiglu ? 3 : 2) * h * f_moe + (swiglu ? 3 : 2) * h * shared + (has("--moe-shared-expert-gate") ? h : 0);
    if (has("--moe-router-enable-expert-bias")) moe_mlp += experts;
  }
  // --moe-layer-freq "[0]*3+[1]*58": which layers are MoE (all of them when absent).
  std::vector<bool> is_moe(static_cast<size_t>(layers), has("--num-experts"));
  if (has("--moe-layer-freq")) {
    size_t at = 0;
    std::istringstream pattern(f.at("--moe-layer-freq"));
    std::string run;
    while (std::getline(pattern, run, '+')) {
      const bool moe = run[1] == '1';
      const size_t count = std::stoul(run.substr(run.find('*') + 1));
      for (size_t i = 0; i < count && at < is_moe.size(); ++i) is_moe[at++] = moe;
    }
  }
  for (bool moe : is_moe) total += 2 * norm + attention + (moe ? moe_mlp : dense_mlp);
  return total;
}


}  // namespace gpuplan
