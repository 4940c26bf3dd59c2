// The launch configurations of the Megatron-based stacks beside Megatron-LM
// (issue 29): MindSpeed-LLM 2.1.0's flags, Megatron-Bridge 0.6.0's and NeMo's
// recipe overrides, checked against the names each version's source reads
// (data/exports/*.json) and counted back into the model they build.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "frameworks/launch_config.hpp"
#include "frameworks/megatron_built_params.hpp"
#include "gpuplan/launch_config.hpp"
#include "gpuplan/plan.hpp"

using namespace gpuplan;

namespace {

// The catalog families the Megatron export test counts (test_launch_config.cpp).
const char* const kFamilies[] = {"llama-3.1-70b", "llama-3.1-8b", "qwen2.5-72b", "qwen3-32b", "mixtral-8x7b", "qwen3-30b-a3b", "deepseek-v3",
                                 "gpt3-175b"};

Layout layout_for(const ModelSpec& m, int tp, int pp) {
  Layout l;
  l.tp = tp;
  l.pp = pp;
  l.dp = 8;
  l.ep = m.moe ? 8 : 1;
  l.micro_batch = 1;
  l.global_batch = 64 * pp;
  l.seq_len = 2048;
  l.zero_stage = 1;
  l.sequence_parallel = tp > 1;
  return l;
}

std::vector<std::pair<std::string, std::string>> flag_lines(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const size_t space = line.find(' ');
    out.emplace_back(line.substr(0, space), space == std::string::npos ? "" : line.substr(space + 1));
  }
  return out;
}

// "[0]*3+[1]*58" from a per-layer list of MoE flags.
std::string runs(const std::vector<bool>& moe) {
  std::string s;
  for (size_t i = 0; i < moe.size();) {
    size_t j = i;
    while (j < moe.size() && moe[j] == moe[i]) ++j;
    s += (s.empty() ? "" : "+") + std::string(moe[i] ? "[1]*" : "[0]*") + std::to_string(j - i);
    i = j;
  }
  return s;
}

// MindSpeed-LLM 2.1.0's flags as the Megatron-LM ones megatron_built_params
// counts, by how MindSpeed-LLM builds them (Ascend/MindSpeed-LLM@v2.1.0):
// experts --moe-intermediate-size wide (core/transformer/moe/moe_layer.py
// l.24-28), one shared MLP --n-shared-experts × that wide (l.53-55), slot i MoE
// iff i >= --first-k-dense-replace and i % --moe-layer-freq == 0 counting no-op
// layers (core/transformer/transformer_block.py l.74-95), no-op slots without
// parameters, the vocabulary --padded-vocab-size as given (training/arguments.py l.487).
std::pair<std::string, int64_t> mindspeed_as_megatron(const std::string& text) {
  std::map<std::string, std::string> f;
  for (const auto& [k, v] : flag_lines(text)) f[k] = v;
  std::string out;
  auto put = [&](const std::string& k, const std::string& v) { out += k + (v.empty() ? "" : " " + v) + "\n"; };
  const int64_t slots = std::stoll(f.at("--num-layers"));
  std::set<int64_t> noops;
  if (f.count("--noop-layers")) {
    std::istringstream list(f.at("--noop-layers"));
    std::string n;
    while (std::getline(list, n, ',')) noops.insert(std::stoll(n));
  }
  std::vector<bool> moe;
  const int64_t first_k = f.count("--first-k-dense-replace") ? std::stoll(f.at("--first-k-dense-replace")) : 0;
  const int64_t freq = f.count("--moe-layer-freq") ? std::stoll(f.at("--moe-layer-freq")) : 1;
  for (int64_t i = 0; i < slots; ++i) {
    if (!noops.count(i)) moe.push_back(f.count("--num-experts") && i >= first_k && i % freq == 0);
  }
  for (const auto& [k, v] : f) {
    if (k == "--num-layers") put(k, std::to_string(moe.size()));
    else if (k == "--multi-head-latent-attention") put("--multi-latent-attention", "");
    else if (k == "--qk-nope-head-dim") put("--qk-head-dim", v);
    else if (k == "--qk-rope-head-dim") put("--qk-pos-emb-head-dim", v);
    else if (k == "--moe-intermediate-size") put("--moe-ffn-hidden-size", v);
    else if (k == "--n-shared-experts") put("--moe-shared-expert-intermediate-size", std::to_string(std::stoll(v) * std::stoll(f.at("--moe-intermediate-size"))));
    else if (k == "--shared-expert-gate") put("--moe-shared-expert-gate", "");
    else if (k == "--make-vocab-size-divisible-by") put(k, "1");
    else if (k != "--noop-layers" && k != "--first-k-dense-replace" && k != "--moe-layer-freq" && k != "--padded-vocab-size") put(k, v);
  }
  if (f.count("--num-experts") && std::find(moe.begin(), moe.end(), false) != moe.end()) put("--moe-layer-freq", runs(moe));
  return {out, std::stoll(f.at("--padded-vocab-size"))};
}

