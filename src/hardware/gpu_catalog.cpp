// The accelerator catalog (data/gpus.json) and the lookup of --gpu.
#include <cmath>
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "data/embedded_data.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/hardware.hpp"
#include "units/text_match.hpp"
#include "gpuplan/units.hpp"
#include "units/json_input.hpp"
#include "hardware/hardware_words.hpp"

namespace gpuplan {

const char* precision_name(Precision p) {
  switch (p) {
    case Precision::kFp32: return "fp32";
    case Precision::kTf32: return "tf32";
    case Precision::kBf16: return "bf16";
    case Precision::kFp16: return "fp16";
    case Precision::kFp8: return "fp8";
    case Precision::kInt8: return "int8";
  }
  return "?";
}

Precision parse_precision(const std::string& text, const std::string& field) {
  const std::string t = normalize_name(text);
  if (t == "fp32" || t == "float32") return Precision::kFp32;
  if (t == "tf32") return Precision::kTf32;
  if (t == "bf16" || t == "bfloat16") return Precision::kBf16;
  if (t == "fp16" || t == "float16" || t == "half") return Precision::kFp16;
  if (t == "fp8" || t == "e4m3") return Precision::kFp8;
  if (t == "int8") return Precision::kInt8;
  throw InputError(field, fmt::format("{} must be one of fp32, tf32, bf16, fp16, fp8, int8 (got '{}').", field, text),
                   fmt::format("{} 须为 fp32、tf32、bf16、fp16、fp8、int8 之一（输入为 '{}'）。", field, text));
}

double GpuSpec::peak(Precision p) const {
  auto it = peak_flop_per_s.find(p);
  if (it == peak_flop_per_s.end()) {
    std::vector<std::string> have;
    for (const auto& [q, v] : peak_flop_per_s) have.push_back(precision_name(q));
    throw InputError("--precision", fmt::format("--precision: {} has no {} tensor-core path; it supports {}.", id,
                                                precision_name(p), join(have, ", ")),
                     fmt::format("--precision：{} 的张量核心不支持 {}；它支持 {}。", id, precision_name(p), join(have, "、")));
  }
  return it->second;
}

namespace {

// The architectures attention_kernels.cpp knows (ampere and hopper have
// measured tables; ada runs Ampere's kernels; the rest borrow Hopper's).
constexpr const char* kArchitectures[] = {"volta", "ampere", "ada", "hopper", "blackwell", "cdna2", "cdna3", "davinci", "tpu"};

std::vector<std::string> architecture_names() { return {std::begin(kArchitectures), std::end(kArchitectures)}; }

std::string string_or(const nlohmann::json& j, const char* key, const std::string& fallback) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return fallback;
  return it->get<std::string>();
}

double number_or(const nlohmann::json& j, const char* key, double fallback) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null() || !it->is_number()) return fallback;
  return it->get<double>();
}

