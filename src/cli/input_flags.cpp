#include "input_flags.hpp"

#include <map>

namespace gpuplan::cli {

namespace {

// A unit of the declared inputs as the Chinese --help writes it.
const char* unit_zh(const char* unit) {
  static const std::map<std::string, const char*> zh = {
      {"bytes", "字节"}, {"tokens", "token"}, {"fraction of compute", "占计算时间的比例"}, {"hours", "小时"}, {"minutes", "分钟"},
      {"seconds", "秒"}, {"ms", "毫秒"}, {"GB/s", "GB/s"}, {"GiB", "GiB"}, {"GPUs", "卡"}, {"fraction", "比例"},
      {"fraction of GPU-hours", "占卡时的比例"}, {"fraction of allocated bytes", "占已分配显存的比例"}, {"fraction of capacity", "占显存容量的比例"},
      {"result currency", "结果币种"}, {"years", "年"}, {"kW", "kW"}, {"ratio", "比值"}, {"result currency per kWh", "结果币种/kWh"},
      {"result currency per kW-month", "结果币种/(kW·月)"}, {"result currency per year", "结果币种/年"}, {"nodes", "节点"},
      {"fraction per year", "每年比例"}, {"probability", "概率"}, {"layers", "层"}, {"sequences", "条序列"}, {"ranks", "个 rank"},
      {"tokens/s", "token/秒"}, {"requests/s", "请求/秒"}, {"weights", "个权重"}, {"layouts", "个方案"}};
  const auto it = zh.find(unit);
  return it == zh.end() ? unit : it->second;
}

}  // namespace

std::string input_help(const InputInfo& input) { return help_text(input.help, *input.help_zh ? input.help_zh : input.help); }

std::string input_type_name(const std::string& type, const char* unit) {
  // CLI11 translates only the type names it writes itself (localize_help), not one set here.
  const std::string type_zh = type == "FLOAT" ? "数值" : type == "INT" ? "整数" : type == "UINT" ? "非负整数" : type == "TEXT" ? "文本" : type;
  return help_lang() == Lang::kZh ? type_zh + "（" + unit_zh(unit) + "）" : type + " (" + unit + ")";
}

void add_model_flag(CLI::App* cmd, std::string* model) { BindInputs{cmd}(kModelInput, *model); }

void add_params_flag(CLI::App* cmd, std::optional<std::string>* params, const char* help_en, const char* help_zh) {
  BindInputs{cmd}(InputInfo{"--params", "", help_en, help_zh}, *params);
}

}  // namespace gpuplan::cli