// Megatron-Core config fields (Megatron-Bridge's model.X, NeMo 2's model.config.X)
// and NeMo 24.07's YAML keys as the Megatron-LM flags they come from
// (megatron/training/arguments.py core_transformer_config_from_args copies an
// argument into the same-named field; --swiglu is gated_linear_unit, --num-experts
// num_moe_experts, --disable-bias-linear add_bias_linear=False, --untie-... the
// negation of share_embeddings_and_output_weights; NeMo 24.07's activation
// fast-swiglu, bias, override_vocab_size, megatron_base_model.py l.480-598).
std::pair<std::string, int64_t> overrides_as_megatron(const OverrideExport& e, const std::string& at) {
  std::map<std::string, std::string> f;
  for (const OverrideLine& o : e.lines) {
    std::string k = o.key;
    if (k.rfind('+', 0) == 0) k = k.substr(1);
    if (k.rfind(at, 0) == 0) f[k.substr(at.size())] = o.value;
  }
  std::string out;
  auto put = [&](const std::string& k, const std::string& v) { out += k + (v.empty() ? "" : " " + v) + "\n"; };
  auto is = [&](const char* k, const char* v) { return f.count(k) && f.at(k) == v; };
  const std::map<std::string, std::string> same = {
      {"num_layers", "--num-layers"}, {"hidden_size", "--hidden-size"}, {"ffn_hidden_size", "--ffn-hidden-size"},
      {"num_attention_heads", "--num-attention-heads"}, {"kv_channels", "--kv-channels"}, {"num_moe_experts", "--num-experts"},
      {"moe_ffn_hidden_size", "--moe-ffn-hidden-size"}, {"moe_shared_expert_intermediate_size", "--moe-shared-expert-intermediate-size"},
      {"q_lora_rank", "--q-lora-rank"}, {"kv_lora_rank", "--kv-lora-rank"}, {"qk_head_dim", "--qk-head-dim"},
      {"qk_pos_emb_head_dim", "--qk-pos-emb-head-dim"}, {"v_head_dim", "--v-head-dim"}};
  for (const auto& [k, flag] : same) {
    if (f.count(k) && f.at(k) != "null") put(flag, f.at(k));
  }
  if (f.count("num_query_groups")) {
    put("--group-query-attention", "");
    put("--num-query-groups", f.at("num_query_groups"));
  }
  if (is("gated_linear_unit", "true") || is("activation", "fast-swiglu")) put("--swiglu", "");
  if (is("normalization", "RMSNorm") || is("normalization", "rmsnorm")) put("--normalization", "RMSNorm");
  if (is("add_bias_linear", "false") || is("bias", "false")) put("--disable-bias-linear", "");
  if (is("add_qkv_bias", "true") || is("qkv_bias", "true")) put("--add-qkv-bias", "");
  if (is("qk_layernorm", "true")) put("--qk-layernorm", "");
  if (is("share_embeddings_and_output_weights", "false")) put("--untie-embeddings-and-output-weights", "");
  if (is("position_embedding_type", "rope")) put("--position-embedding-type", "rope");
  // A learned table holds max_sequence_length rows: seq_length in Megatron-Core's GPTModel
  // (Bridge's provider, NeMo 2's GPTConfig), max_position_embeddings in NeMo 24.07's YAML.
  if (is("position_embedding_type", "learned_absolute")) put("--max-position-embeddings", f.count("max_position_embeddings") ? f.at("max_position_embeddings") : f.at("seq_length"));
  if (is("multi_latent_attention", "true")) put("--multi-latent-attention", "");
  if (is("moe_router_enable_expert_bias", "true")) put("--moe-router-enable-expert-bias", "");
  if (f.count("num_moe_experts") && !f.count("moe_ffn_hidden_size")) put("--moe-ffn-hidden-size", f.at("ffn_hidden_size"));  // core 0.8: experts are ffn_hidden_size wide
  if (f.count("moe_layer_freq")) {
    std::vector<bool> moe;
    for (char c : f.at("moe_layer_freq")) {
      if (c == '0' || c == '1') moe.push_back(c == '1');
    }
    put("--moe-layer-freq", runs(moe));
  }
  put("--make-vocab-size-divisible-by", "1");
  const std::string vocab = f.count("vocab_size") ? f.at("vocab_size") : f.at("override_vocab_size");
  return {out, std::stoll(vocab)};
}

double planned_params(const ModelSpec& m, const Layout& l) {
  const MegatronVocab v = megatron_vocab(m, l);
  return count_params(m).total + static_cast<double>(v.padded - m.vocab) * static_cast<double>(m.hidden) * (m.tied_embeddings ? 1 : 2);
}

}  // namespace

