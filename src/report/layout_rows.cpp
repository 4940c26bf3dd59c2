#include "layout_rows.hpp"
#include "execution/layout_words.hpp"

#include <fmt/format.h>

#include "gpuplan/flops.hpp"

namespace gpuplan {

std::vector<Row> layout_rows(const Layout& l) {
  auto count = [](const char* key, const char* en, const char* zh, double v) {
    return Row{key, en, zh, v, Unit::kCount, "", {}, Audience::kPrograms};
  };
  std::vector<Row> rows{count("tp", "Tensor parallel", "张量并行", l.tp),
                        count("pp", "Pipeline stages", "流水线级数", l.pp),
                        count("dp", "Data-parallel replicas", "数据并行副本", l.dp),
                        count("cp", "Context parallel", "上下文并行", l.cp),
                        count("ep", "Expert parallel", "专家并行", l.ep),
                        count("vp", "Virtual stages per rank", "每卡虚拟流水级", l.vp),
                        count("micro_batch", "Micro-batch", "微批", static_cast<double>(l.micro_batch)),
                        count("global_batch", "Global batch", "全局批", static_cast<double>(l.effective_global_batch())),
                        count("zero", "ZeRO stage", "ZeRO 阶段", l.zero_stage),
                        Row{"recompute", "Recompute", "重计算", 0, Unit::kText, recompute_name(l.recompute), {}, Audience::kPrograms},
                        Row{"sequence_parallel", "Sequence parallel", "序列并行", l.sequence_parallel ? 1.0 : 0.0, Unit::kFlag, "", {},
                            Audience::kPrograms}};
  if (l.first_stage_layers) rows.push_back(count("first_stage_layers", "First-stage layers", "首级层数", *l.first_stage_layers));
  if (l.last_stage_layers) rows.push_back(count("last_stage_layers", "Last-stage layers", "末级层数", *l.last_stage_layers));
  if (l.ep > 1 && l.expert_tp() != l.tp) rows.push_back(count("etp", "Expert tensor parallel", "专家张量并行", l.expert_tp()));
  if (!l.pipeline_layout.empty()) {
    rows.push_back(Row{"pipeline_layout", "Pipeline layout", "流水线分段", 0, Unit::kText, l.pipeline_layout, {}, Audience::kPrograms});
  }
  return rows;
}

std::string degrees_zh(const Layout& l) {
  std::string out = fmt::format("TP {} × PP {} × DP {} × CP {}", l.tp, l.pp, l.dp, l.cp);
  if (l.ep > 1) out += fmt::format("，EP {}", l.ep);
  if (l.ep > 1 && l.expert_tp() != l.tp) out += fmt::format("，专家 TP {}", l.expert_tp());
  if (l.vp > 1) out += fmt::format("，VP {}", l.vp);
  if (l.dualpipe && l.pp > 1) out += "，DualPipe 调度";
  return out;
}

std::string recompute_zh(Recompute r) { return recompute_name_zh(r); }

std::string optimizer_zh(Optimizer o) {
  switch (o) {
    case Optimizer::kAdamW: return "AdamW";
    case Optimizer::kAdamW8bit: return "8 位 AdamW";
    case Optimizer::kPagedAdamW8bit: return "分页 8 位 AdamW";
    case Optimizer::kSgdMomentum: return "带动量 SGD";
  }
  return optimizer_name(o);
}

std::string recipe_zh(const Layout& l) {
  return fmt::format("微批 {} × {} 个微批，全局批 {}，ZeRO {}，{}{}", l.micro_batch, l.micro_batches(), l.effective_global_batch(),
                     l.zero_stage, recompute_zh(l.recompute), l.sequence_parallel ? "，序列并行" : "");
}

}  // namespace gpuplan
