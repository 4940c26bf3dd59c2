// The English-word checker of the Chinese output tests (test_chinese_output.cpp,
// test_chinese_errors.cpp): what counts as an English word in a line of zh
// text, and the allowlist of what a Chinese engineer writes in Latin letters
// too. See test_chinese_output.cpp's file comment for the rules.
#pragma once
#include <algorithm>
#include <cctype>
#include <set>
#include <string>
#include <vector>

#include "cli/run_cli.hpp"
#include "gpuplan/engine.hpp"
#include "gpuplan/framework.hpp"
#include "gpuplan/hardware.hpp"
#include "gpuplan/model.hpp"

namespace chinese_words {

using namespace gpuplan;

// Units, acronyms, names of techniques and of cited authors: what a Chinese
// engineer writes in Latin letters too. Keep it short; a word of prose is a
// defect of the zh text, not an entry here.
inline const std::set<std::string> kAllowed = {
    // units and their SI prefixes
    "FLOP", "FLOPs", "GFLOP", "TFLOP", "PFLOP", "EFLOP", "ZFLOP", "YFLOP", "MFLOP", "kFLOP", "GiB", "MiB", "KiB", "TFLOPS",
    "TiB", "GB", "TB", "MB", "KB", "kB", "PB", "Gb", "Tb", "kW", "kWh", "W", "MW", "GHz", "MHz", "token", "tokens",
    // money
    "CNY", "USD", "RMB",
    // hardware and interconnects
    "GPU", "CPU", "NPU", "HBM", "HBM2", "HBM2e", "HBM3", "HBM3e", "NVLink", "NVSwitch", "PCIe", "InfiniBand", "IB",
    "RoCE", "RDMA", "NIC", "SXM", "NVL", "TDP", "TGP", "SM", "TPU", "SRAM", "DRAM", "SSD", "NVMe", "HCCS", "CX", "NVLS", "SHARP", "busbw",
    // parts, systems, networks and tools the GPU catalog's notes and networks name
    "algbw", "GCD", "MXU", "TensorCore", "ROCm", "Grace", "Slingshot", "npu-smi", "XGMI", "ICI", "OCS", "DCN", "UB", "DGX", "HGX",
    "EDR", "HDR", "NDR", "GbE", "ConnectX", "HPE", "Cray", "EX", "Frontier", "LUMI",
    // parallelism, memory and training techniques
    "MFU", "HFU", "TP", "PP", "DP", "EP", "CP", "SP", "ETP", "VPP", "ZeRO", "FSDP", "FSDP2", "HSDP", "AdamW", "Adam",
    "SGD", "LoRA", "QLoRA", "NF4", "KV", "MoE", "GQA", "MHA", "MQA", "MLA", "Transformer", "RoPE", "SwiGLU", "GeLU", "RMSNorm",
    "LayerNorm", "FlashAttention", "GEMM", "NCCL", "HCCL", "RCCL", "hipBLASLt", "CUDA", "ViT", "LLM", "AutoTP", "Ulysses", "NVSHMEM",
    "DeepEP", "HybridEP", "EPLB", "PD", "TTFT", "TPOT", "ITL", "SLO", "RPS", "QPS", "PUE", "MTBF", "MAMF", "MSMF", "JSON", "YAML",
    "CSV", "API", "BF16", "FP8", "FP16", "FP32", "TF32", "INT8", "INT4", "AWQ", "GPTQ", "Daly", "Young", "MLP", "Logits",
    "logits", "logit", "softmax", "log-softmax", "dropout", "all-reduce", "all-to-all", "all-gather", "reduce-scatter", "Graph",
    "VP", "MAPE", "SDPA", "cuDNN", "Transformer", "GPipe", "DualPipe", "TransformerEngine", "top-k", "top",
    // the program itself (gpuplan train, gpuplan gpus 910b2: commands to type)
    "gpuplan", "id", "sdpa", "cudnn", "PyTorch", "bitsandbytes", "AutoGPTQ",
    // weight-quantisation method ids as --weight-quant takes them (gptq-int4, gguf-q4_k_m, …)
    "none", "awq", "gptq", "nf4", "gguf", "mxfp4", "nvfp4", "q4_k_m", "q8_0",
    // authors of the formulas' sources
    "Kaplan", "Rajbhandari", "Korthikanti", "Narayanan", "Micikevicius", "Hoffmann", "Chinchilla", "Dettmers",
    "Hu", "Pope", "Shoeybi", "Dao", "Kwon", "Zhong", "Patel", "Agrawal", "Chowdhery", "Smith", "Dubey", "Megatron", "PaLM",
    // organisations that publish the cited data
    "Meta", "Hugging", "Face", "CFETS", "MLPerf", "MLCommons", "Epoch", "AI", "DeepSeek", "AWS", "Azure", "IT", "HAMi", "VERL", "TechPowerUp",
    // GPU architectures (a class of parts, as vendors name them)
    "Hopper", "Ampere", "Ada", "Blackwell", "Volta", "CDNA",
};

// The tags a catalog cites its sources by, as its data writes them in
// parentheses: "(MLE-ACC)", "(VERL, LLMROOF)", "(JSZ; CHIAO)". A tag is
// capitals, digits and '-', three characters or more, with no lower-case
// letter, so "(HAMi)" or "(4 NICs per 8 GPUs)" are not tags. A GPU's note
// names its sources by these tags in both languages.
inline void add_citation_tags(const std::string& text, std::set<std::string>& tags) {
  for (size_t open = text.find('('); open != std::string::npos; open = text.find('(', open + 1)) {
    const size_t close = text.find(')', open);
    if (close == std::string::npos) return;
    std::string item;
    for (char c : text.substr(open + 1, close - open - 1) + ",") {
      if (c == ',' || c == ';') {
        while (!item.empty() && item.front() == ' ') item.erase(item.begin());
        const bool tag = item.size() >= 3 && std::isupper(static_cast<unsigned char>(item[0])) &&
                         std::all_of(item.begin(), item.end(), [](char x) { return std::isupper(static_cast<unsigned char>(x)) || std::isdigit(static_cast<unsigned char>(x)) || x == '-'; });
        if (tag) tags.insert(item);
        item.clear();
      } else {
        item += c;
      }
    }
  }
}

inline std::set<std::string> catalog_names() {
  std::set<std::string> names;
  auto add_words = [&](const std::string& text) {
    std::string w;
    for (char c : text + " ") {
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.') {
        w += c;
      } else {
        if (!w.empty()) names.insert(w);
        w.clear();
      }
    }
  };
  for (const auto& g : gpu_catalog()) {
    names.insert(g.id);
    for (const auto& a : g.aliases) names.insert(a);
    add_words(g.name);
    add_words(g.vendor);
    // The link's name (NVLink 4, Infinity Fabric, Unified Bus), not the words after it: those
    // are translated (intra_node.link_zh), as the network's description is (node.scaleout_zh).
    add_words(g.intra_link.substr(0, g.intra_link.find_first_of("(,")));
    for (const auto& [field, source] : g.sources) add_citation_tags(source, names);
    add_citation_tags(g.notes, names);
  }
  for (const auto& m : model_catalog()) {
    names.insert(m.spec.id);
    for (const auto& a : m.aliases) names.insert(a);
    add_words(m.spec.name);
  }
  for (const auto& f : framework_catalog()) {
    names.insert(f.id);
    for (const auto& a : f.aliases) names.insert(a);
    add_words(f.name);
  }
  // Providers are names (RunPod, Lambda, AutoDL), except the descriptive ones, which have a zh name;
  // a zh name keeps the provider's own name in Latin letters (Vultr（市场挂牌价）).
  for (const auto& q : price_catalog()) {
    add_words(q.provider_zh.empty() ? q.provider : q.provider_zh);
    add_citation_tags(q.source, names);
  }
  for (const auto& e : engine_catalog()) {
    names.insert(e.id);
    for (const auto& a : e.aliases) names.insert(a);
    add_words(e.name);
    for (const auto& v : e.versions) {
      names.insert(e.id + "@" + v.version);
      for (const auto& platform : v.platforms) names.insert(platform);  // vendor ids: nvidia, intel, apple, cpu
    }
  }
  // Serving engines named in reports, and the engine ids of the case format (shared/validation/README.md).
  for (const char* e : {"vLLM", "SGLang", "TensorRT-LLM", "TensorRT", "LMDeploy", "TurboMind", "MindIE", "Dynamo", "trtllm-bench", "tgi", "hf-transformers",
                        "llama.cpp", "deepspeed-mii", "fastertransformer", "mlc-llm", "exllamav2", "mindie"}) names.insert(e);
  return names;
}