// MindSpeed-LLM 2.1.0 builds the planned model from the exported flags, every
// flag one its parser takes (data/exports/mindspeed-llm-arguments.json), even
// and uneven splits alike: DeepSeek-V3's 61 layers over 16 stages are written
// as the DeepSeek-V3 script writes them, no-op layers padding 3 | 4 ×14 | 2 to 64
// slots (its --num-layer-list trips first_k_dense >= num_layers // pp), so slot
// 3 is a no-op and the 3 dense layers stay in front.
TEST(MindSpeedExport, BuildsThePlannedModelWithFlagsItsParserTakes) {
  const FrameworkProfile& ms = find_framework("mindspeed-llm@2.1.0");
  for (const char* id : kFamilies) {
    const ModelSpec m = find_model(id);
    for (int tp : {1, 2, 4, 8}) {
      if (m.heads % tp != 0 || (!m.mla && m.kv_heads % tp != 0)) continue;
      for (int pp : {1, 3, 16}) {
        if (pp > 1 && m.layers < 2 * pp) continue;
        const Layout l = layout_for(m, tp, pp);
        const Reason gap = megatron_arguments_gap(m, l, MegatronDialect::kMindSpeedLlm, &ms);
        ASSERT_TRUE(gap.empty()) << id << " tp " << tp << " pp " << pp << ": " << gap.en;
        const std::string a = megatron_arguments(m, l, MegatronDialect::kMindSpeedLlm, &ms);
        EXPECT_TRUE(megatron_arguments_unknown(a, ms).empty()) << id << ": " << megatron_arguments_unknown(a, ms).en;
        const auto [flags, vocab] = mindspeed_as_megatron(a);
        EXPECT_EQ(megatron_built_params(flags, vocab), planned_params(m, l)) << id << " tp " << tp << " pp " << pp << "\n" << a;
      }
    }
  }
  Layout l = layout_for(find_model("deepseek-v3"), 1, 16);
  const std::string a = megatron_arguments(find_model("deepseek-v3"), l, MegatronDialect::kMindSpeedLlm, &ms);
  for (const char* s : {"--num-layers 64\n", "--noop-layers 3,62,63\n", "--first-k-dense-replace 3\n", "--moe-layer-freq 1\n", "--n-shared-experts 1\n",
                        "--moe-router-load-balancing-type noaux_tc\n", "--spec mindspeed_llm.tasks.models.spec.deepseek_spec layer_spec\n",
                        "--qk-layernorm\n", "--rope-scaling-mscale-all-dim 1\n", "--padded-vocab-size 129280\n"}) {
    EXPECT_NE(a.find(s), std::string::npos) << s << a;
  }
  EXPECT_EQ(a.find("--num-layer-list"), std::string::npos) << a;
  // Llama 3.1's scaling in MindSpeed-LLM's five flags (examples/mcore/llama31/pretrain_llama31_70b_8k_ptd.sh l.39-43).
  const std::string b = megatron_arguments(find_model("llama-3.1-70b"), layout_for(find_model("llama-3.1-70b"), 8, 1), MegatronDialect::kMindSpeedLlm, &ms);
  for (const char* s : {"--rope-scaling-type llama3\n", "--rope-scaling-factor 8\n", "--low-freq-factor 1\n", "--high-freq-factor 4\n",
                        "--original-max-position-embeddings 8192\n"}) {
    EXPECT_NE(b.find(s), std::string::npos) << s << b;
  }
  EXPECT_EQ(b.find("--use-rope-scaling"), std::string::npos) << b;
  // What 2.1.0 cannot run is named: an expert TP of its own, FP8 (no Transformer Engine).
  l.ep = 8;
  l.etp = 2;
  EXPECT_NE(mindspeed_arguments_gap(find_model("deepseek-v3"), l).en.find("--expert-tensor-parallel-size"), std::string::npos);
  l.etp = 0;
  l.precision = Precision::kFp8;
  EXPECT_NE(mindspeed_arguments_gap(find_model("deepseek-v3"), l).zh.find("FP8"), std::string::npos);
}

// Megatron-Bridge 0.6.0 and NeMo 2.5.0 build the planned model from the
// exported overrides alone (every architecture field written, the vocabulary
// exact, multi-token prediction off), each key one the version reads
// (Bridge: its ConfigContainer's dataclass fields; NeMo 2: the recipe's config
// class for model.config, the strategy, plugin, data and optimizer otherwise).
// NeMo 24.07 (Megatron-Core 0.8) does the same for what it can express and
// names the rest: Llama 3.1's RoPE scaling, DeepSeek-V3's attention and MoE.
TEST(OverrideExports, BuildThePlannedModelFromKeysTheVersionReads) {
  const FrameworkProfile& bridge = find_framework("megatron-bridge@0.6.0");
  const FrameworkProfile& nemo2 = find_framework("nemo@2.5.0");
  const FrameworkProfile& nemo1 = find_framework("nemo@24.07");
  std::set<std::string> refused_by_nemo1, refused_by_nemo2;
  for (const char* id : kFamilies) {
    const ModelSpec m = find_model(id);
    for (int tp : {1, 4, 8}) {
      if (m.heads % tp != 0 || (!m.mla && m.kv_heads % tp != 0)) continue;
      const Layout l = layout_for(m, tp, m.layers % 4 == 0 ? 4 : 1);
      ASSERT_TRUE(megatron_bridge_gap(m, l).empty()) << id;
      const OverrideExport b = megatron_bridge_overrides(m, l);
      EXPECT_TRUE(overrides_unknown(b, bridge).empty()) << id << ": " << overrides_unknown(b, bridge).en;
      const auto [bf, bv] = overrides_as_megatron(b, "model.");
      EXPECT_EQ(megatron_built_params(bf, bv), planned_params(m, l)) << "bridge " << id << " tp " << tp << "\n" << overrides_text(b);
      for (const FrameworkProfile* nemo : {&nemo2, &nemo1}) {
        if (!nemo_gap(m, l, *nemo).empty()) {
          (nemo == &nemo1 ? refused_by_nemo1 : refused_by_nemo2).insert(id);
          continue;
        }
        const OverrideExport n = nemo_overrides(m, l, *nemo);
        EXPECT_TRUE(overrides_unknown(n, *nemo).empty()) << nemo->label() << " " << id << ": " << overrides_unknown(n, *nemo).en;
        const auto [nf, nv] = overrides_as_megatron(n, nemo == &nemo2 ? "model.config." : "model.");
        EXPECT_EQ(megatron_built_params(nf, nv), planned_params(m, l)) << nemo->label() << " " << id << " tp " << tp << "\n" << overrides_text(n);
      }
    }
  }
  // NeMo 2.5.0's recipes build gated (SwiGLU) models; GPT-3's GELU is a callable no override sets.
  EXPECT_EQ(refused_by_nemo2, (std::set<std::string>{"gpt3-175b"}));
  // NeMo 24.07: Llama 3.1's scaling (its launcher's scale_positional_embedding is read by no code at r2.0.0rc1),
  // DeepSeek-V3's MLA and MoE; Qwen2.5/Qwen3/Mixtral/GPT-3 export.
  EXPECT_EQ(refused_by_nemo1, (std::set<std::string>{"llama-3.1-70b", "llama-3.1-8b", "deepseek-v3"}));
  const Layout l = layout_for(find_model("llama-3.1-70b"), 8, 4);
  EXPECT_NE(nemo_gap(find_model("llama-3.1-70b"), l, nemo1).en.find("RoPE frequency scaling"), std::string::npos);
}

