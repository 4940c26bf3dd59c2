// The data/ catalogs compiled into the binary (see cmake/EmbedData.cmake).
#pragma once
#include <string>
#include <vector>

namespace gpuplan {

struct EmbeddedFile {
  std::string path;     // relative to data/, e.g. "models/llama-3.1-70b.json"
  std::string content;
};

const std::vector<EmbeddedFile>& embedded_files();

}  // namespace gpuplan
