#include "gpuplan/layout.hpp"
#include "execution/layout_words.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <unordered_map>
#include <utility>

#include "gpuplan/error.hpp"
#include "units/text_match.hpp"

namespace gpuplan {

const char* lora_module_name(LoraModule m) {
  switch (m) {
    case LoraModule::kQ: return "q";
    case LoraModule::kK: return "k";
    case LoraModule::kV: return "v";
    case LoraModule::kO: return "o";
    case LoraModule::kGate: return "gate";
    case LoraModule::kUp: return "up";
    case LoraModule::kDown: return "down";
  }
  return "?";
}

std::string lora_modules_text(const std::vector<LoraModule>& modules, const char* separator) {
  std::string out;
  for (LoraModule x : modules) {
    if (!out.empty()) out += separator;
    out += lora_module_name(x);
  }
  return out;
}

const char* optimizer_name(Optimizer o) {
  switch (o) {
    case Optimizer::kAdamW: return "adamw";
    case Optimizer::kAdamW8bit: return "adamw8bit";
    case Optimizer::kPagedAdamW8bit: return "paged_adamw8bit";
    case Optimizer::kSgdMomentum: return "sgd";
  }
  return "?";
}


QloraBase default_qlora_base(const ModelSpec& m) { return m.checkpoint_quant == "gptq-int4" ? QloraBase::kGptqInt4 : QloraBase::kNf4; }

// ---- Pipeline stage splits ------------------------------------------------
//
// Megatron-LM's rules, read from NVIDIA/Megatron-LM at commit d98e8a64
// (core_v0.15.0rc7-2333, 2026-08-22):
//   megatron/core/transformer/transformer_config.py, __post_init__ "Uneven PP":
//     num_layers_in_first/last_pipeline_stage must be > 0 and, with virtual
//     pipelining, multiples of vp; the layers left over must split evenly over
//     the stages left over ("middle" stages), there must be middle layers
//     exactly when there are middle stages, and each middle stage's count must
//     be a multiple of vp. The account_for_embedding/loss_in_pipeline_split
//     branch: L + 1 (or + 2) must divide by pp, and per rank by vp.
//   megatron/core/transformer/transformer_block.py get_num_layers_to_build:
//     without either option L must divide by pp (and L/pp by vp); a rank
//     builds its stage's count / vp layers in every chunk; with
//     account_for_embedding (loss) the first chunk of the first rank (the last
//     chunk of the last rank) builds one fewer, and may build none
//     ("num_layers_to_build >= 0": a standalone embedding or loss stage).
//   megatron/core/transformer/transformer_layer.py get_transformer_layer_offset:
//     layers are numbered chunk by chunk, and within a chunk index rank by rank
//     (chunk c of rank r follows chunk c of rank r−1): the order used below.
// --decoder-first/last-pipeline-num-layers (megatron/training/arguments.py)
// set the two config fields. Megatron refuses an empty first or last stage
// through those flags (> 0); only the account-for options leave one empty.

const char* stage_split_rule_name(StageSplitRule r) {
  switch (r) {
    case StageSplitRule::kEven: return "even";
    case StageSplitRule::kFirstLast: return "first/last stage layers";
    case StageSplitRule::kEmbeddingLoss: return "embedding and loss each count as a layer";
    case StageSplitRule::kLoss: return "loss counts as a layer";
    case StageSplitRule::kCustom: return "custom layout (--pipeline-model-parallel-layout)";
  }
  return "?";
}

const char* recompute_name_zh(Recompute r) {
  switch (r) {
    case Recompute::kNone: return "不重计算";
    case Recompute::kSelective: return "选择性重计算";
    case Recompute::kFull: return "完全重计算";
  }
  return "?";
}

const char* stage_split_rule_name_zh(StageSplitRule r) {
  switch (r) {
    case StageSplitRule::kEven: return "均分";
    case StageSplitRule::kFirstLast: return "指定首级/末级层数";
    case StageSplitRule::kEmbeddingLoss: return "嵌入层与损失各算一层";
    case StageSplitRule::kLoss: return "损失算一层";
    case StageSplitRule::kCustom: return "自定义分段（--pipeline-model-parallel-layout）";
  }
  return "?";
}

std::string StageSplit::describe_zh() const {
  std::string s = describe();
  for (const auto& [en, zh] : std::initializer_list<std::pair<const char*, const char*>>{
           {" (chunks: first [", "（虚拟级：首级 ["}, {"], middle [", "]，中间级 ["}, {"], last [", "]，末级 ["}, {"])", "]）"}}) {
    const size_t at = s.find(en);
    if (at != std::string::npos) s.replace(at, std::string(en).size(), zh);
  }
  return s;
}

int64_t StageSplit::layers(int stage) const {
  int64_t n = 0;
  for (const LayerRange& c : chunks[static_cast<size_t>(stage)]) n += c.count;
  return n;
}

int64_t StageSplit::max_layers() const {
  int64_t n = 0;
  for (size_t s = 0; s < chunks.size(); ++s) n = std::max(n, layers(static_cast<int>(s)));
  return n;
}

std::string StageSplit::describe() const {
  // Runs of equal stages: "15 | 16 ×6 | 15".
  std::string out;
  const int p = static_cast<int>(chunks.size());
  for (int s = 0; s < p;) {
    int run = 1;
    while (s + run < p && layers(s + run) == layers(s)) ++run;
    out += fmt::format("{}{}{}", out.empty() ? "" : " | ", layers(s), run > 1 ? fmt::format(" ×{}", run) : "");
    s += run;
  }
  if (!chunks.empty() && chunks.front().size() > 1) {
    auto per_chunk = [&](int s) {
      std::string t;
      for (const LayerRange& c : chunks[static_cast<size_t>(s)]) t += fmt::format("{}{}", t.empty() ? "" : ",", c.count);
      return t;
    };
    out += fmt::format(" (chunks: first [{}], middle [{}], last [{}])", per_chunk(0), per_chunk(p > 2 ? 1 : 0), per_chunk(p - 1));
  }
  return out;
}

namespace {

// Lays the chunk sizes out in Megatron's order: chunk index major, rank minor.
StageSplit lay_out(StageSplitRule rule, const std::vector<std::vector<int64_t>>& sizes) {
  StageSplit s;
  s.rule = rule;
  const size_t p = sizes.size(), v = sizes.front().size();
  s.chunks.assign(p, std::vector<LayerRange>(v));
  int64_t next = 0;
  for (size_t c = 0; c < v; ++c) {
    for (size_t r = 0; r < p; ++r) {
      s.chunks[r][c] = {next, sizes[r][c]};
      next += sizes[r][c];
    }
  }
  return s;
}

// The first/last rule; `why` is empty when Megatron accepts (first, last), else
// the reason, and `field` the flag to blame.
Reason first_last_problem(int64_t L, int pp, int vp, std::optional<int> first, std::optional<int> last, const char** field) {
  *field = first ? "--first-stage-layers" : "--last-stage-layers";
  if (pp < 2) return {fmt::format("{} needs a pipeline (--pp of 2 or more).", *field), fmt::format("{} 需要流水线并行（--pp 至少为 2）。", *field)};
  for (auto [value, name] : {std::pair{first, "--first-stage-layers"}, std::pair{last, "--last-stage-layers"}}) {
    if (!value) continue;
    *field = name;
    if (*value < 1) {
      return {fmt::format("{} must be at least 1 (Megatron refuses an empty first or last stage; got {}).", name, *value),
              fmt::format("{} 至少为 1（Megatron 不接受空的首段或末段；输入为 {}）。", name, *value)};
    }
    if (*value > L) return {fmt::format("{} {} exceeds the model's {} layers.", name, *value, L), fmt::format("{} {} 超过了模型的 {} 层。", name, *value, L)};
    if (vp > 1 && *value % vp != 0) {
      return {fmt::format("{} {} must be a multiple of --vp {} (each of the stage's chunks holds the same number of layers).", name, *value, vp),
              fmt::format("{} {} 须为 --vp {} 的整数倍（该段的每个块层数相同）。", name, *value, vp)};
    }
  }
  *field = first ? "--first-stage-layers" : "--last-stage-layers";
  const int64_t middle_layers = L - first.value_or(0) - last.value_or(0);
  const int middle_stages = pp - (first ? 1 : 0) - (last ? 1 : 0);
  if (middle_layers < 0) {
    return {fmt::format("{}: the first and last stages' {} layers exceed the model's {}.", *field, first.value_or(0) + last.value_or(0), L),
            fmt::format("{}：首段和末段共 {} 层，超过了模型的 {} 层。", *field, first.value_or(0) + last.value_or(0), L)};
  }
  if ((middle_layers == 0) != (middle_stages == 0)) {
    return {fmt::format("{}: {} layers are left for {} middle stages (Megatron needs layers exactly when there are middle stages).",
                        *field, middle_layers, middle_stages),
            fmt::format("{}：留给 {} 个中间段的是 {} 层（Megatron 要求有中间段时才有剩余层，反之亦然）。", *field, middle_stages, middle_layers)};
  }
  if (middle_stages > 0 && middle_layers % middle_stages != 0) {
    return {fmt::format("{}: the {} layers left do not split evenly over the {} other stages.", *field, middle_layers, middle_stages),
            fmt::format("{}：剩下的 {} 层不能平均分到其余 {} 段。", *field, middle_layers, middle_stages)};
  }
  if (middle_stages > 0 && (middle_layers / middle_stages) % vp != 0) {
    return {fmt::format("{}: the other stages' {} layers each are not a multiple of --vp {}.", *field, middle_layers / middle_stages, vp),
            fmt::format("{}：其余各段每段 {} 层，不是 --vp {} 的整数倍。", *field, middle_layers / middle_stages, vp)};
  }
  return {};
}

StageSplit first_last_split(int64_t L, int pp, int vp, std::optional<int> first, std::optional<int> last) {
  const int middle_stages = pp - (first ? 1 : 0) - (last ? 1 : 0);
  const int64_t per = middle_stages > 0 ? (L - first.value_or(0) - last.value_or(0)) / middle_stages : 0;
  std::vector<std::vector<int64_t>> sizes(static_cast<size_t>(pp), std::vector<int64_t>(static_cast<size_t>(vp), per / vp));
  if (first) std::fill(sizes.front().begin(), sizes.front().end(), *first / vp);
  if (last) std::fill(sizes.back().begin(), sizes.back().end(), *last / vp);
  StageSplit s = lay_out(StageSplitRule::kFirstLast, sizes);
  s.first_stage_layers = first;
  s.last_stage_layers = last;
  return s;
}

InputError layout_error(const std::string& en, const std::string& zh) { return InputError("--pipeline-layout", "--pipeline-layout: " + en, "--pipeline-layout：" + zh); }

// Megatron's custom layout (Layout::pipeline_layout) as a split: the rules of
// megatron/core/transformer/pipeline_parallel_layer_layout.py
// (NVIDIA/Megatron-LM@00caa53a, PipelineParallelLayerLayout.__init__ and
// validate_layer_layout): the stage count a multiple of pp (vp = stages / pp),
// stage i on rank i mod pp as chunk i / pp, the embedding first and the loss
// last, each exactly once, the transformer layers the model's count, the MTP
// layers after every transformer layer and in a rank's last chunk.
StageSplit custom_split(const ModelSpec& m, const Layout& l) {
  const std::vector<std::string> stages = parse_pipeline_layout(l.pipeline_layout);
  const int pp = std::max(1, l.pp), vp = std::max(1, l.vp);
  const size_t n = stages.size();
  if (n != static_cast<size_t>(pp) * vp) {
    const bool divisible = n % static_cast<size_t>(pp) == 0;
    throw layout_error(fmt::format("the layout has {} stages, which must be pp×vp = {}×{} = {}{}.", n, pp, vp, static_cast<int64_t>(pp) * vp,
                                   divisible ? fmt::format(" (with --pp {}, that is --vp {})", pp, n / static_cast<size_t>(pp)) : ""),
                       fmt::format("分段串有 {} 段，须等于 PP×VP = {}×{} = {}{}。", n, pp, vp, static_cast<int64_t>(pp) * vp,
                                   divisible ? fmt::format("（--pp {} 时即 --vp {}）", pp, n / static_cast<size_t>(pp)) : ""));
  }
  std::string flat;
  for (const std::string& st : stages) flat += st;
  auto count = [&](char ch) { return static_cast<int64_t>(std::count(flat.begin(), flat.end(), ch)); };
  if (flat.empty() || flat.front() != 'E' || count('E') != 1) {
    throw layout_error("the embedding (E) must be the very first layer, exactly once.", "嵌入层（E）须是第一层，且只出现一次。");
  }
  if (flat.back() != 'L' || count('L') != 1) throw layout_error("the loss (L) must be the very last layer, exactly once.", "损失（L）须是最后一层，且只出现一次。");
  if (count('t') != m.layers) {
    throw layout_error(fmt::format("it places {} transformer layers (t); the model has {}.", count('t'), m.layers),
                       fmt::format("分段串放了 {} 个 Transformer 层（t），模型有 {} 层。", count('t'), m.layers));
  }
  const size_t first_m = flat.find('m');
  if (first_m != std::string::npos && flat.find('t', first_m) != std::string::npos) {
    throw layout_error("MTP layers (m) must come after every transformer layer.", "MTP 层（m）须排在所有 Transformer 层之后。");
  }
  std::vector<std::vector<int64_t>> sizes(static_cast<size_t>(pp), std::vector<int64_t>(static_cast<size_t>(vp), 0));
  for (size_t i = 0; i < n; ++i) {
    const size_t rank = i % static_cast<size_t>(pp), chunk = i / static_cast<size_t>(pp);
    const std::string& st = stages[i];
    if (st.find('m') != std::string::npos && chunk + 1 != static_cast<size_t>(vp)) {
      throw layout_error("MTP layers (m) must sit in a rank's last virtual stage.", "MTP 层（m）须位于某个 rank 的最后一个虚拟段。");
    }
    sizes[rank][chunk] = static_cast<int64_t>(std::count(st.begin(), st.end(), 't'));
  }
  StageSplit s = lay_out(StageSplitRule::kCustom, sizes);
  s.mtp_layers = static_cast<int>(count('m'));
  return s;
}

}  // namespace

std::vector<std::string> parse_pipeline_layout(const std::string& text) {
  // Megatron drops commas, unrolls "(...)*n" (innermost text without
  // parentheses), then "x*n", then splits at "|" (parse_str_to_list).
  std::string s;
  for (char ch : text) {
    if (ch != ',' && ch != ' ') s += ch;
  }
  if (s.empty()) throw layout_error("the layout is empty.", "分段串为空。");
  if (s.size() > 4096) throw layout_error("the layout is longer than 4,096 characters.", "分段串超过 4,096 个字符。");
  auto repeat_count = [&](size_t at, size_t* end) {
    size_t e = at;
    while (e < s.size() && std::isdigit(static_cast<unsigned char>(s[e]))) ++e;
    if (e == at || e - at > 5) throw layout_error("'*' must be followed by a repeat count from 1 to 99,999.", "'*' 后须跟 1 到 99,999 的重复次数。");
    *end = e;
    return std::stoi(s.substr(at, e - at));
  };
  // The whole unrolled layout, not each repeat, is bounded: a layout names
  // each layer once (a model's layers plus E, m, L and the bars), so 65,536
  // characters is far beyond any model and keeps every request's work small.
  constexpr size_t kMaxUnrolled = 1 << 16;
  auto grow = [&](const std::string& unit, int times) {
    if (unit.size() * static_cast<size_t>(times) + s.size() > kMaxUnrolled) {
      throw layout_error("the unrolled layout exceeds 65,536 characters.", "展开后的分段串超过 65,536 个字符。");
    }
    std::string out;
    for (int i = 0; i < times; ++i) out += unit;
    return out;
  };
  for (size_t open = s.find('('); open != std::string::npos; open = s.find('(')) {
    const size_t close = s.find(')', open);
    if (close == std::string::npos || s.find('(', open + 1) < close) {
      throw layout_error("every '(' needs a ')' and groups cannot nest.", "每个 '(' 都须有对应的 ')'，且括号不能嵌套。");
    }
    if (close + 1 >= s.size() || s[close + 1] != '*') throw layout_error("a ')' must be followed by '*' and a count.", "')' 后须跟 '*' 和次数。");
    size_t end = 0;
    const int times = repeat_count(close + 2, &end);
    s = s.substr(0, open) + grow(s.substr(open + 1, close - open - 1), times) + s.substr(end);
  }
  if (s.find(')') != std::string::npos) throw layout_error("a ')' has no '('.", "')' 没有对应的 '('。");
  for (size_t star = s.find('*'); star != std::string::npos; star = s.find('*')) {
    if (star == 0) throw layout_error("'*' must follow what it repeats.", "'*' 须跟在要重复的内容之后。");
    size_t end = 0;
    const int times = repeat_count(star + 1, &end);
    s = s.substr(0, star - 1) + grow(std::string(1, s[star - 1]), times) + s.substr(end);
  }
  std::vector<std::string> stages(1);
  for (char ch : s) {
    if (ch == '|') {
      stages.emplace_back();
    } else if (ch == 'E' || ch == 't' || ch == 'm' || ch == 'L') {
      stages.back() += ch;
    } else {
      throw layout_error(fmt::format("'{}' is not a layer: E (embedding), t (transformer layer), m (MTP layer), L (loss), | between stages.", ch),
                         fmt::format("'{}' 不是层：E（嵌入）、t（Transformer 层）、m（MTP 层）、L（损失），| 分隔各段。", ch));
    }
  }
  return stages;
}

std::vector<std::pair<std::optional<int>, std::optional<int>>> uneven_split_candidates(int64_t L, int pp, int vp) {
  std::vector<std::pair<std::optional<int>, std::optional<int>>> out;
  if (pp < 2 || L < pp || L % (static_cast<int64_t>(pp) * vp) == 0) return out;
  auto add = [&](std::optional<int64_t> f, std::optional<int64_t> l) {
    const std::optional<int> fi = f ? std::optional<int>(static_cast<int>(*f)) : std::nullopt;
    const std::optional<int> li = l ? std::optional<int>(static_cast<int>(*l)) : std::nullopt;
    const char* field = nullptr;
    if (!first_last_problem(L, pp, vp, fi, li, &field).empty()) return;
    if (std::find(out.begin(), out.end(), std::pair{fi, li}) == out.end()) out.emplace_back(fi, li);
  };
  // Middle stages of k layers, k the smallest multiple of vp not below L/pp,
  // or one vp more; the first and last stages take what is left, neither more
  // than k (they also hold the embedding and the LM head with the loss, so
  // they are the ones to lighten). The last stage gets the lighter share: the
  // LM head's GEMM and loss outweigh the embedding lookup. At most six.
  const int64_t k0 = (L + pp - 1) / pp;
  const int64_t k_first = (k0 + vp - 1) / vp * vp;
  for (int64_t k = k_first; k <= k_first + vp; k += vp) {
    // Both set: f + l = rem, f the multiple of vp just above half, then just below.
    const int64_t rem = pp > 2 ? L - static_cast<int64_t>(pp - 2) * k : L;
    for (int64_t f : {(rem + 2 * vp - 1) / (2 * vp) * vp, rem / (2 * vp) * vp}) {
      if (f > 0 && rem - f > 0 && (pp == 2 || (f <= k && rem - f <= k))) add(f, rem - f);
    }
    const int64_t rest = L - static_cast<int64_t>(pp - 1) * k;
    if (pp > 2 && rest > 0 && rest <= k) {
      add(std::nullopt, rest);
      add(rest, std::nullopt);
    }
  }
  return out;
}

namespace {

// The split computed below depends only on the layer count, pp, vp and the
// first/last stage sizes (a custom layout string is parsed on its own); the
// planner asks for it once per candidate layout, hundreds of thousands of
// times with a few distinct keys, and it took a fifth of a plan's CPU time
// (perf, DeepSeek-V2 on 2,560 H800s). One small cache per thread (the web
// server's workers plan side by side), emptied when it fills.
struct SplitKey {
  int64_t layers;
  bool count_only;
  int pp, vp, first, last;
  bool operator==(const SplitKey&) const = default;
};
struct SplitKeyHash {
  size_t operator()(const SplitKey& k) const {
    size_t h = std::hash<int64_t>{}(k.layers) ^ (k.count_only ? 0x9e3779b97f4a7c15ULL : 0);
    for (int v : {k.pp, k.vp, k.first, k.last}) h = h * 1000003u + static_cast<size_t>(v + 1);
    return h;
  }
};

StageSplit compute_stage_split(const ModelSpec& m, const Layout& l);

}  // namespace

StageSplit stage_split(const ModelSpec& m, const Layout& l) {
  if (!l.pipeline_layout.empty()) return compute_stage_split(m, l);
  constexpr size_t kMaxCached = 512;
  thread_local std::unordered_map<SplitKey, StageSplit, SplitKeyHash> cache;
  const SplitKey key{m.layers, m.count_only, std::max(1, l.pp), std::max(1, l.vp), l.first_stage_layers.value_or(-1), l.last_stage_layers.value_or(-1)};
  if (const auto it = cache.find(key); it != cache.end()) return it->second;
  StageSplit split = compute_stage_split(m, l);  // throws for a split Megatron refuses: nothing cached
  if (cache.size() >= kMaxCached) cache.clear();
  cache.emplace(key, split);
  return split;
}

namespace {

StageSplit compute_stage_split(const ModelSpec& m, const Layout& l) {
  const int64_t L = m.layers;
  const int pp = std::max(1, l.pp), vp = std::max(1, l.vp);
  const int64_t chunks = static_cast<int64_t>(pp) * vp;
  if (!l.pipeline_layout.empty()) {
    if (m.count_only) {
      throw InputError("--pipeline-layout", "--pipeline-layout needs a model architecture (--model), not a bare parameter count.",
                       "--pipeline-layout 需要模型结构（--model），只给参数量不够。");
    }
    if (l.first_stage_layers || l.last_stage_layers) {
      throw InputError("--pipeline-layout", "--pipeline-layout cannot be combined with --first-stage-layers / --last-stage-layers (Megatron takes one or the other).",
                       "--pipeline-layout 不能与 --first-stage-layers / --last-stage-layers 同时使用（Megatron 只接受其一）。");
    }
    return custom_split(m, l);
  }
  if (l.first_stage_layers || l.last_stage_layers) {
    const char* field = nullptr;
    if (m.count_only) {
      throw InputError(l.first_stage_layers ? "--first-stage-layers" : "--last-stage-layers",
                       "--first-stage-layers and --last-stage-layers need a model architecture (--model), not a bare parameter count.",
                       "--first-stage-layers 和 --last-stage-layers 需要模型结构（--model），只给参数量不够。");
    }
    const Reason why = first_last_problem(L, pp, vp, l.first_stage_layers, l.last_stage_layers, &field);
    if (!why.empty()) throw InputError(field, why.en, why.zh);
    return first_last_split(L, pp, vp, l.first_stage_layers, l.last_stage_layers);
  }
  if (L % chunks == 0 || m.count_only) {
    const int64_t per = m.count_only ? 0 : L / chunks;
    return lay_out(StageSplitRule::kEven, std::vector<std::vector<int64_t>>(static_cast<size_t>(pp), std::vector<int64_t>(static_cast<size_t>(vp), per)));
  }
  if (pp > 1) {
    // Megatron's account-for options: the embedding and the loss count as one
    // layer each (Llama 3 trained 126 layers on 16 stages this way, "we reduce
    // one Transformer layer each from the first and the last stages",
    // arXiv:2407.21783 §3.3.2); torchtitan's default split and BLOOM's
    // Megatron-DeepSpeed partition (embeddings as layers) give the same counts.
    for (const int slots : {2, 1}) {
      if ((L + slots) % chunks != 0) continue;
      const int64_t per = (L + slots) / chunks;
      std::vector<std::vector<int64_t>> sizes(static_cast<size_t>(pp), std::vector<int64_t>(static_cast<size_t>(vp), per));
      if (slots == 2) sizes.front().front() -= 1;
      sizes.back().back() -= 1;
      return lay_out(slots == 2 ? StageSplitRule::kEmbeddingLoss : StageSplitRule::kLoss, sizes);
    }
    const auto candidates = uneven_split_candidates(L, pp, vp);
    if (!candidates.empty()) return first_last_split(L, pp, vp, candidates.front().first, candidates.front().second);
  }
  const char* field = vp > 1 ? "--vp" : "--pp";
  throw InputError(field, fmt::format("{}: {} layers do not split over pp×vp = {} chunks, evenly or by Megatron's uneven rules "
                                      "(the embedding and loss counted as layers, or --first-stage-layers / --last-stage-layers); --pipeline-layout places every layer.",
                                      field, L, chunks),
                   fmt::format("{}：{} 层无法分到 PP×VP = {} 个块上，既不能均分，也不符合 Megatron 的不均匀规则"
                               "（把嵌入层和损失计为层，或用 --first-stage-layers / --last-stage-layers）；--pipeline-layout 可逐层指定。",
                               field, L, chunks));
}

}  // namespace

void validate_layout(const ModelSpec& m, const Layout& l, int64_t gpus) {
  auto positive = [](int64_t v, const char* field, int64_t max) {
    if (v < 1 || v > max) {
      throw InputError(field, fmt::format("{} must be a whole number from 1 to {} (got {}).", field, max, v),
                       fmt::format("{} 须为 1 到 {} 之间的整数（输入为 {}）。", field, max, v));
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
    throw InputError("--zero", fmt::format("--zero must be 0, 1, 2 or 3 (got {}).", l.zero_stage), fmt::format("--zero 须为 0、1、2 或 3（输入为 {}）。", l.zero_stage));
  }
  if (l.gpus() != gpus) {
    throw InputError("--gpus", fmt::format("--gpus: tp×pp×dp×cp = {}×{}×{}×{} = {} does not equal the {} GPUs.", l.tp, l.pp,
                                           l.dp, l.cp, l.gpus(), gpus),
                     fmt::format("--gpus：TP×PP×DP×CP = {}×{}×{}×{} = {}，与 {} 张卡不相等。", l.tp, l.pp, l.dp, l.cp, l.gpus(), gpus));
  }
  if (m.count_only) {
    if (l.first_stage_layers || l.last_stage_layers || !l.pipeline_layout.empty()) stage_split(m, l);  // refuses them
    return;  // no architecture to check against
  }
  if (m.heads % l.tp != 0) {
    throw InputError("--tp", fmt::format("--tp {} must divide the model's {} attention heads.", l.tp, m.heads),
                     fmt::format("--tp {} 须能整除模型的 {} 个注意力头。", l.tp, m.heads));
  }
  if (!m.mla && m.kv_heads % l.tp != 0 && l.tp % m.kv_heads != 0) {
    throw InputError("--tp", fmt::format("--tp {} and the {} key/value heads must divide one another.", l.tp, m.kv_heads),
                     fmt::format("--tp {} 与 {} 个 KV 头须能互相整除。", l.tp, m.kv_heads));
  }
  if (l.pp > m.layers) {
    throw InputError("--pp", fmt::format("--pp {} exceeds the model's {} layers.", l.pp, m.layers), fmt::format("--pp {} 超过了模型的 {} 层。", l.pp, m.layers));
  }
  stage_split(m, l);  // throws, naming the field, for a split Megatron refuses
  if (l.ep > 1) {
    if (!m.moe) throw InputError("--ep", "--ep needs a mixture-of-experts model; this one is dense.", "--ep 只适用于 MoE 模型；这是稠密模型。");
    if (m.moe->routed_experts % l.ep != 0) {
      throw InputError("--ep", fmt::format("--ep {} must divide the {} routed experts.", l.ep, m.moe->routed_experts),
                       fmt::format("--ep {} 须能整除 {} 个路由专家。", l.ep, m.moe->routed_experts));
    }
    if (l.expert_tp() == l.tp && (static_cast<int64_t>(l.dp) * l.cp) % l.ep != 0) {
      throw InputError("--ep", fmt::format("--ep {} must divide dp×cp = {} (expert-parallel ranks come from the data-parallel ones; "
                                           "a framework with MoE parallel folding can span TP too with --etp 1).",
                                           l.ep, static_cast<int64_t>(l.dp) * l.cp),
                       fmt::format("--ep {} 须能整除 DP×CP = {}（专家并行的进程取自数据并行的进程；支持 MoE 并行折叠的框架可用 --etp 1 跨越 TP）。", l.ep,
                                   static_cast<int64_t>(l.dp) * l.cp));
    }
  }
  if (l.etp < 0 || l.etp > (1 << 20)) {
    throw InputError("--etp", fmt::format("--etp must be a whole number from 1 to {} (got {}).", 1 << 20, l.etp),
                     fmt::format("--etp 须为 1 到 {} 之间的整数（输入为 {}）。", 1 << 20, l.etp));
  }
  if (l.expert_tp() != l.tp) {
    // Megatron-Core's expert RankGenerator (parallel_state.py
    // initialize_model_parallel): etp × ep × expert-dp tile the tp × cp × dp ranks of a stage.
    const int64_t attention_ranks = static_cast<int64_t>(l.tp) * l.cp * l.dp;
    const int64_t expert_ranks = static_cast<int64_t>(l.expert_tp()) * l.ep;
    if (!m.moe) throw InputError("--etp", "--etp needs a mixture-of-experts model; this one is dense.", "--etp 只适用于 MoE 模型；这是稠密模型。");
    if (attention_ranks % expert_ranks != 0) {
      throw InputError("--etp", fmt::format("--etp {} × --ep {} = {} must divide tp×cp×dp = {} (the expert groups tile the attention ranks).",
                                            l.expert_tp(), l.ep, expert_ranks, attention_ranks),
                       fmt::format("--etp {} × --ep {} = {} 须能整除 TP×CP×DP = {}（专家并行组铺满注意力部分的进程）。", l.expert_tp(), l.ep,
                                   expert_ranks, attention_ranks));
    }
    if (m.moe->expert_intermediate % l.expert_tp() != 0) {
      throw InputError("--etp", fmt::format("--etp {} must divide the experts' width {}.", l.expert_tp(), m.moe->expert_intermediate),
                       fmt::format("--etp {} 须能整除专家的宽度 {}。", l.expert_tp(), m.moe->expert_intermediate));
    }
  }
  if (l.seq_len % l.cp != 0) {
    throw InputError("--cp", fmt::format("--cp {} must divide the sequence length {}.", l.cp, l.seq_len),
                     fmt::format("--cp {} 须能整除序列长度 {}。", l.cp, l.seq_len));
  }
  if (const Reason why = ulysses_refusal(m, l.tp, l.cp, l.cp_exchange); !why.empty()) {
    throw InputError("--cp", fmt::format("--cp {}: {}.", l.cp, why.en), fmt::format("--cp {}：{}。", l.cp, why.zh));
  }
  if (l.shard_group < 0 || (l.shard_group > 0 && (l.zero_stage != 3 || l.dp % l.shard_group != 0))) {
    throw InputError("--shard-group", "--shard-group needs --zero 3 and must divide the data-parallel size.",
                     "--shard-group 需要 --zero 3，且须能整除数据并行规模。");
  }
  const int64_t batch = l.effective_global_batch();
  if (batch % (static_cast<int64_t>(l.dp) * l.micro_batch) != 0) {
    throw InputError("--global-batch", fmt::format("--global-batch {} must be a multiple of dp×micro-batch = {}.", batch,
                                                   static_cast<int64_t>(l.dp) * l.micro_batch),
                     fmt::format("--global-batch {} 须为 DP×微批次 = {} 的整数倍。", batch, static_cast<int64_t>(l.dp) * l.micro_batch));
  }
}

}  // namespace gpuplan
