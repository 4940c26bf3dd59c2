#include "frameworks/launch_readers.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <mutex>
#include <utility>
#include <vector>

#include "data/embedded_data.hpp"
#include "units/text_match.hpp"

namespace gpuplan {

namespace {

std::map<std::string, LaunchReader> read_launch_readers(const std::string& path, const char* list) {
  std::map<std::string, LaunchReader> out;
  for (const auto& f : embedded_files()) {
    if (f.path != path) continue;
    const nlohmann::json j = nlohmann::json::parse(f.content);
    for (const auto& v : j.at("versions")) {
      LaunchReader r{v.at("commit").get<std::string>(), v.at("file").get<std::string>(), v.value("format", std::string("flags")), {}};
      for (const auto& name : v.at(list)) r.names.insert(name.get<std::string>());
      if (v.contains("read_keys_not_in_yaml")) {
        for (const auto& name : v.at("read_keys_not_in_yaml")) r.groups["+"].insert(name.get<std::string>());
      }
      if (v.contains("mla_only_keys")) {
        for (const auto& name : v.at("mla_only_keys")) r.groups["mla_only"].insert(name.get<std::string>());
      }
      if (v.contains("recipes") && v.at("recipes").is_array()) {
        for (const auto& recipe : v.at("recipes")) {
          auto& keys = r.groups[recipe.at("factory").get<std::string>()];
          for (const auto& name : recipe.at("model_config_keys")) keys.insert(name.get<std::string>());
        }
      }
      out[v.at("version").get<std::string>()] = std::move(r);
    }
  }
  return out;
}

}  // namespace

const std::map<std::string, LaunchReader>& launch_readers(const std::string& path, const char* list) {
  // A handful of small files, each parsed once; the map is never modified
  // after its entry is made, so references stay valid.
  static std::mutex lock;
  static std::map<std::string, std::map<std::string, LaunchReader>> cache;
  const std::lock_guard<std::mutex> hold(lock);
  auto it = cache.find(path);
  if (it == cache.end()) it = cache.emplace(path, read_launch_readers(path, list)).first;
  return it->second;
}

const LaunchReader* launch_reader(const std::string& path, const char* list, const std::string& version) {
  const auto& readers = launch_readers(path, list);
  const auto it = readers.find(version);
  return it == readers.end() ? nullptr : &it->second;
}

std::string unknown_names(const LaunchReader& reader, const std::vector<std::string>& used) {
  std::vector<std::string> missing;
  for (const std::string& n : used) {
    if (!reader.names.count(n) && std::find(missing.begin(), missing.end(), n) == missing.end()) missing.push_back(n);
  }
  return join(missing, ", ");
}

}  // namespace gpuplan
