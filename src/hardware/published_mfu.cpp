// GPU classes and their best published MFU (data/published_mfu.json).
#include "gpuplan/published_mfu.hpp"
#include "hardware/hardware_words.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <vector>

#include "data/embedded_data.hpp"

namespace gpuplan {
namespace {

struct ClassRow {
  std::string name;
  std::vector<std::string> gpus;
  std::map<std::string, double> best;  // precision name → MFU
  std::string run, run_zh, source;
};

const std::vector<ClassRow>& classes() {
  static const std::vector<ClassRow> rows = [] {
    std::vector<ClassRow> out;
    for (const auto& f : embedded_files()) {
      if (f.path != "published_mfu.json") continue;
      const auto doc = nlohmann::json::parse(f.content);
      for (const auto& c : doc.at("classes")) {
        ClassRow r;
        r.name = c.value("class", "");
        const nlohmann::json gpus = c.value("gpus", nlohmann::json::array());
        for (const auto& g : gpus) r.gpus.push_back(g.get<std::string>());
        const nlohmann::json best = c.value("best_mfu", nlohmann::json::object());  // a named copy: items() does not extend a temporary's life
        for (const auto& [k, v] : best.items()) r.best[k] = v.get<double>();
        r.run = c.value("run", "");
        r.run_zh = c.value("run_zh", r.run);
        r.source = c.value("source", "");
        out.push_back(r);
      }
    }
    return out;
  }();
  return rows;
}

const ClassRow* class_row(const std::string& name) {
  for (const auto& r : classes()) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

}  // namespace

std::string gpu_class(const std::string& gpu_id) {
  for (const auto& r : classes()) {
    for (const auto& g : r.gpus) {
      if (g == gpu_id) return r.name;
    }
  }
  return "other";
}

std::string gpu_class_zh(const std::string& c) {
  if (c == "ascend") return "昇腾";
  if (c == "tpu") return "TPU";
  if (c == "cdna") return "CDNA 架构";
  if (c == "other" || c == "any") return "其他";
  if (c.empty()) return c;
  // NVIDIA's architecture names: ampere → Ampere 架构.
  return static_cast<char>(c[0] - 'a' + 'A') + c.substr(1) + " 架构";
}

PublishedMfu published_mfu(const std::string& gpu_id, Precision precision) {
  // fp16 and bf16 run the same tensor cores at the same peak; other
  // precisions (tf32, fp32) are held to the bf16 figure, the highest MFU runs.
  const std::string key = precision == Precision::kFp8 ? "fp8" : "bf16";
  PublishedMfu out;
  out.gpu_class = gpu_class(gpu_id);
  if (const ClassRow* r = class_row(out.gpu_class); r && r->best.count(key)) {
    out.best_mfu = r->best.at(key);
    out.from_class = true;
    out.run = r->run;
    out.run_zh = r->run_zh;
    out.source = r->source;
    return out;
  }
  if (const ClassRow* any = class_row("any"); any && any->best.count(key)) {
    out.best_mfu = any->best.at(key);
    out.run = any->run;
    out.run_zh = any->run_zh;
    out.source = any->source;
  }
  return out;
}

}  // namespace gpuplan