// A key the version does not read is named with the file and commit it was
// checked against: a field Bridge's ConfigContainer lacks, a +key NeMo 24.07's
// YAML already has (Hydra refuses to append it) or its code never reads, an MLA
// field on NeMo 2.5.0's Llama recipe.
TEST(OverrideExports, KeysTheVersionDoesNotReadAreNamed) {
  const ModelSpec llama = find_model("llama-3.1-70b");
  const Layout l = layout_for(llama, 8, 4);
  OverrideExport b = megatron_bridge_overrides(llama, l);
  b.lines.push_back({"model.tensor_parallel_size", "8"});
  const Reason rb = overrides_unknown(b, find_framework("megatron-bridge@0.6.0"));
  EXPECT_NE(rb.en.find("model.tensor_parallel_size"), std::string::npos) << rb.en;
  EXPECT_NE(rb.en.find("51885cf1"), std::string::npos) << rb.en;
  const ModelSpec qwen = find_model("qwen2.5-72b");
  OverrideExport n1 = nemo_overrides(qwen, l, find_framework("nemo@24.07"));
  n1.lines.push_back({"+model.num_layers", "80"});
  n1.lines.push_back({"+model.not_a_key", "1"});
  const Reason r1 = overrides_unknown(n1, find_framework("nemo@24.07"));
  EXPECT_NE(r1.en.find("+model.num_layers"), std::string::npos) << r1.en;
  EXPECT_NE(r1.en.find("+model.not_a_key"), std::string::npos) << r1.en;
  OverrideExport n2 = nemo_overrides(llama, l, find_framework("nemo@2.5.0"));
  EXPECT_EQ(n2.recipe, "llama31_70b");
  n2.lines.push_back({"model.config.q_lora_rank", "1536"});
  const Reason r2 = overrides_unknown(n2, find_framework("nemo@2.5.0"));
  EXPECT_NE(r2.en.find("model.config.q_lora_rank"), std::string::npos) << r2.en;
  EXPECT_NE(r2.en.find("llama31_70b"), std::string::npos) << r2.en;
}

// The launch line: whole nodes of the GPU's node size (or one machine with
// fewer), each stack's own launcher and entry point, and the override files
// read one argument a line.
TEST(LaunchCommand, NodesAndEachStacksEntryPoint) {
  EXPECT_EQ(launch_shape(64, 8).nodes, 8);
  EXPECT_EQ(launch_shape(64, 8).gpus_per_node, 8);
  EXPECT_EQ(launch_shape(4, 8).nodes, 1);
  EXPECT_EQ(launch_shape(4, 8).gpus_per_node, 4);
  EXPECT_EQ(launch_shape(72, 4).nodes, 18);  // a GB200 tray is 4 GPUs
  const LaunchShape shape = launch_shape(256, 8);
  const std::string mg = launch_command("megatron", find_framework("megatron-lm@0.14.0"), shape, "megatron-args.txt");
  EXPECT_NE(mg.find("torchrun --nproc_per_node 8 --nnodes 32 --node_rank $NODE_RANK"), std::string::npos) << mg;
  EXPECT_NE(mg.find("pretrain_gpt.py $(< megatron-args.txt)"), std::string::npos) << mg;
  const std::string one = launch_command("megatron", find_framework("megatron-lm@0.14.0"), launch_shape(8, 8), "megatron-args.txt");
  EXPECT_EQ(one.find("NODE_RANK"), std::string::npos) << one;  // one machine needs no rendezvous address
  EXPECT_NE(launch_command("torchtitan", find_framework("torchtitan@2025-10"), shape, "t.toml").find("-m torchtitan.train --job.config_file t.toml"),
            std::string::npos);
  EXPECT_NE(launch_command("torchtitan", find_framework("torchtitan@2024-12"), shape, "t.toml").find(" train.py --job.config_file"), std::string::npos);
  EXPECT_NE(launch_command("deepspeed", find_framework("deepspeed@0.16.4"), shape, "ds_config.json").find("deepspeed --num_nodes 32 --num_gpus 8 --hostfile"),
            std::string::npos);
  EXPECT_NE(launch_command("deepspeed", find_framework("trl@0.12.0"), shape, "ds_config.json").find("TRAIN_SCRIPT --deepspeed ds_config.json"),
            std::string::npos);
  const std::string mb = launch_command("megatron-bridge", find_framework("megatron-bridge@0.6.0"), shape, "megatron-bridge.overrides", "llama31_70b_pretrain_config");
  EXPECT_NE(mb.find("mapfile -t OVERRIDES < megatron-bridge.overrides && torchrun"), std::string::npos) << mb;
  EXPECT_NE(mb.find("run_recipe.py --recipe llama31_70b_pretrain_config --mode pretrain \"${OVERRIDES[@]}\""), std::string::npos) << mb;
  EXPECT_NE(launch_command("nemo", find_framework("nemo@2.5.0"), shape, "nemo.overrides", "deepseek_v3").find("srun --nodes 32 --ntasks-per-node 8 nemo llm pretrain --factory deepseek_v3 --yes"),
            std::string::npos);
  EXPECT_NE(launch_command("nemo", find_framework("nemo@24.07"), shape, "nemo.overrides").find("megatron_gpt_pretraining.py \"${OVERRIDES[@]}\""),
            std::string::npos);
  EXPECT_EQ(launch_command("megatron-deepspeed", find_framework("megatron-deepspeed@2024"), shape, "megatron-deepspeed.sh"), "bash megatron-deepspeed.sh");
  EXPECT_EQ(launch_command("gpt-neox", find_framework("gpt-neox@2023"), shape, "neox.yml"),
            "python ./deepy.py train.py -H HOSTFILE neox.yml DATA_TOKENIZER_AND_OPTIMIZER.yml");
}

