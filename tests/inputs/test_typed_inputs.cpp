// Inputs as people type them (issue 16 part 4): 万/亿 counts and Chinese or
// English durations are accepted everywhere a count or duration is parsed,
// and the report echoes how each was read, in English and Chinese.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "run_binary.hpp"

namespace {

using gpuplan_test::run_binary;

const std::string kRun = "train --params 7B --gpu a100-80g --mfu 0.4 ";

nlohmann::json run_json(const std::string& args) {
  const auto r = run_binary(args + " --format json", "2>&1");
  EXPECT_EQ(r.status, 0) << args << "\n" << r.out;
  return nlohmann::json::parse(r.out, nullptr, false);
}

TEST(TypedInputs, ChineseTokenCountsAreReadAndEchoed) {
  // 1万亿 = 1e4 · 1e8 = 1e12 tokens: the same run as --tokens 1T.
  const auto zh = run_json(kRun + "--tokens 1万亿 --gpus 64");
  const auto t = run_json(kRun + "--tokens 1T --gpus 64");
  EXPECT_DOUBLE_EQ(zh["inputs_as_read"]["tokens_as_read"].get<double>(), 1e12);
  EXPECT_DOUBLE_EQ(zh["workload"]["total_tokens"].get<double>(), 1e12);
  EXPECT_DOUBLE_EQ(zh["time"]["wall_clock_s"].get<double>(), t["time"]["wall_clock_s"].get<double>());
  EXPECT_DOUBLE_EQ(run_json(kRun + "--tokens 2000亿 --gpus 64")["workload"]["total_tokens"].get<double>(), 2e11);
}

TEST(TypedInputs, DeadlinesInDaysMonthsAndChinese) {
  // 30天, 1个月 and 1month are all 30 × 86,400 = 2,592,000 s.
  for (const char* d : {"30天", "1个月", "1month"}) {
    const auto j = run_json(kRun + "--tokens 1万亿 --deadline " + d);
    EXPECT_DOUBLE_EQ(j["inputs_as_read"]["deadline_as_read_s"].get<double>(), 2592000.0) << d;
    EXPECT_DOUBLE_EQ(j["time"]["deadline_s"].get<double>(), 2592000.0) << d;
  }
}

TEST(TypedInputs, EchoIsInBothLanguages) {
  const auto en = run_binary(kRun + "--tokens 1万亿 --deadline 1个月", "2>&1");
  ASSERT_EQ(en.status, 0) << en.out;
  EXPECT_NE(en.out.find("Inputs as read"), std::string::npos);
  EXPECT_NE(en.out.find("--tokens 1万亿"), std::string::npos);
  EXPECT_NE(en.out.find("1,000,000,000,000"), std::string::npos);
  EXPECT_NE(en.out.find("30.0 days"), std::string::npos) << en.out;
  const auto zh = run_binary(kRun + "--tokens 1万亿 --deadline 1个月 --lang zh", "2>&1");
  ASSERT_EQ(zh.status, 0) << zh.out;
  EXPECT_NE(zh.out.find("输入解析"), std::string::npos);
  EXPECT_NE(zh.out.find("30.0 天"), std::string::npos) << zh.out;
  // Plain numbers read the same to everyone and are not echoed.
  const auto plain = run_json("train --params 7000000000 --gpu a100-80g --mfu 0.4 --tokens 1000000000000 --gpus 64");
  EXPECT_FALSE(plain.contains("inputs_as_read"));
}

TEST(TypedInputs, FinetuneSamplesInWan) {
  const auto j = run_json("finetune --model llama-3.1-8b --gpu 4090 --samples 5万 --no-ranking");
  EXPECT_DOUBLE_EQ(j["inputs_as_read"]["samples_as_read"].get<double>(), 5e4);
}

}  // namespace
