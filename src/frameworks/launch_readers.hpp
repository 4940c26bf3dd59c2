// What one version of a stack reads from a launch configuration: the option
// names of its parser (Megatron-LM's and MindSpeed-LLM's flags), the keys of
// its job config (torchtitan's section.key, DeepSpeed's, NeMo's and
// Megatron-Bridge's dotted overrides), with the commit and file they were read
// from. The lists are data (data/exports/*.json), written by the
// scripts/extract-*.py that read each stack's source at the version.
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

namespace gpuplan {

struct LaunchReader {
  std::string commit, file, format;
  std::set<std::string> names;
  // Narrower lists some readers add: NeMo 24.07's keys the code reads that its
  // YAML lacks ("+", written +key=value), NeMo 2.x's model.config keys of each
  // recipe's config class (by factory), Megatron-Bridge's MLA-only model keys
  // ("mla_only").
  std::map<std::string, std::set<std::string>> groups;
};

// data/exports/<path>: {"versions": [{version, commit, file, [format], <list>: [...]}]},
// by version. Read once per file.
const std::map<std::string, LaunchReader>& launch_readers(const std::string& path, const char* list);

// The reader of `version` in `path`; nullptr where gpuplan has none.
const LaunchReader* launch_reader(const std::string& path, const char* list, const std::string& version);

// The names of `used` that `reader` does not take, in the order met, each once.
std::string unknown_names(const LaunchReader& reader, const std::vector<std::string>& used);

}  // namespace gpuplan
