#include "inputs/choice_words.hpp"
#include "units/quantity_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "gpuplan/error.hpp"
#include "gpuplan/hardware.hpp"  // find_gpu
#include "gpuplan/units.hpp"
#include "units/text_match.hpp"

namespace gpuplan {

Optimizer parse_optimizer(const std::string& text, const std::string& field) {
  const std::string t = normalize_name(text);
  if (t == "adamw" || t == "adam") return Optimizer::kAdamW;
  if (t == "adamw8bit" || t == "adamw-8bit" || t == "adam8bit") return Optimizer::kAdamW8bit;
  if (t == "paged-adamw8bit" || t == "paged-adamw-8bit") return Optimizer::kPagedAdamW8bit;
  if (t == "sgd" || t == "sgd-momentum") return Optimizer::kSgdMomentum;
  throw InputError(field, fmt::format("{} must be adamw, adamw8bit, paged_adamw8bit or sgd (got '{}').", field, text),
                   fmt::format("{} 须为 adamw、adamw8bit、paged_adamw8bit 或 sgd（输入为 '{}'）。", field, text));
}

Recompute parse_recompute(const std::string& text, const std::string& field) {
  const std::string t = normalize_name(text);
  if (t == "none" || t == "off" || t == "no") return Recompute::kNone;
  if (t == "selective") return Recompute::kSelective;
  if (t == "full" || t == "on" || t == "yes") return Recompute::kFull;
  throw InputError(field, fmt::format("{} must be none, selective or full (got '{}').", field, text),
                   fmt::format("{} 须为 none（不重计算）、selective（选择性）或 full（全量）（输入为 '{}'）。", field, text));
}

WeightFormat parse_weight_format(const std::string& text, const std::string& field) {
  if (text == "fp16" || text == "float16" || text == "half") return WeightFormat::kFp16;
  if (text == "bf16" || text == "bfloat16") return WeightFormat::kBf16;
  if (text == "fp8" || text == "float8" || text == "e4m3") return WeightFormat::kFp8;
  if (text == "int8" || text == "w8a16" || text == "w8") return WeightFormat::kInt8;
  if (text == "int4" || text == "w4a16" || text == "w4" || text == "awq" || text == "gptq") return WeightFormat::kInt4;
  throw InputError(field, fmt::format("{} must be one of fp16, bf16, fp8, int8, int4 (got '{}').", field, text),
                   fmt::format("{} 须为 fp16、bf16、fp8、int8、int4 之一（输入为 '{}'）。", field, text));
}

std::vector<LoraModule> parse_lora_modules(const std::string& text, const std::string& field) {
  std::vector<LoraModule> out;
  auto add = [&](LoraModule m) {
    if (std::find(out.begin(), out.end(), m) == out.end()) out.push_back(m);
  };
  std::string item;
  auto flush = [&] {
    std::string s;
    for (char ch : item) {
      if (ch != ' ') s += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    }
    item.clear();
    if (s.empty()) return;
    if (s == "all" || s == "all-linear" || s == "all_linear") {
      for (LoraModule m : {LoraModule::kQ, LoraModule::kK, LoraModule::kV, LoraModule::kO, LoraModule::kGate,
                           LoraModule::kUp, LoraModule::kDown}) add(m);
      return;
    }
    if (s == "attn" || s == "attention") {
      for (LoraModule m : {LoraModule::kQ, LoraModule::kK, LoraModule::kV, LoraModule::kO}) add(m);
      return;
    }
    if (s == "mlp") {
      for (LoraModule m : {LoraModule::kGate, LoraModule::kUp, LoraModule::kDown}) add(m);
      return;
    }
    if (s == "q" || s == "q_proj" || s == "wq") return add(LoraModule::kQ);
    if (s == "k" || s == "k_proj" || s == "wk") return add(LoraModule::kK);
    if (s == "v" || s == "v_proj" || s == "wv") return add(LoraModule::kV);
    if (s == "o" || s == "o_proj" || s == "out_proj" || s == "wo") return add(LoraModule::kO);
    if (s == "gate" || s == "gate_proj" || s == "w1") return add(LoraModule::kGate);
    if (s == "up" || s == "up_proj" || s == "w3" || s == "fc1") return add(LoraModule::kUp);
    if (s == "down" || s == "down_proj" || s == "w2" || s == "fc2") return add(LoraModule::kDown);
    throw InputError(field, fmt::format("{} has an unknown module '{}'; use q, k, v, o, gate, up, down, attn, mlp or all.", field, s),
                     fmt::format("{} 中有未知模块 '{}'；可用 q、k、v、o、gate、up、down、attn、mlp 或 all。", field, s));
  };
  for (char ch : text) {
    if (ch == ',') flush();
    else item += ch;
  }
  flush();
  if (out.empty()) {
    throw InputError(field, fmt::format("{} names no module; use q, k, v, o, gate, up, down or all.", field),
                     fmt::format("{} 没有给出任何模块；可用 q、k、v、o、gate、up、down 或 all。", field));
  }
  return out;
}

Phase parse_phase(const std::string& text) {
  std::vector<std::string> parts;
  std::string cur;
  for (char c : text) {
    if (c == ':') {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  parts.push_back(cur);
  if (parts.size() < 4 || parts.size() > 5 || parts[0].empty()) {
    throw InputError("--phase", fmt::format("--phase must look like NAME:GPU:COUNT:DURATION[:PRICE], e.g. "
                                            "debug:a100-80g:10:72h:12cny (got '{}').", text),
                     fmt::format("--phase 的格式应为 名称:GPU:卡数:时长[:价格]，如 debug:a100-80g:10:72h:12cny（输入为 '{}'）。", text));
  }
  Phase ph;
  ph.name = parts[0];
  ph.gpu_id = find_gpu(parts[1]).id;
  ph.gpus = parse_count(parts[2], "--phase GPU count");
  ph.hours = parse_duration_s(parts[3], "--phase duration") / kSecondsPerHour;
  if (parts.size() == 5) ph.price.text = parts[4];
  return ph;
}

}  // namespace gpuplan
