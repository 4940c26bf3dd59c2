// One error type for bad input. Every front end turns it into one sentence
// naming the field and what is allowed, and exit status 2 (or HTTP 400).
#pragma once
#include <stdexcept>
#include <string>

namespace gpuplan {

class InputError : public std::runtime_error {
 public:
  InputError(std::string field, const std::string& message)
      : std::runtime_error(message), field_(std::move(field)) {}
  const std::string& field() const { return field_; }

 private:
  std::string field_;
};

}  // namespace gpuplan
