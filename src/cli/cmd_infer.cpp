// gpuplan infer: GPUs, TP groups, latency and cost per million tokens of serving a model.
#include <memory>

#include "commands.hpp"
#include "common.hpp"
#include "inputs/infer_inputs.hpp"
#include "report/report.hpp"
#include "input_flags.hpp"

namespace gpuplan::cli {
namespace {

struct InferFlags {
  OutputOptions out;
  InferInputs in;
};

}  // namespace

void add_infer_command(CLI::App& app) {
  auto f = std::make_shared<InferFlags>();
  CLI::App* cmd = app.add_subcommand("infer", help_text("Serving: weights + KV cache memory, TTFT, time per output token, GPUs for a request rate, cost per million tokens",
      "推理服务：权重与 KV 缓存显存、TTFT、每输出 token 时间、满足请求速率所需卡数、每百万 token 费用"));
  add_model_flag(cmd, &f->in.model);
  visit_infer_inputs(f->in, BindInputs{cmd});
  add_output_options(cmd, &f->out);
  cmd->callback([f] {
    load_gpu_file(f->out);
    InferInputs in = f->in;
    in.lang = f->out.lang;
    print_report(infer_report_for(in), f->out);
  });
}

}  // namespace gpuplan::cli
