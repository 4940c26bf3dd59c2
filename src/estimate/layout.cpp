#include "gpuplan/layout.hpp"

#include <fmt/format.h>

#include "gpuplan/error.hpp"
#include "gpuplan/text_match.hpp"

namespace gpuplan {

const char* optimizer_name(Optimizer o) {
  switch (o) {
    case Optimizer::kAdamW: return "adamw";
    case Optimizer::kAdamW8bit: return "adamw8bit";
    case Optimizer::kPagedAdamW8bit: return "paged_adamw8bit";
    case Optimizer::kSgdMomentum: return "sgd";
  }
  return "?";
}

Optimizer parse_optimizer(const std::string& text, const std::string& field) {
  const std::string t = normalize_name(text);
  if (t == "adamw" || t == "adam") return Optimizer::kAdamW;
  if (t == "adamw8bit" || t == "adamw-8bit" || t == "adam8bit") return Optimizer::kAdamW8bit;
  if (t == "paged-adamw8bit" || t == "paged-adamw-8bit") return Optimizer::kPagedAdamW8bit;
  if (t == "sgd" || t == "sgd-momentum") return Optimizer::kSgdMomentum;
  throw InputError(field, fmt::format("{} must be adamw, adamw8bit, paged_adamw8bit or sgd (got '{}').", field, text));
}

void validate_layout(const ModelSpec& m, const Layout& l, int64_t gpus) {
  auto positive = [](int64_t v, const char* field, int64_t max) {
    if (v < 1 || v > max) {
      throw InputError(field, fmt::format("{} must be a whole number from 1 to {} (got {}).", field, max, v));
    }
  };
  positive(l.tp, "--tp", 1 << 20);
  positive(l.pp, "--pp", 1 << 20);
  positive(l.dp, "--dp", 1 << 24);
  positive(l.cp, "--cp", 1 << 20);
  positive(l.ep, "--ep", 1 << 20);
  positive(l.vp, "--vp", 1 << 10);
  positive(l.micro_batch, "--micro-batch", 1 << 20);
  positive(l.seq_len, "--seq-len", 100'000'000);
  if (l.zero_stage < 0 || l.zero_stage > 3) {
    throw InputError("--zero", fmt::format("--zero must be 0, 1, 2 or 3 (got {}).", l.zero_stage));
  }
  if (l.gpus() != gpus) {
    throw InputError("--gpus", fmt::format("--gpus: tp×pp×dp×cp = {}×{}×{}×{} = {} does not equal the {} GPUs.", l.tp, l.pp,
                                           l.dp, l.cp, l.gpus(), gpus));
  }
  if (m.count_only) return;  // no architecture to check against
  if (m.heads % l.tp != 0) {
    throw InputError("--tp", fmt::format("--tp {} must divide the model's {} attention heads.", l.tp, m.heads));
  }
  if (!m.mla && m.kv_heads % l.tp != 0 && l.tp % m.kv_heads != 0) {
    throw InputError("--tp", fmt::format("--tp {} and the {} key/value heads must divide one another.", l.tp, m.kv_heads));
  }
  if (l.pp > m.layers) {
    throw InputError("--pp", fmt::format("--pp {} exceeds the model's {} layers.", l.pp, m.layers));
  }
  if (l.vp > 1 && m.layers % (static_cast<int64_t>(l.pp) * l.vp) != 0) {
    throw InputError("--vp", fmt::format("--vp: {} layers do not split into pp×vp = {} equal chunks.", m.layers,
                                         static_cast<int64_t>(l.pp) * l.vp));
  }
  if (l.ep > 1) {
    if (!m.moe) throw InputError("--ep", "--ep needs a mixture-of-experts model; this one is dense.");
    if (m.moe->routed_experts % l.ep != 0) {
      throw InputError("--ep", fmt::format("--ep {} must divide the {} routed experts.", l.ep, m.moe->routed_experts));
    }
    if ((static_cast<int64_t>(l.dp) * l.cp) % l.ep != 0) {
      throw InputError("--ep", fmt::format("--ep {} must divide dp×cp = {} (expert-parallel ranks come from the data-parallel ones).",
                                           l.ep, static_cast<int64_t>(l.dp) * l.cp));
    }
  }
  if (l.seq_len % l.cp != 0) {
    throw InputError("--cp", fmt::format("--cp {} must divide the sequence length {}.", l.cp, l.seq_len));
  }
  if (l.shard_group < 0 || (l.shard_group > 0 && (l.zero_stage != 3 || l.dp % l.shard_group != 0))) {
    throw InputError("--shard-group", "--shard-group needs --zero 3 and must divide the data-parallel size.");
  }
  const int64_t batch = l.effective_global_batch();
  if (batch % (static_cast<int64_t>(l.dp) * l.micro_batch) != 0) {
    throw InputError("--global-batch", fmt::format("--global-batch {} must be a multiple of dp×micro-batch = {}.", batch,
                                                   static_cast<int64_t>(l.dp) * l.micro_batch));
  }
}

}  // namespace gpuplan
