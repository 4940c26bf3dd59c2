// One error type for bad input. Every front end turns it into one sentence
// naming the field and what is allowed, and exit status 2 (or HTTP 400).
//
// The sentence comes in English and in Chinese, both built where the error is
// thrown (the place that knows the field, the value and what is allowed), so a
// front end only chooses: the CLI prints zh() under --lang zh, the web API
// returns both and the page shows the one of its language. what() stays
// English, for the Python binding's ValueError and for logs.
#pragma once
#include <stdexcept>
#include <string>

namespace gpuplan {

// Why something is refused, in both languages: what a helper returns for its
// caller to put into an InputError's sentence ("{flag}: {why}.").
struct Reason {
  std::string en;
  std::string zh;
  bool empty() const { return en.empty(); }
};

class InputError : public std::runtime_error {
 public:
  InputError(std::string field, const std::string& en, std::string zh)
      : std::runtime_error(en), field_(std::move(field)), zh_(std::move(zh)) {}
  // English only: kept for sites not yet translated (zh() then falls back to
  // the English). scripts/count_input_errors.py counts the sites left.
  InputError(std::string field, const std::string& message)
      : std::runtime_error(message), field_(std::move(field)) {}

  const std::string& field() const { return field_; }
  // The sentence in Chinese; the English one where the site has no zh twin.
  std::string zh() const { return zh_.empty() ? std::string(what()) : zh_; }
  bool has_zh() const { return !zh_.empty(); }

 private:
  std::string field_;
  std::string zh_;
};

}  // namespace gpuplan
