// The built-in model catalog (data/models/*.json, embedded at build time) and
// the lookup of a user's --model argument.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "data/embedded_data.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/model.hpp"
#include "units/text_match.hpp"
#include "gpuplan/units.hpp"
#include "units/json_input.hpp"
#include "model/hf_config.hpp"

namespace gpuplan {
namespace {


CatalogModel load_catalog_entry(const EmbeddedFile& file) {
  const nlohmann::json config = nlohmann::json::parse(file.content);
  const nlohmann::json meta = config.value("gpuplan", nlohmann::json::object());
  CatalogModel entry;
  entry.spec = model_from_hf_config(config, "data/" + file.path);
  entry.spec.id = json_string_or(meta, "id");
  entry.spec.name = json_string_or(meta, "name", entry.spec.id);
  entry.spec.source = json_string_or(meta, "source", "data/" + file.path);
  entry.spec.params_official = json_number_or(meta, "params_official");
  entry.spec.active_params_official = json_number_or(meta, "active_params_official");
  entry.hf_repo = json_string_or(meta, "hf_repo");
  entry.notes = json_string_or(meta, "notes");
  for (const auto& a : meta.value("aliases", nlohmann::json::array())) {
    if (a.is_string()) entry.aliases.push_back(normalize_name(a.get<std::string>()));
  }
  if (!entry.hf_repo.empty() && entry.hf_repo != "none") entry.aliases.push_back(normalize_name(entry.hf_repo));
  return entry;
}

}  // namespace

std::optional<ModelSpec> find_catalog_model(const std::string& name) {
  const std::string key = normalize_name(name);
  for (const auto& e : model_catalog()) {
    if (e.spec.id == key) return e.spec;
    for (const auto& a : e.aliases) {
      if (a == key) return e.spec;
    }
  }
  return std::nullopt;
}

const std::vector<CatalogModel>& model_catalog() {
  static const std::vector<CatalogModel> catalog = [] {
    std::vector<CatalogModel> out;
    for (const auto& f : embedded_files()) {
      if (f.path.rfind("models/", 0) == 0) out.push_back(load_catalog_entry(f));
    }
    std::sort(out.begin(), out.end(),
              [](const CatalogModel& a, const CatalogModel& b) { return a.spec.id < b.spec.id; });
    return out;
  }();
  return catalog;
}

namespace {

ModelSpec load_config_file(const std::filesystem::path& path) {
  // A config.json is a few kilobytes; a file far larger is not one (and is not read whole).
  constexpr std::uintmax_t kMaxConfigBytes = 16u << 20;
  std::error_code size_ec;
  if (const std::uintmax_t size = std::filesystem::file_size(path, size_ec); !size_ec && size > kMaxConfigBytes) {
    throw InputError("--model", fmt::format("--model: {} is {} bytes, far larger than any config.json (at most 16 MiB is read).", path.string(), size),
                     fmt::format("--model：{} 有 {} 字节，远大于任何 config.json（最多读取 16 MiB）。", path.string(), size));
  }
  std::ifstream in(path);
  if (!in) throw InputError("--model", fmt::format("--model: cannot read {}.", path.string()), fmt::format("--model：无法读取 {}。", path.string()));
  std::stringstream buffer;
  buffer << in.rdbuf();
  nlohmann::json config;
  try {
    config = parse_json_input(buffer.str(), "--model", "--model: " + path.string());
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError("config.json", fmt::format("--model: {} is not valid JSON (error at byte {}); fix the file or pass a catalog model id.",
                                                path.string(), e.byte),
                     fmt::format("--model：{} 不是合法的 JSON（第 {} 字节出错）；请修正文件，或改用模型目录中的 id。", path.string(), e.byte));
  }
  ModelSpec m = model_from_hf_config(config, path.string());
  if (m.name == path.string()) {
    // No name field: a file called config.json is named after its folder (where
    // `huggingface-cli download --local-dir` puts it; "./config.json" too, read
    // from the absolute path, not "."), any other file after itself.
    std::error_code abs_ec;
    const std::filesystem::path abs = std::filesystem::absolute(path, abs_ec).lexically_normal();
    const std::filesystem::path& p = abs_ec ? path : abs;
    m.name = p.filename() == "config.json" ? p.parent_path().filename().string() : p.stem().string();
    if (m.name.empty()) m.name = p.stem().string();
  }
  m.id = normalize_name(m.name);
  return m;
}

}  // namespace

ModelSpec find_model(const std::string& name_or_path) {
  const std::string key = normalize_name(name_or_path);
  std::error_code ec;
  const std::filesystem::path path(name_or_path);
  // A config that exists on disk wins over a catalog name, as transformers'
  // from_pretrained resolves a local folder first (utils/hub.py cached_file:
  // os.path.isdir(path_or_repo_id)): `huggingface-cli download --local-dir
  // Qwen2.5-7B-Instruct` leaves a folder of the catalog's name, and its edits
  // must be what is read.
  if (std::filesystem::is_directory(path, ec) && std::filesystem::exists(path / "config.json", ec)) return load_config_file(path / "config.json");
  if (std::filesystem::is_regular_file(path, ec)) return load_config_file(path);
  std::vector<std::string> names;
  for (const auto& entry : model_catalog()) {
    if (entry.spec.id == key) return entry.spec;
    for (const auto& a : entry.aliases) {
      if (a == key) return entry.spec;
    }
    names.push_back(entry.spec.id);
  }
  if (std::filesystem::is_directory(path, ec)) {
    const auto config = path / "config.json";
    if (!std::filesystem::exists(config, ec)) {
      throw InputError("--model", fmt::format("--model: the folder {} holds no config.json.", name_or_path),
                       fmt::format("--model：文件夹 {} 里没有 config.json。", name_or_path));
    }
    return load_config_file(config);
  }

  const auto near = closest_names(name_or_path, names);
  throw InputError("--model",
                   fmt::format("--model: '{}' is neither a catalog model nor a config.json file{}; "
                               "'gpuplan models' lists the catalog.",
                               name_or_path, near.empty() ? "" : " (did you mean " + join(near, ", ") + "?)"),
                   fmt::format("--model：'{}' 既不是模型目录中的模型，也不是 config.json 文件{}；gpuplan models 列出模型目录。",
                               name_or_path, near.empty() ? "" : "（是否指 " + join(near, "、") + "？）"));
}

ModelSpec choose_model(const std::string& name_or_path, std::optional<double> params, const std::optional<ModelSpec>& built) {
  const int given = (name_or_path.empty() ? 0 : 1) + (params ? 1 : 0) + (built ? 1 : 0);
  if (given == 0) {
    throw InputError("--model", "--model is required: a catalog id (gpuplan models), a config.json, or --params 7B.",
                     "缺少 --model：请给出模型目录中的 id（gpuplan models 列出全部）、一个 config.json，或 --params 7B。");
  }
  if (given > 1) {
    throw InputError("--model", "--model and --params both describe the model; give only one of them.", "--model 和 --params 都是在描述模型，只能给其中一个。");
  }
  if (built) return *built;
  if (params) {
    require_range(*params, 1e3, 1e15, "--params", "a parameter count from 1e3 to 1e15 (e.g. 7B, 70e9)", "1e3 到 1e15 之间的参数量（如 7B、70e9）");
    return model_from_param_count(*params);
  }
  return find_model(name_or_path);
}

}  // namespace gpuplan