GpuSpec parse_gpu(const nlohmann::json& j, const std::string& origin) {
  GpuSpec g;
  if (!j.is_object() || !j.contains("id") || !j["id"].is_string()) {
    throw InputError("--gpu-file", fmt::format("{}: every GPU entry needs a string \"id\".", origin),
                     fmt::format("{}：每个 GPU 条目都要有字符串类型的 \"id\"。", origin));
  }
  g.id = normalize_name(j["id"].get<std::string>());
  g.name = string_or(j, "name", g.id);
  g.vendor = string_or(j, "vendor", "");
  // No fallback (issue 31): a GPU without its SM count once took the A100's
  // 108 from a prefix table, silently, for five catalog parts.
  g.architecture = string_or(j, "architecture", "");
  if (std::find(std::begin(kArchitectures), std::end(kArchitectures), g.architecture) == std::end(kArchitectures)) {
    throw InputError("--gpu-file", fmt::format("{}: GPU '{}' needs architecture, one of {} (got '{}').", origin, g.id, join(architecture_names(), ", "), g.architecture),
                     fmt::format("{}：GPU '{}' 需要 architecture，取值为 {} 之一（输入为 '{}'）。", origin, g.id, join(architecture_names(), "、"), g.architecture));
  }
  const double units = number_or(j, "compute_units", 0);
  if (!(units >= 1 && units <= 10000 && units == std::floor(units))) {
    throw InputError("--gpu-file", fmt::format("{}: GPU '{}' needs compute_units, a whole number from 1 to 10000: the SMs (NVIDIA), compute units (AMD), AI cores (Ascend) or MXUs (TPU) a GEMM's tiles spread over.", origin, g.id),
                     fmt::format("{}：GPU '{}' 需要 compute_units，1 到 10000 的整数：GEMM 分块所分布的 SM（NVIDIA）、计算单元（AMD）、AI Core（昇腾）或 MXU（TPU）个数。", origin, g.id));
  }
  g.compute_units = static_cast<int>(units);
  const double mem_gib = number_or(j, "memory_gib", 0);
  const double hbm_tbps = number_or(j, "hbm_tbps", 0);
  if (!(mem_gib > 0 && mem_gib < 1e5)) {
    throw InputError("--gpu-file", fmt::format("{}: GPU '{}' needs memory_gib, a positive number of GiB.", origin, g.id),
                     fmt::format("{}：GPU '{}' 需要 memory_gib，即正的显存 GiB 数。", origin, g.id));
  }
  if (!(hbm_tbps > 0 && hbm_tbps < 1e3)) {
    throw InputError("--gpu-file", fmt::format("{}: GPU '{}' needs hbm_tbps, a positive memory bandwidth in TB/s.", origin, g.id),
                     fmt::format("{}：GPU '{}' 需要 hbm_tbps，即正的显存带宽（TB/s）。", origin, g.id));
  }
  g.memory_bytes = mem_gib * kGiB;
  g.hbm_bytes_per_s = hbm_tbps * kTera;
  const auto peaks = j.value("peak_tflops", nlohmann::json::object());
  const std::pair<const char*, Precision> kinds[] = {{"fp32", Precision::kFp32}, {"tf32", Precision::kTf32},
                                                     {"bf16", Precision::kBf16}, {"fp16", Precision::kFp16},
                                                     {"fp8", Precision::kFp8},   {"int8", Precision::kInt8}};
  for (const auto& [key, p] : kinds) {
    const double v = number_or(peaks, key, 0);
    if (v > 0 && v < 1e6) g.peak_flop_per_s[p] = v * kTera;
  }
  if (!g.has(Precision::kBf16) && !g.has(Precision::kFp16)) {
    throw InputError("--gpu-file", fmt::format("{}: GPU '{}' needs peak_tflops.bf16 or peak_tflops.fp16 (dense TFLOP/s).", origin, g.id),
                     fmt::format("{}：GPU '{}' 需要 peak_tflops.bf16 或 peak_tflops.fp16（稠密 TFLOP/s）。", origin, g.id));
  }
  if (j.contains("intra_node") && j["intra_node"].is_object()) {
    const auto& link = j["intra_node"];
    if (link.contains("link") && link["link"].is_string()) g.intra_link = link["link"].get<std::string>();
    g.intra_link_zh = string_or(link, "link_zh", "");
    g.intra_bytes_per_s = number_or(link, "uni_gbytes_per_s", 0) * kGB;
    g.intra_switched = link.contains("switched") && link["switched"].is_boolean() && link["switched"].get<bool>();
  }
  g.pcie_gen = static_cast<int>(number_or(j, "pcie_gen", 0));
  g.tdp_w = number_or(j, "tdp_w", 0);
  if (j.contains("nvlink_domain_gpus")) {
    // It was once written at the top level, where nothing read it, and GB200
    // NVL72 ran as 4-GPU trays (issue 28): a misplaced key is refused.
    throw InputError("--gpu-file", fmt::format("{}: GPU '{}': nvlink_domain_gpus belongs under node.", origin, g.id),
                     fmt::format("{}：GPU '{}'：nvlink_domain_gpus 应写在 node 之下。", origin, g.id));
  }
  if (j.contains("node") && j["node"].is_object()) {
    const auto& node = j["node"];
    g.gpus_per_node = static_cast<int>(number_or(node, "gpus_per_node", 8));
    g.scaleout_bytes_per_s = number_or(node, "scaleout_gbit_per_s_per_gpu", 0) * 1e9 / 8;
    g.scaleout = string_or(node, "scaleout", "");
    g.scaleout_zh = string_or(node, "scaleout_zh", "");
    g.nvlink_domain_gpus = static_cast<int>(number_or(node, "nvlink_domain_gpus", 0));
  }
  if (g.gpus_per_node < 1 || g.gpus_per_node > 1024) g.gpus_per_node = 8;
  g.gemm_efficiency = number_or(j, "gemm_efficiency", 0);
  g.gemm_sustained_efficiency = number_or(j, "gemm_sustained_efficiency", 0);
  g.gemm_efficiency_fp8 = number_or(j, "gemm_efficiency_fp8", 0);
  g.blas_fp8_decode_hbm_efficiency = number_or(j, "blas_fp8_decode_hbm_efficiency", 0);
  for (const auto& [key, v] : {std::pair{"gemm_efficiency", g.gemm_efficiency}, std::pair{"gemm_sustained_efficiency", g.gemm_sustained_efficiency},
                               std::pair{"gemm_efficiency_fp8", g.gemm_efficiency_fp8},
                               std::pair{"blas_fp8_decode_hbm_efficiency", g.blas_fp8_decode_hbm_efficiency}}) {
    if (!(v >= 0 && v <= 1)) {
      throw InputError("--gpu-file", fmt::format("{}: GPU '{}' has {} {}; it is a fraction of peak between 0 and 1 (0 or absent: unmeasured).", origin, g.id, key, v),
                       fmt::format("{}：GPU '{}' 的 {} 为 {}；它应是占峰值的比例，在 0 到 1 之间（0 或不写表示未实测）。", origin, g.id, key, v));
    }
  }
  g.allreduce_busbw_bytes_per_s = number_or(j, "allreduce_busbw_gbytes_per_s", 0) * kGB;
  if (j.contains("allreduce_curve") && j["allreduce_curve"].is_object()) {
    const auto& c = j["allreduce_curve"];
    const auto bytes = c.value("bytes", nlohmann::json::array());
    const auto busbw = c.value("busbw_gbytes_per_s", nlohmann::json::array());
    bool ok = bytes.is_array() && busbw.is_array() && bytes.size() == busbw.size() && !bytes.empty();
    for (size_t i = 0; ok && i < bytes.size(); ++i) {
      ok = bytes[i].is_number() && busbw[i].is_number() && bytes[i].get<double>() > 0 && busbw[i].get<double>() > 0 &&
           (i == 0 || bytes[i].get<double>() > bytes[i - 1].get<double>());
      if (ok) g.allreduce_curve.push_back({bytes[i].get<double>(), busbw[i].get<double>() * kGB});
    }
    if (!ok) {
      throw InputError("--gpu-file", fmt::format("{}: GPU '{}' allreduce_curve needs equal-length lists bytes (increasing) and busbw_gbytes_per_s, all positive.", origin, g.id),
                       fmt::format("{}：GPU '{}' 的 allreduce_curve 须为等长的 bytes（递增）与 busbw_gbytes_per_s 两个列表，且均为正数。", origin, g.id));
    }
  }
  if (j.contains("sources") && j["sources"].is_object()) {
    for (const auto& [k, v] : j["sources"].items()) {
      if (v.is_string()) g.sources[k] = v.get<std::string>();
    }
  }
  if (j.contains("memory_variants") && j["memory_variants"].is_array()) {
    for (const auto& v : j["memory_variants"]) {
      GpuSpec::MemoryVariant mv;
      mv.memory_bytes = number_or(v, "memory_gib", 0) * kGiB;
      mv.hbm_bytes_per_s = number_or(v, "hbm_tbps", 0) * kTera;
      mv.memory_type = string_or(v, "memory_type", "");
      mv.source = string_or(v, "source", "");
      if (!(mv.memory_bytes > 0 && mv.hbm_bytes_per_s > 0)) {
        throw InputError("--gpu-file", fmt::format("{}: GPU '{}' has a memory variant without a positive memory_gib and hbm_tbps.", origin, g.id),
                         fmt::format("{}：GPU '{}' 有一个显存版本缺少正的 memory_gib 和 hbm_tbps。", origin, g.id));
      }
      g.memory_variants.push_back(mv);
    }
  }
  g.notes = string_or(j, "notes", "");
  g.notes_zh = string_or(j, "notes_zh", "");
  for (const auto& a : j.value("aliases", nlohmann::json::array())) {
    if (a.is_string()) g.aliases.push_back(normalize_name(a.get<std::string>()));
  }
  return g;
}

