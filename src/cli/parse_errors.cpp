// CLI11 parse errors in Chinese (see parse_errors.hpp).
#include "parse_errors.hpp"

#include <fmt/format.h>

#include <regex>
#include <string>

namespace gpuplan::cli {
namespace {

// CLI11's type names (Option::get_type_name) as a Chinese engineer says them.
std::string zh_type_name(const std::string& type) {
  if (type == "INT" || type == "UINT") return "整数";
  if (type == "FLOAT") return "数字";
  if (type == "TEXT") return "文本";
  if (type == "BOOLEAN") return "true/false";
  return type;
}

bool matches(const std::string& text, const char* pattern, std::smatch* m) {
  return std::regex_match(text, *m, std::regex(pattern));
}

}  // namespace

std::string parse_error_zh(const CLI::ParseError& e) {
  const std::string msg = e.what();
  std::smatch m;
  if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
    // "The following argument(s) was/were not expected: --tpp 8"
    if (matches(msg, R"(The following arguments? (?:was|were) not expected: (.*))", &m)) {
      return fmt::format("无法识别的参数：{}。", m[1].str());
    }
  } else if (dynamic_cast<const CLI::RequiredError*>(&e)) {
    if (msg == "A subcommand is required") return "缺少命令（如 train、plan、infer、finetune、memory）。";
    if (matches(msg, R"((.+) is required)", &m)) return fmt::format("缺少必填参数 {}。", m[1].str());
  } else if (dynamic_cast<const CLI::ArgumentMismatch*>(&e)) {
    if (matches(msg, R"((\S+): (\d+) required (\S+) missing)", &m)) {
      return fmt::format("{} 缺少取值（需要 {} 个{}）。", m[1].str(), m[2].str(), zh_type_name(m[3].str()));
    }
    if (matches(msg, R"(Expected (exactly|at least) (\d+) arguments to (\S+), got (\d+))", &m)) {
      return fmt::format("{} 需要{} {} 个值，实际给了 {} 个。", m[3].str(), m[1].str() == "exactly" ? "正好" : "至少", m[2].str(), m[4].str());
    }
    if (matches(msg, R"((\S+): At (?:least|Most) (\d+) required but received (\d+))", &m)) {
      const bool most = msg.find("At Most") != std::string::npos;
      return fmt::format("{} {} {} 个值，实际给了 {} 个。", m[1].str(), most ? "最多接受" : "至少需要", m[2].str(), m[3].str());
    }
    if (matches(msg, R"((\S+) was given a disallowed flag override)", &m)) return fmt::format("{} 是开关参数，不能带值。", m[1].str());
  } else if (dynamic_cast<const CLI::ConversionError*>(&e)) {
    if (matches(msg, R"(Could not convert: (\S+) = (.*))", &m)) {
      return fmt::format("{} 的值 {} 无法解析，请检查类型（如整数、数字）。", m[1].str(), m[2].str());
    }
    if (matches(msg, R"(The value (.*) is not an allowed value for (\S+))", &m)) {
      return fmt::format("{} 不接受取值 {}。", m[2].str(), m[1].str());
    }
    if (matches(msg, R"((\S+): too many inputs for a flag)", &m)) return fmt::format("{} 是开关参数，不能带多个值。", m[1].str());
    if (matches(msg, R"((\S+): Should be true/false or a number)", &m)) return fmt::format("{} 须为 true/false 或数字。", m[1].str());
  } else if (dynamic_cast<const CLI::RequiresError*>(&e)) {
    if (matches(msg, R"((\S+) requires (\S+))", &m)) return fmt::format("{} 需要同时给出 {}。", m[1].str(), m[2].str());
  } else if (dynamic_cast<const CLI::ExcludesError*>(&e)) {
    if (matches(msg, R"((\S+) excludes (\S+))", &m)) return fmt::format("{} 与 {} 不能同时给出。", m[1].str(), m[2].str());
  } else if (dynamic_cast<const CLI::ValidationError*>(&e)) {
    if (matches(msg, R"((\S+): (.*))", &m)) return fmt::format("{} 的取值不合法（{}）。", m[1].str(), m[2].str());
  }
  return fmt::format("命令行参数有误（{}）。", msg);
}

}  // namespace gpuplan::cli
