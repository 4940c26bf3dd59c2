// One flag name per input across commands (issue 31 bug 3). The same input
// once had two names (--no-flash-attention on memory and calibrate,
// --no-flash on plan), and its declarations were copied per command until
// they drifted (plan's --optimizer help had lost paged_adamw8bit, which its
// parser accepts). These tests read what the commands declare
// (visit_<command>_inputs, via declared_inputs()) and what the CLI registers
// (command_specs()), so a new command or flag is checked without a list here.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "inputs/choice_words.hpp"
#include "cli/run_cli.hpp"
#include "gpuplan/error.hpp"
#include "inputs/input_info.hpp"
#include "gpuplan/layout.hpp"

namespace gpuplan {
namespace {

std::string canonical(const InputInfo& in) {
  const std::string all = in.flags;
  return all.substr(0, all.find(','));
}

// Every long name of every option the CLI registers, with whether it is a
// switch, over all commands.
std::map<std::string, std::set<bool>> cli_option_kinds() {
  std::map<std::string, std::set<bool>> kinds;
  for (const auto& c : cli::command_specs()) {
    for (const auto& o : c.options) {
      if (!o.positional) kinds[o.name].insert(o.flag);
    }
  }
  return kinds;
}

TEST(InputNames, AFlagIsASwitchOnEveryCommandOrOnNone) {
  // A name that is a switch on one command and takes a value on another is
  // two inputs under one name.
  for (const auto& [name, kinds] : cli_option_kinds()) EXPECT_EQ(kinds.size(), 1u) << name;
}

TEST(InputNames, NoSwitchIsAnAbbreviationOfAnother) {
  // Two switches where one name is the other's first words (--no-flash and
  // --no-flash-attention) are one input under two names. Switches only: a
  // value and its refinement (--spot, --spot-discount; --gpu, --gpu-file)
  // are different inputs.
  const auto kinds = cli_option_kinds();
  std::vector<std::string> switches;
  for (const auto& [name, k] : kinds) {
    if (k.count(true)) switches.push_back(name);
  }
  for (const auto& a : switches) {
    for (const auto& b : switches) {
      if (a != b) EXPECT_NE(b.rfind(a + "-", 0), 0u) << a << " abbreviates " << b << ": one input, two names";
    }
  }
  EXPECT_EQ(kinds.count("--no-flash"), 0u);
  for (const char* command : {"memory", "calibrate", "plan"}) {
    bool found = false;
    for (const auto& c : cli::command_specs()) {
      if (c.name != command) continue;
      for (const auto& o : c.options) found = found || o.name == "--no-flash-attention";
    }
    EXPECT_TRUE(found) << command << " lacks --no-flash-attention";
  }
}

TEST(InputNames, SharedInputsAreDeclaredOnce) {
  // The inputs that mean the same on every command carry one declaration: each
  // command's help line for them is that declaration's, word for word.
  const std::map<std::string, const InputInfo*> shared = {
      {"--optimizer", &kOptimizerInput}, {"--no-flash-attention", &kNoFlashAttentionInput},
      {"--zero3-per-module", &kZero3PerModuleInput}, {"--eager", &kEagerInput}, {"--etp", &kExpertTpInput},
      {"--pipeline-layout", &kPipelineLayoutInput}};
  std::map<std::string, int> seen;
  for (const auto& d : cli::declared_inputs()) {
    for (const auto& in : d.inputs) {
      const std::string name = canonical(in);
      const auto it = shared.find(name);
      if (it != shared.end()) {
        ++seen[name];
        EXPECT_STREQ(in.help, it->second->help) << d.command << " " << name;
        EXPECT_STREQ(in.help_zh, it->second->help_zh) << d.command << " " << name;
      }
      // One GPU type is kGpuInput everywhere; plan's --gpu takes a list and says so.
      if (name == "--gpu") {
        if (d.command == "plan") EXPECT_NE(std::string(in.help).find("list"), std::string::npos);
        else EXPECT_STREQ(in.help, kGpuInput.help) << d.command;
      }
    }
  }
  EXPECT_EQ(seen["--optimizer"], 4);             // memory, calibrate, plan, finetune
  EXPECT_EQ(seen["--no-flash-attention"], 3);    // memory, calibrate, plan
}

TEST(InputNames, TheOptimizerHelpListsExactlyWhatItsParserAccepts) {
  // The values before the parenthesis of kOptimizerInput's help each parse,
  // and a neighbour not in the list does not.
  const std::string help = kOptimizerInput.help;
  const std::string list = help.substr(0, help.find(" ("));
  std::vector<std::string> values;
  size_t start = 0;
  while (start < list.size()) {
    const size_t comma = list.find(", ", start);
    values.push_back(list.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 2;
  }
  ASSERT_EQ(values.size(), 4u) << list;
  std::set<Optimizer> parsed;
  for (const auto& v : values) parsed.insert(parse_optimizer(v, "--optimizer"));
  EXPECT_EQ(parsed.size(), 4u);  // four values, four optimizers
  EXPECT_THROW(parse_optimizer("lion", "--optimizer"), InputError);
}

}  // namespace
}  // namespace gpuplan