// data/gpus.json, parsed once; never changed afterwards.
const std::vector<GpuSpec>& builtin_catalog() {
  static const std::vector<GpuSpec> catalog = [] {
    std::vector<GpuSpec> out;
    for (const auto& f : embedded_files()) {
      if (f.path != "gpus.json") continue;
      const auto doc = nlohmann::json::parse(f.content);
      for (const auto& j : doc.at("gpus")) out.push_back(parse_gpu(j, "data/gpus.json"));
    }
    return out;
  }();
  return catalog;
}

// The catalogs --gpu-file made for the command running on this thread, the
// last one in force (issue 31 bug 1: a file once appended to the one global
// catalog, so in the Python module every later call, in every thread, still
// saw the user's GPU). Earlier ones are kept until the command ends, because
// a GpuSpec& from find_gpu may still be held.
thread_local std::vector<std::unique_ptr<const std::vector<GpuSpec>>> t_user_catalogs;

}  // namespace

const std::vector<GpuSpec>& gpu_catalog() { return t_user_catalogs.empty() ? builtin_catalog() : *t_user_catalogs.back(); }

UserGpuScope::UserGpuScope() : outer_depth_(t_user_catalogs.size()) {}

UserGpuScope::~UserGpuScope() { t_user_catalogs.resize(outer_depth_); }