// A stack that hands gpuplan's DeepSpeed config to DeepSpeed is checked against
// the DeepSpeed its version admits: the newest release gpuplan has read at or
// below its pin (deepspeed-config-keys.json has 2021, 0.5.0, 0.6.0, 0.9.2,
// 0.10.2, 0.16.4), or, unpinned, the newest dated at or before the version.
TEST(DeepSpeedReading, StacksOnDeepSpeedReadTheReleaseTheyAdmit) {
  const std::map<std::string, std::string> expected = {
      {"llama-factory@0.9.0", "0.9.2"},  // deepspeed>=0.10.0,<=0.14.4
      {"trl@0.12.0", "0.10.2"},          // deepspeed>=0.14.4
      {"trl@1.7.0", "0.10.2"},           // the same pin, inherited
      {"xtuner@0.1.23", "0.10.2"},       // deepspeed>=0.12.3
      {"axolotl@0.5.2", "0.10.2"},       // deepspeed==0.15.4
      {"gpt-neox@2023", "0.6.0"},        // DeeperSpeed v2.0, 0.8.3
      {"hf-trainer@2023-12", "0.9.2"},   // deepspeed>=0.9.3
      {"hf-trainer@2023", "0.6.0"},      // unpinned, 2023-01
      {"ms-swift@2.6.1", "0.10.2"},      // unpinned, 2024-11
      {"megatron-deepspeed@2022", "0.6.0"},
      {"deepspeed@0.16.4", "0.16.4"}};
  for (const auto& [stack, release] : expected) {
    const FrameworkProfile* ds = deepspeed_reading(find_framework(stack));
    ASSERT_NE(ds, nullptr) << stack;
    EXPECT_EQ(ds->version, release) << stack;
  }
  EXPECT_EQ(deepspeed_reading(find_framework("megatron-lm@0.14.0")), nullptr);
  // A key that release does not read is named with the stack that admits it.
  nlohmann::json bad = deepspeed_config(Layout{});
  bad["zero_optimization"]["stage3_prefetch_bucket"] = 1;
  const Reason r = deepspeed_config_unknown(bad, find_framework("llama-factory@0.9.0"));
  EXPECT_NE(r.en.find("deepspeed@0.9.2 (the DeepSpeed llama-factory@0.9.0 admits)"), std::string::npos) << r.en;
}

// Every torchtitan version that reads a TOML job config gets its own keys
// (data/exports/torchtitan-config-keys.json), none its loader would ignore:
// 2024-04's one data-parallel degree and training.fp8_linear, 2024-12's
// [experimental] pipeline with micro-batches and split points and [float8],
// 2025-04's [parallelism] and float8 converter, 2025-10's local and global batch.
TEST(TorchtitanExport, EveryTomlVersionGetsItsOwnKeys) {
  const ModelSpec llama = find_model("llama-3.1-8b");  // 32 layers
  for (const char* version : {"2024-04", "2024-12", "2025-02", "2025-04", "2025-10"}) {
    const FrameworkProfile& v = find_framework(std::string("torchtitan@") + version);
    Layout l;
    l.tp = 2;
    l.pp = v.pp ? 4 : 1;
    l.dp = 2;
    l.micro_batch = 1;
    l.global_batch = v.pp ? 16 : 2;  // without accumulation: one micro-batch per rank unless pipelined
    l.seq_len = 4096;
    l.zero_stage = 3;
    l.precision = Precision::kFp8;
    l.recompute = Recompute::kFull;
    const std::string t = torchtitan_toml(llama, l, &v);
    const Reason unknown = torchtitan_toml_unknown(t, v);
    EXPECT_TRUE(unknown.empty()) << version << ": " << unknown.en << "\n" << t;
    const bool accumulates = std::string(version) == "2025-10";
    EXPECT_EQ(t.find("local_batch_size = 8") != std::string::npos, accumulates && l.pp > 1) << version << "\n" << t;
    EXPECT_EQ(t.find("batch_size = 8\n") != std::string::npos, l.pp > 1) << version << "\n" << t;  // a rank's 8 sequences through the pipeline
    if (l.pp > 1 && !accumulates) {
      EXPECT_NE(t.find("pipeline_parallel_split_points = [\"layers.8\", \"layers.16\", \"layers.24\"]"), std::string::npos) << version << "\n" << t;
      EXPECT_NE(t.find("pipeline_parallel_microbatches = 8"), std::string::npos) << version << "\n" << t;
    }
  }
  EXPECT_NE(torchtitan_toml(llama, Layout{}, &find_framework("torchtitan@2024-04")).find("data_parallel_degree = 1"), std::string::npos);
}