inline bool has_digit(const std::string& s) {
  for (char c : s) {
    if (std::isdigit(static_cast<unsigned char>(c))) return true;
  }
  return false;
}
inline bool ascii_letters_only(const std::string& s) {
  for (char c : s) {
    if (!std::isalpha(static_cast<unsigned char>(c))) return false;
  }
  return !s.empty();
}

// Splits at bytes that cannot be inside an id, a flag or a URL (spaces, CJK, punctuation).
inline std::vector<std::string> tokens_of(const std::string& line) {
  std::vector<std::string> out;
  std::string t;
  for (size_t i = 0; i <= line.size(); ++i) {
    const unsigned char c = i < line.size() ? static_cast<unsigned char>(line[i]) : ' ';
    const bool keep = c < 0x80 && (std::isalnum(c) || std::string("-_./@+:%=#&?~").find(static_cast<char>(c)) != std::string::npos);
    if (keep) {
      t += static_cast<char>(c);
    } else {
      // Trailing sentence punctuation is not part of the token.
      while (!t.empty() && std::string(".:").find(t.back()) != std::string::npos) t.pop_back();
      if (!t.empty()) out.push_back(t);
      t.clear();
    }
  }
  return out;
}

// A quoted source stays in the language it was published in, labelled as
// such: "来源：" up to the closing full-width parenthesis (or the end of the
// line) is the citation, not gpuplan's text, and is not scanned.
inline std::string without_quoted_sources(std::string line) {
  static const std::string label = "来源：", close = "）";
  for (size_t at = line.find(label); at != std::string::npos; at = line.find(label, at)) {
    const size_t end = line.find(close, at);
    line.erase(at, end == std::string::npos ? std::string::npos : end - at);
  }
  return line;
}