void load_user_gpu_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError("--gpu-file", fmt::format("--gpu-file: cannot read {}.", path), fmt::format("--gpu-file：无法读取 {}。", path));
  std::stringstream buffer;
  buffer << in.rdbuf();
  nlohmann::json doc;
  try {
    doc = parse_json_input(buffer.str(), "--gpu-file", "--gpu-file: " + path);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError("--gpu-file", fmt::format("--gpu-file: {} is not valid JSON (byte {}).", path, e.byte),
                     fmt::format("--gpu-file：{} 不是合法的 JSON（第 {} 字节）。", path, e.byte));
  }
  const nlohmann::json list = doc.is_object() && doc.contains("gpus") ? doc["gpus"] : doc;
  if (!list.is_array()) {
    throw InputError("--gpu-file", fmt::format("--gpu-file: {} must hold {{\"gpus\": [...]}} or an array of GPU objects.", path),
                     fmt::format("--gpu-file：{} 的内容须为 {{\"gpus\": [...]}} 或 GPU 对象的数组。", path));
  }
  auto catalog = std::make_unique<std::vector<GpuSpec>>(gpu_catalog());
  for (const auto& j : list) {
    GpuSpec g = parse_gpu(j, path);
    auto it = std::find_if(catalog->begin(), catalog->end(), [&](const GpuSpec& x) { return x.id == g.id; });
    if (it != catalog->end()) *it = std::move(g);
    else catalog->push_back(std::move(g));
  }
  t_user_catalogs.push_back(std::move(catalog));
}