namespace {

// Megatron-DeepSpeed's and GPT-NeoX's spellings as the Megatron-LM flags
// megatron_built_params counts: microsoft/Megatron-DeepSpeed@f4157bea
// megatron/arguments.py (--num-key-value-heads l.623, --use-rotary-position-embeddings
// l.633, --normalization rmsnorm l.647; DeepSpeed-MoE experts are --ffn-hidden-size
// wide with an h × E gate, deepspeed/moe/sharded_moe.py TopKGate); GPT-NeoX v2.0's
// NeoXArgs (an MLP of 4 × hidden, every linear biased, tied unless no-weight-tying).
std::string deepspeed_stack_as_megatron(const std::vector<std::string>& args) {
  std::string out;
  std::string ffn;
  for (const std::string& a : args) {
    const std::string flag = a.substr(0, a.find(' '));
    const std::string value = a.find(' ') == std::string::npos ? "" : a.substr(a.find(' ') + 1);
    if (flag == "--ffn-hidden-size") ffn = value;
    if (flag == "--num-key-value-heads") out += "--group-query-attention\n--num-query-groups " + value + "\n";
    else if (flag == "--use-rotary-position-embeddings") out += "--position-embedding-type rope\n";
    else if (flag == "--normalization") out += "--normalization RMSNorm\n";
    else out += a + "\n";
  }
  if (out.find("--num-experts ") != std::string::npos) out += "--moe-ffn-hidden-size " + ffn + "\n";
  return out;
}

std::string neox_as_megatron(const std::vector<OverrideLine>& config) {
  std::map<std::string, std::string> y;
  for (const OverrideLine& o : config) y[o.key] = o.value;
  std::string out = "--num-layers " + y.at("num-layers") + "\n--hidden-size " + y.at("hidden-size") + "\n--num-attention-heads " +
                    y.at("num-attention-heads") + "\n--tensor-model-parallel-size " + y.at("model-parallel-size") +
                    "\n--make-vocab-size-divisible-by " + y.at("make-vocab-size-divisible-by") + "\n";
  if (y.at("norm") == "rmsnorm") out += "--normalization RMSNorm\n";
  if (y.at("pos-emb") == "rotary") out += "--position-embedding-type rope\n";
  else out += "--max-position-embeddings " + y.at("max-position-embeddings") + "\n";
  if (y.at("no-weight-tying") == "true") out += "--untie-embeddings-and-output-weights\n";
  return out;
}

}  // namespace

// Megatron-DeepSpeed writes each version's own spellings (the 2022 bigscience
// fork: --glu-activation swiglu, --position-embedding-type rotary and no
// --max-position-embeddings with it; the 2024 microsoft one: --swiglu,
// --use-rotary-position-embeddings, --num-key-value-heads), every flag one its
// parser takes, the DeepSpeed JSON beside them in one script; GPT-NeoX v2.0 a
// YAML of NeoXArgs keys. Both build the planned model, and name what they cannot.
TEST(DeepSpeedStackExports, BuildThePlannedModelWithNamesTheirVersionTakes) {
  const FrameworkProfile& m2024 = find_framework("megatron-deepspeed@2024");
  const FrameworkProfile& b2022 = find_framework("megatron-deepspeed@2022");
  const FrameworkProfile& neox = find_framework("gpt-neox@2023");
  std::set<std::string> built;
  for (const char* id : {"llama-2-7b", "mixtral-8x7b", "gpt3-175b", "llama-3.1-8b", "qwen2.5-72b"}) {
    const ModelSpec m = find_model(id);
    for (int tp : {1, 4}) {
      Layout l = layout_for(m, tp, m.layers % 4 == 0 ? 4 : 1);
      l.attention = AttentionKernel::kMaterialised;  // the 2022 fork has no flash attention
      for (const FrameworkProfile* v : {&m2024, &b2022}) {
        if (!megatron_deepspeed_gap(m, l, *v).empty()) continue;
        const std::vector<std::string> args = megatron_deepspeed_arguments(m, l, *v);
        EXPECT_TRUE(megatron_deepspeed_unknown(args, *v).empty()) << v->label() << " " << id << ": " << megatron_deepspeed_unknown(args, *v).en;
        EXPECT_EQ(megatron_built_params(deepspeed_stack_as_megatron(args), m.vocab), planned_params(m, l)) << v->label() << " " << id;
        built.insert(v->label() + " " + id);
      }
      if (neox_gap(m, l, neox).empty()) {
        const std::vector<OverrideLine> config = neox_config(m, l, launch_shape(64, 8));
        EXPECT_TRUE(neox_unknown(config, neox).empty()) << id << ": " << neox_unknown(config, neox).en;
        EXPECT_EQ(megatron_built_params(neox_as_megatron(config), m.vocab), planned_params(m, l)) << "gpt-neox " << id;
        built.insert("gpt-neox " + std::string(id));
      }
    }
  }
  EXPECT_EQ(built, (std::set<std::string>{"megatron-deepspeed@2024 llama-2-7b", "megatron-deepspeed@2024 mixtral-8x7b",
                                          "megatron-deepspeed@2024 gpt3-175b", "megatron-deepspeed@2022 gpt3-175b", "gpt-neox gpt3-175b"}));
  // What each cannot build is named: Llama 3.1's RoPE scaling, Qwen2's q/k/v-only biases;
  // the 2022 fork's missing GQA, RMSNorm, untied embeddings; NeoX v2.0's SwiGLU.
  const Layout l = layout_for(find_model("llama-3.1-8b"), 4, 4);
  EXPECT_NE(megatron_deepspeed_gap(find_model("llama-3.1-8b"), l, m2024).en.find("llama3 RoPE scaling"), std::string::npos);
  EXPECT_NE(megatron_deepspeed_gap(find_model("qwen2.5-72b"), l, m2024).en.find("q/k/v biases"), std::string::npos);
  const Reason b = megatron_deepspeed_gap(find_model("llama-2-7b"), l, b2022);
  EXPECT_NE(b.en.find("RMSNorm"), std::string::npos) << b.en;
  EXPECT_NE(b.en.find("untied embeddings"), std::string::npos) << b.en;
  EXPECT_NE(neox_gap(find_model("llama-2-7b"), l, neox).en.find("SwiGLU"), std::string::npos);
  Layout selective = layout_for(find_model("gpt3-175b"), 4, 4);
  selective.recompute = Recompute::kSelective;  // NeoX v2.0 checkpoints whole layers only
  EXPECT_NE(neox_gap(find_model("gpt3-175b"), selective, neox).en.find("selective recompute"), std::string::npos);
  // Ulysses beside Megatron's sequence parallelism is a RuntimeError in the 2024 fork.
  Layout both = layout_for(find_model("gpt3-175b"), 4, 4);
  both.cp = 2;
  EXPECT_NE(megatron_deepspeed_gap(find_model("gpt3-175b"), both, m2024).en.find("Megatron sequence parallelism"), std::string::npos);
  // One script: the JSON by heredoc, the arguments, DeepSpeed's launcher over the nodes.
  const Layout g = layout_for(find_model("gpt3-175b"), 8, 4);
  const std::vector<std::string> args = megatron_deepspeed_arguments(find_model("gpt3-175b"), g, b2022);
  EXPECT_EQ(std::find(args.begin(), args.end(), "--position-embedding-type rotary"), args.end());  // GPT-3's positions are learned
  EXPECT_NE(std::find(args.begin(), args.end(), "--max-position-embeddings 2048"), args.end());
  const std::string script = megatron_deepspeed_script(args, deepspeed_config(g).dump(2) + "\n", launch_shape(1024, 8), b2022);
  EXPECT_NE(script.find("cat > ds_config.json <<'GPUPLAN_DS_CONFIG'"), std::string::npos) << script;
  EXPECT_NE(script.find("deepspeed --num_nodes 128 --num_gpus 8 --hostfile"), std::string::npos) << script;
  EXPECT_NE(script.find("--deepspeed --deepspeed_config ds_config.json"), std::string::npos) << script;
  // A flag the version lacks is named with the commit checked.
  std::vector<std::string> bad = args;
  bad.push_back("--swiglu");  // the 2024 spelling, not the 2022 one
  const Reason r = megatron_deepspeed_unknown(bad, b2022);
  EXPECT_NE(r.en.find("--swiglu"), std::string::npos) << r.en;
  EXPECT_NE(r.en.find("0f23a729"), std::string::npos) << r.en;
}

