// A Hugging Face config.json object read into a ModelSpec: the library's own
// reader, kept out of the installed headers so they need no JSON library
// (issue 31). Outside programs load a config with load_model(path) (model.hpp).
#pragma once
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "gpuplan/model.hpp"

namespace gpuplan {

// Builds a ModelSpec from a Hugging Face config.json object. Accepts the key
// names of the families in the catalog (Llama, Qwen, Mistral/Mixtral, DeepSeek,
// GPT-2/NeoX/OPT/BLOOM, Falcon, ChatGLM, Baichuan, InternLM2, Gemma, Phi-3).
// Throws InputError naming each missing or invalid key.
ModelSpec model_from_hf_config(const nlohmann::json& config, const std::string& origin);

}  // namespace gpuplan