namespace {

// The name as nvidia-smi --query-gpu=name prints it ("NVIDIA H100 80GB HBM3",
// "NVIDIA A800-SXM4-80GB", "NVIDIA GeForce RTX 4090", "Tesla V100-SXM2-32GB"):
// without the vendor word in front and the memory type behind, it is an id
// or an alias of the catalog.
std::string without_vendor_words(std::string key) {
  for (const char* prefix : {"nvidia-", "tesla-", "amd-", "huawei-"}) {
    const std::string p(prefix);
    if (key.size() > p.size() && key.compare(0, p.size(), p) == 0) key.erase(0, p.size());
  }
  for (const char* suffix : {"-hbm3e", "-hbm3", "-hbm2e", "-hbm2"}) {
    const std::string x(suffix);
    if (key.size() > x.size() && key.compare(key.size() - x.size(), x.size(), x) == 0) key.erase(key.size() - x.size());
  }
  return key;
}

}  // namespace

const GpuSpec& find_gpu(const std::string& typed) {
  const std::string& name = typed;
  const std::string key = without_vendor_words(normalize_name(typed));
  const auto& catalog = gpu_catalog();
  for (const auto& g : catalog) {
    if (g.id == key) return g;
  }
  std::vector<const GpuSpec*> alias_hits;
  for (const auto& g : catalog) {
    if (std::find(g.aliases.begin(), g.aliases.end(), key) != g.aliases.end()) alias_hits.push_back(&g);
  }
  if (alias_hits.size() == 1) return *alias_hits.front();
  // Nothing exact: a prefix of several ids ("a100") is ambiguous, of one id is that id.
  std::vector<const GpuSpec*> prefix_hits = alias_hits;
  if (prefix_hits.empty()) {
    for (const auto& g : catalog) {
      if (!key.empty() && g.id.rfind(key, 0) == 0) prefix_hits.push_back(&g);
    }
  }
  if (prefix_hits.size() == 1) return *prefix_hits.front();
  if (prefix_hits.size() > 1) {
    std::vector<std::string> ids;
    for (const auto* g : prefix_hits) ids.push_back(g->id);
    throw InputError("--gpu", fmt::format("--gpu: '{}' is ambiguous; it could be {}. Name one of them.", name,
                                          join(ids, ", ")),
                     fmt::format("--gpu：'{}' 有歧义，可能是 {}，请写明其中一个。", name, join(ids, "、")));
  }
  std::vector<std::string> names;
  for (const auto& g : catalog) names.push_back(g.id);
  const auto near = closest_names(name, names);
  throw InputError("--gpu", fmt::format("--gpu: unknown GPU '{}'{}; 'gpuplan gpus' lists the catalog, and --gpu-file adds your own.",
                                        name, near.empty() ? "" : " (did you mean " + join(near, ", ") + "?)"),
                   fmt::format("--gpu：未知的 GPU '{}'{}；gpuplan gpus 列出目录中的全部 GPU，--gpu-file 可加入自己的。", name,
                               near.empty() ? "" : "（是否指 " + join(near, "、") + "？）"));
}

Cluster default_cluster(const GpuSpec& gpu) {
  Cluster c;
  c.gpu = gpu;
  c.gpus_per_node = gpu.gpus_per_node;
  c.scaleout_bytes_per_s = gpu.scaleout_bytes_per_s;
  return c;
}

void set_gpu_memory(GpuSpec& gpu, double memory_bytes, bool bandwidth_given) {
  gpu.memory_bytes = memory_bytes;
  if (bandwidth_given) return;
  for (const GpuSpec::MemoryVariant& v : gpu.memory_variants) {
    if (std::abs(v.memory_bytes - memory_bytes) <= 0.03 * v.memory_bytes) gpu.hbm_bytes_per_s = v.hbm_bytes_per_s;
  }
}

}  // namespace gpuplan