namespace {

// The parameters the exported text builds, read back in each format's own terms.
double built_from_export(const LaunchConfig& lc, const ModelSpec& m) {
  std::vector<std::string> lines;
  std::istringstream in(lc.text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  if (lc.format == "megatron" && lc.runner.rfind("mindspeed-llm", 0) == 0) {
    const auto [flags, vocab] = mindspeed_as_megatron(lc.text);
    return megatron_built_params(flags, vocab);
  }
  if (lc.format == "megatron") return megatron_built_params(lc.text, m.vocab);  // the tokenizer's vocabulary, padded by the flags
  if (lc.format == "megatron-bridge" || lc.format == "nemo") {
    OverrideExport e;
    for (const std::string& line : lines) {
      const size_t eq = line.find('=');
      if (eq != std::string::npos) e.lines.push_back({line.substr(0, eq), line.substr(eq + 1)});
    }
    const bool nemo2 = lc.format == "nemo" && lc.runner.find("@2.") != std::string::npos;
    const auto [flags, vocab] = overrides_as_megatron(e, nemo2 ? "model.config." : "model.");
    return megatron_built_params(flags, vocab);
  }
  if (lc.format == "megatron-deepspeed") {
    std::vector<std::string> args;
    bool in_args = false;
    for (const std::string& line : lines) {
      if (line == "ARGS=(") in_args = true;
      else if (line == ")") in_args = false;
      else if (in_args) args.push_back(line.substr(line.find_first_not_of(' ')));
    }
    return megatron_built_params(deepspeed_stack_as_megatron(args), m.vocab);
  }
  std::vector<OverrideLine> config;  // gpt-neox: key: value
  for (const std::string& line : lines) {
    const size_t colon = line.find(": ");
    if (!line.empty() && line[0] != '#' && colon != std::string::npos) config.push_back({line.substr(0, colon), line.substr(colon + 2)});
  }
  return megatron_built_params(neox_as_megatron(config), m.vocab);
}

}  // namespace

// The issue's acceptance plans, for every profile version with an exporter:
// Llama-3.1-70B on 64 H100 and, where the stack runs expert parallelism,
// DeepSeek-V3 on 256 H800. Each either exports (its reader checked every name,
// the runner is the planned version, a launch line comes with it) or exits with
// one sentence; the stacks the issue names export both.
TEST(OverrideExports, EveryExporterVersionExportsTheAcceptancePlansOrSaysWhy) {
  std::set<std::string> exported, counted;
  for (const auto& family : framework_catalog()) {
    for (const FrameworkProfile& v : family.versions) {
      if (v.export_format == ExportFormat::kNone) continue;
      const bool moe = v.ep;
      for (const auto& [model, gpu, gpus] : {std::tuple{"llama-3.1-70b", "h100", 64}, std::tuple{"deepseek-v3", "h800", 256}}) {
        if (std::string(model) == "deepseek-v3" && !moe) continue;
        PlanRequest r;
        r.model = find_model(model);
        r.gpus = {find_gpu(gpu)};
        r.gpu_counts = {gpus};
        r.framework = &v;
        r.seq_len = 4096;
        try {
          const PlanRequest prepared = prepare_export(r, ExportChoice{});
          const PlanResult planned = plan(prepared);
          const LaunchConfig lc = launch_config(prepared, planned, ExportChoice{});
          EXPECT_FALSE(lc.text.empty()) << v.label() << " " << model;
          EXPECT_FALSE(lc.launch.empty()) << v.label() << " " << model;
          EXPECT_EQ(lc.runner, v.label());
          // The model the exported names build is the planned one, parameter for parameter
          // (a DeepSpeed JSON names no model; torchtitan names its Llama 3 flavor).
          const Layout& l = planned.groups.front().top[static_cast<size_t>(lc.rank - 1)].layout;
          if (lc.format == "torchtitan") {
            EXPECT_NE(lc.text.find(std::string(model) == "llama-3.1-70b" ? "flavor = \"70B\"" : "name = \"deepseek-v3\""), std::string::npos) << lc.text;
          } else if (lc.format != "deepspeed") {
            EXPECT_EQ(built_from_export(lc, r.model), planned_params(r.model, l)) << v.label() << " " << model << "\n" << lc.text;
            counted.insert(v.label() + " " + model);
          }
          exported.insert(v.label() + " " + model);
        } catch (const InputError& e) {
          const std::string what = e.what();
          EXPECT_FALSE(what.empty());
          EXPECT_EQ(what.find('\n'), std::string::npos) << what;  // one sentence
        }
      }
    }
  }
  for (const char* both : {"megatron-lm@0.19.0", "megatron-bridge@0.6.0", "nemo@2.5.0", "mindspeed-llm@2.1.0", "torchtitan@2025-10"}) {
    EXPECT_TRUE(exported.count(std::string(both) + " llama-3.1-70b")) << both;
    EXPECT_TRUE(exported.count(std::string(both) + " deepseek-v3")) << both;
  }
  EXPECT_TRUE(exported.count("deepspeed@0.10.2 llama-3.1-70b"));
  // DeepSpeed 0.16.4's best Llama layout pipelines (a DeepSpeed config cannot say so): the best one it can hold goes out.
  EXPECT_TRUE(exported.count("deepspeed@0.16.4 llama-3.1-70b"));
  EXPECT_FALSE(exported.count("nemo@24.07 llama-3.1-70b"));  // no Llama 3.1 RoPE scaling in NeMo 24.07
  // Counted back: Megatron-LM 0.10 to 0.19 (Llama) and 0.11 on (DeepSeek-V3), Megatron-Bridge, NeMo 2.5.0 and
  // MindSpeed-LLM (both), the generic profile's Megatron export (both).
  EXPECT_GE(counted.size(), 20u) << counted.size();
  EXPECT_TRUE(counted.count("megatron-bridge@0.6.0 deepseek-v3"));
  EXPECT_TRUE(counted.count("mindspeed-llm@2.1.0 deepseek-v3"));
}


// microsoft/Megatron-DeepSpeed@f4157bea refuses DeepSpeed-Ulysses beside Megatron's
// sequence parallelism (megatron/initialize.py l.247-252, a RuntimeError at start):
// its profile says so (sequence_parallel_with_cp false), so a layout with CP runs
// without SP, a stated pair is refused, and the planner ranks no such layout.
TEST(FrameworkRules, UlyssesBesideSequenceParallelWhereTheStackRefusesIt) {
  const FrameworkProfile& m2024 = find_framework("megatron-deepspeed@2024");
  EXPECT_FALSE(m2024.sequence_parallel_with_cp);
  EXPECT_TRUE(find_framework("megatron-lm@0.14.0").sequence_parallel_with_cp);
  // Its SP default is off (inherited from the 2022 entry), so the rule is tried on a copy whose default is on:
  // without the rule this layout would keep SP beside CP.
  FrameworkProfile sp_on = m2024;
  sp_on.sequence_parallel_default = true;
  Layout l = layout_for(find_model("gpt3-175b"), 4, 8);
  l.cp = 2;
  apply_framework(sp_on, RunSettings{}, l);
  EXPECT_FALSE(l.sequence_parallel);
  l.cp = 1;
  apply_framework(sp_on, RunSettings{}, l);
  EXPECT_TRUE(l.sequence_parallel);  // without CP, its default
  l.cp = 2;
  apply_framework(sp_on, RunSettings{}, l);
  EXPECT_TRUE(why_framework_cannot_run(m2024, l).empty()) << why_framework_cannot_run(m2024, l).en;
  RunSettings stated;
  stated.sequence_parallel = true;  // a stated pair stands, and is refused
  apply_framework(m2024, stated, l);
  EXPECT_TRUE(l.sequence_parallel);
  EXPECT_NE(why_framework_cannot_run(m2024, l).en.find("context parallelism beside sequence parallelism"), std::string::npos);
  PlanRequest r;
  r.model = find_model("gpt3-175b");
  r.gpus = {find_gpu("a100-80g")};
  r.gpu_counts = {1024};
  r.seq_len = 2048;
  r.framework = &m2024;
  r.top_k = 20;
  int with_cp = 0;
  const PlanResult result = plan(r);  // kept: a range-for over plan(r).groups.front() would read a destroyed temporary
  for (const PlanCandidate& c : result.groups.front().top) {
    if (c.layout.cp > 1) ++with_cp;
    EXPECT_FALSE(c.layout.cp > 1 && c.layout.sequence_parallel) << c.layout.tp << " " << c.layout.cp;
  }
  EXPECT_GT(with_cp, 0);  // CP layouts still ranked, without SP
}
