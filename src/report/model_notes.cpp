#include "report/model_notes.hpp"

#include <fmt/format.h>

namespace gpuplan {

void add_model_scope_warning(Report& rep, const ModelSpec& m) {
  if (!m.vision_tower_ignored) return;
  std::string size_en = "its size was not read", size_zh = "未读出其规模";
  if (m.vision_tower_params > 0) {
    size_en = fmt::format("{} layers, hidden {}, ~{:.2f}B parameters", m.vision_tower_layers, m.vision_tower_hidden, m.vision_tower_params / 1e9);
    size_zh = fmt::format("{} 层，隐藏维度 {}，约 {:.2f}B 参数", m.vision_tower_layers, m.vision_tower_hidden, m.vision_tower_params / 1e9);
  }
  rep.blocking.insert(rep.blocking.begin(),
                      Note{fmt::format("The config's vision tower (vision_config: {}) is not counted: parameters, memory, FLOPs and time "
                                       "are the language model's (text_config) only. Image tokens count as the LM's tokens; the "
                                       "encoder's own work per image is extra.",
                                       size_en),
                           fmt::format("配置中的视觉编码器（vision_config：{}）未计入：参数、显存、FLOPs 和时间只算语言模型（text_config）。"
                                       "图像 token 按语言模型的 token 计；编码器处理每张图像的计算另算。",
                                       size_zh)});
}

}  // namespace gpuplan