// The English words of a line of Chinese output (see the file comment).
inline std::vector<std::string> english_words(const std::string& line, const std::set<std::string>& names) {
  std::vector<std::string> bad;
  const std::vector<std::string> toks = tokens_of(without_quoted_sources(line));
  for (size_t i = 0; i < toks.size(); ++i) {
    const std::string& t = toks[i];
    if (t.rfind("-", 0) == 0) {
      if (t.rfind("--", 0) == 0 && t.find('=') == std::string::npos && i + 1 < toks.size() && toks[i + 1] != "gpuplan") ++i;  // the flag's value
      continue;
    }
    if (t == "gpuplan" && i + 1 < toks.size()) {  // a command to type: gpuplan frameworks
      ++i;
      continue;
    }
    if (names.count(t) || kAllowed.count(t)) continue;
    if (t.find('.') != std::string::npos || t.find('_') != std::string::npos || t.find('@') != std::string::npos) continue;  // URLs, files, keys
    // A GitHub issue cited as repository#number (nccl-tests#119): a citation, like a URL.
    if (const size_t hash = t.rfind('#'); hash != std::string::npos && hash > 0 && hash + 1 < t.size() &&
                                          std::all_of(t.begin() + static_cast<std::ptrdiff_t>(hash) + 1, t.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
      continue;
    }
    if (has_digit(t) && t.find('-') == std::string::npos) continue;  // an id or a number: a100, fp8, 6·N
    // Megatron's stage-layout syntax (Et*4|(t*4|)*14tmL): only its letters E, t, m, L.
    if (t.size() > 1 && t.find_first_not_of("EtmL") == std::string::npos && t.find('t') != std::string::npos) continue;
    std::string part;
    for (char c : t + "/") {
      if (c == '-' || c == '/' || c == '_' || c == ':' || c == '+' || c == '=' || c == '%' || c == '&' || c == '?' || c == '#' || c == '~') {
        if (part.size() > 1 && ascii_letters_only(part) && !names.count(part) && !kAllowed.count(part)) bad.push_back(part);
        part.clear();
      } else {
        part += c;
      }
    }
  }
  return bad;
}

struct CliRun {
  int status = -1;
  std::string out, err;
};
inline CliRun run_cli(const std::vector<std::string>& args) {
  std::vector<std::string> all = {"gpuplan"};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  CliRun r;
  r.status = cli::run_cli(static_cast<int>(argv.size()), argv.data(), &r.out, &r.err);
  return r;
}

}  // namespace chinese_words
