// Named weight-quantisation methods (data/weight_quant.json) and the
// bytes per weight they give each kind of matrix. Each value's source is in
// the data file beside it.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <string_view>

#include "data/embedded_data.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/inference.hpp"
#include "model/layer_ops.hpp"
#include "units/text_match.hpp"

namespace gpuplan {
namespace {

WeightFormat format_of(const std::string& text) {
  if (text == "fp16") return WeightFormat::kFp16;
  if (text == "fp8") return WeightFormat::kFp8;
  if (text == "int8") return WeightFormat::kInt8;
  if (text == "int4") return WeightFormat::kInt4;
  throw InputError("weight_quant.json format", "weight_quant.json: format must be fp16, fp8, int8 or int4 (got '" + text + "').",
                   "weight_quant.json 的 format 须为 fp16、fp8、int8 或 int4（输入为 '" + text + "'）。");
}

std::vector<WeightQuant> load() {
  std::vector<WeightQuant> out;
  for (const auto& f : embedded_files()) {
    if (f.path != "weight_quant.json") continue;
    const auto doc = nlohmann::json::parse(f.content);
    for (const auto& j : doc.at("methods")) {
      WeightQuant q;
      q.id = j.at("id").get<std::string>();
      q.format = format_of(j.at("format").get<std::string>());
      q.bits = j.at("bits").get<double>();
      q.embedding_bits = j.at("embedding_bits").get<double>();
      q.lm_head_bits = j.at("lm_head_bits").get<double>();
      q.experts_only = j.at("matrices").get<std::string>() == "experts";
      if (j.contains("promote")) {
        const auto& p = j.at("promote");
        for (const auto& name : p.at("matrices")) q.promoted.push_back(name.get<std::string>());
        q.promoted_bits = p.at("bits").get<double>();
      }
      q.dequantise_per_call = j.value("dequantise_per_call", false);
      q.source = j.at("source").get<std::string>();
      out.push_back(std::move(q));
    }
  }
  return out;
}

// llama.cpp's choice of the layers whose attn_v and ffn_down keep more bits in
// its _M recipes (src/llama-quant.cpp use_more_bits): the first and last
// eighth of the layers and every third one between, in integer arithmetic.
bool use_more_bits(int64_t layer, int64_t layers) {
  return layer < layers / 8 || layer >= 7 * layers / 8 || (layer - layers / 8) % 3 == 2;
}

// llama.cpp's ffn_down (name.find("ffn_down")): the down projection of the dense
// MLP, of the shared experts and of the routed experts (layer_ops' "_out" matrices).
bool is_ffn_down(std::string_view name) { return name == "mlp_out" || name == "shared_out" || name == "experts_out"; }

bool promoted(const WeightQuant& q, const char* name) {
  return std::find(q.promoted.begin(), q.promoted.end(), std::string(name)) != q.promoted.end();
}

}  // namespace

const std::vector<WeightQuant>& weight_quant_methods() {
  static const std::vector<WeightQuant> methods = load();
  return methods;
}

const WeightQuant* find_weight_quant(const std::string& id) {
  for (const WeightQuant& q : weight_quant_methods()) {
    if (q.id == id) return &q;
  }
  return nullptr;
}

std::vector<std::string> weight_quant_ids() {
  std::vector<std::string> ids;
  for (const WeightQuant& q : weight_quant_methods()) ids.push_back(q.id);
  return ids;
}

WeightBytes weight_bytes(const ModelSpec& m, const InferenceOptions& o) {
  WeightBytes out;
  if (o.weight_quant.empty()) {
    out.layers = out.experts = bytes_per_weight(o.weights, o.group_size);
    return out;
  }
  const WeightQuant* q = find_weight_quant(o.weight_quant);
  if (!q) {
    throw InputError("weight_quant", "weight_quant must be one of " + join(weight_quant_ids(), ", ") + " (got '" + o.weight_quant + "').",
                     "weight_quant 须为 " + join(weight_quant_ids(), "、") + " 之一（输入为 '" + o.weight_quant + "'）。");
  }
  out.embedding = q->embedding_bits / 8;
  out.lm_head = q->lm_head_bits / 8;
  out.dequantise_per_call = q->dequantise_per_call;
  out.experts = q->bits / 8;
  out.layers = q->experts_only ? 2.0 : q->bits / 8;
  if (q->promoted.empty() || q->experts_only) return out;
  // A mixed recipe: sum each layer's matrices at their own width.
  // Called for every pass (inference.cpp machine()): the two kinds of layer's
  // matrix lists are built once, not per layer.
  double dense_w = 0, dense_b = 0, expert_w = 0, expert_b = 0;
  const LayerMatmuls dense_layer = layer_matmuls(m, false);
  const LayerMatmuls moe_layer = m.moe ? layer_matmuls(m, true) : dense_layer;
  for (int64_t layer = 0; layer < m.layers; ++layer) {
    const bool more = use_more_bits(layer, m.layers);
    for (const LayerMatmul& x : m.is_moe_layer(layer) ? moe_layer : dense_layer) {
      const double w = x.weights();
      double bytes = w * q->bits / 8;
      if (more && x.parts == 3 && promoted(*q, "attn_v")) {
        // The fused QKV's v part (its third output width) is llama.cpp's attn_v.
        const double v = x.part[2] * x.k;
        bytes += v * (q->promoted_bits - q->bits) / 8;
      } else if (more && promoted(*q, "mlp_out") && is_ffn_down(x.name)) {
        // ffn_down of the dense MLP, the shared experts and the routed experts.
        bytes = w * q->promoted_bits / 8;
      }
      (x.experts > 0 ? expert_w : dense_w) += w;
      (x.experts > 0 ? expert_b : dense_b) += bytes;
    }
  }
  if (dense_w > 0) out.layers = dense_b / dense_w;
  if (expert_w > 0) out.experts = expert_b / expert_w;
  return out;
}

}  // namespace gpuplan
