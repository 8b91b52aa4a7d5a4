#include "model_fetch.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "command.hpp"
#include "lorekeeper/core/sha256.hpp"
#include "lorekeeper/embed/encoder.hpp"
#include "lorekeeper/http/client.hpp"

namespace lorekeeper::cli {

namespace {

namespace fs = std::filesystem;

struct ModelFile {
  const char* name;
  const char* sha256;  // nullptr: checked by loading the model
};

constexpr ModelFile kFiles[] = {
    {"config.json", nullptr}, {"vocab.txt", kVocabSha256}, {"model.safetensors", kModelSha256}};

// Removes the staging directory however the fetch ends.
struct Staging {
  fs::path path;
  ~Staging() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
};

bool installed_and_valid(const std::string& dir) {
  for (const auto& f : kFiles) {
    if (f.sha256 == nullptr) continue;
    auto digest = sha256::file_hex(dir + "/" + f.name);
    if (!digest || *digest != f.sha256) return false;
  }
  return embed::Encoder::load(dir).is_ok();
}

}  // namespace

int run_model_fetch(const ModelFetchOptions& options) {
  if (!options.force && installed_and_valid(options.dir)) {
    std::printf("The model is already installed and valid in %s (--force downloads it again).\n", options.dir.c_str());
    return 0;
  }
  std::error_code ec;
  fs::create_directories(options.dir, ec);
  if (ec) {
    std::fprintf(stderr, "lorekeeper model fetch: cannot create %s: %s\n", options.dir.c_str(), ec.message().c_str());
    return 1;
  }
  Staging staging{fs::path(options.dir) / (".fetch-" + std::to_string(getpid()))};
  fs::create_directories(staging.path, ec);
  if (ec) {
    std::fprintf(stderr, "lorekeeper model fetch: cannot create %s: %s\n", staging.path.c_str(), ec.message().c_str());
    return 1;
  }
  const bool tty = isatty(STDERR_FILENO) != 0;
  http::Options http_options;
  http_options.connect_timeout_ms = options.connect_timeout_ms;
  http_options.low_speed_seconds = options.stall_seconds;
  std::string base = options.base_url;
  while (!base.empty() && base.back() == '/') base.pop_back();

  for (const auto& f : kFiles) {
    const std::string url = base + "/" + f.name;
    const std::string target = (staging.path / f.name).string();
    uint64_t last_shown = 0;
    auto progress = [&](uint64_t received, uint64_t total) {
      if (options.quiet || !tty || received - last_shown < (1u << 20)) return;
      last_shown = received;
      if (total > 0) {
        std::fprintf(stderr, "\r\033[K%s: %.1f of %.1f MB (%.0f%%)", f.name, received / 1e6, total / 1e6,
                     100.0 * static_cast<double>(received) / static_cast<double>(total));
      } else {
        std::fprintf(stderr, "\r\033[K%s: %.1f MB", f.name, received / 1e6);
      }
    };
    if (!options.quiet && !tty) std::fprintf(stderr, "downloading %s\n", url.c_str());
    auto status = http::download(http_options, url, target, progress);
    if (!options.quiet && tty) std::fprintf(stderr, "\r\033[K");
    if (!status) {
      std::fprintf(stderr, "lorekeeper model fetch: %s\nNothing was changed in %s.\n",
                   status.status().message().c_str(), options.dir.c_str());
      return 1;
    }
    if (*status < 200 || *status >= 300) {
      std::fprintf(stderr, "lorekeeper model fetch: GET %s: HTTP %ld\nNothing was changed in %s.\n", url.c_str(),
                   *status, options.dir.c_str());
      return 1;
    }
    if (f.sha256 != nullptr) {
      auto digest = sha256::file_hex(target);
      if (!digest || *digest != f.sha256) {
        std::fprintf(stderr,
                     "lorekeeper model fetch: %s from %s has sha256 %s, expected %s: refusing it.\nNothing was "
                     "changed in %s.\n",
                     f.name, url.c_str(), digest ? digest->c_str() : "(unreadable)", f.sha256, options.dir.c_str());
        return 1;
      }
    }
  }
  auto loaded = embed::Encoder::load(staging.path.string());
  if (!loaded) {
    std::fprintf(stderr, "lorekeeper model fetch: the downloaded files do not load: %s\nNothing was changed in %s.\n",
                 loaded.status().to_string().c_str(), options.dir.c_str());
    return 1;
  }
  loaded->reset();
  // Weights last: a reader that sees the new weights sees the new vocabulary and configuration too.
  for (const auto& f : kFiles) {
    fs::rename(staging.path / f.name, fs::path(options.dir) / f.name, ec);
    if (ec) {
      std::fprintf(stderr, "lorekeeper model fetch: cannot move %s into %s: %s\n", f.name, options.dir.c_str(),
                   ec.message().c_str());
      return 1;
    }
  }
  std::printf("Installed all-MiniLM-L6-v2 in %s (sha256 of the weights and vocabulary checked).\n",
              options.dir.c_str());
  return 0;
}

namespace {

// `model fetch` (the only subcommand of `model`).
class ModelCommand : public Command {
 public:
  CLI::App* add(CLI::App& app) override {
    auto* model = app.add_subcommand("model", "Manage the sentence embedding model (all-MiniLM-L6-v2)");
    model->require_subcommand(1);
    fetch_ = model->add_subcommand(
        "fetch", "Download the model from Hugging Face into the model directory (sha256 checked; atomic)");
    options_.base_url = kModelBaseUrl;
    fetch_->add_option("--url", options_.base_url, "Base URL of the model's files")
        ->envname("LOREKEEPER_MODEL_URL")
        ->capture_default_str();
    fetch_->add_flag("--force", options_.force, "Download even when a valid model is installed");
    fetch_->add_flag("--quiet", options_.quiet, "No progress output");
    return model;
  }
  bool chosen(const CLI::App&) const override { return fetch_->parsed(); }
  int run(Config&) override {
    options_.dir = embed::default_model_dir();
    return run_model_fetch(options_);
  }

 private:
  ModelFetchOptions options_;
  CLI::App* fetch_ = nullptr;
};

}  // namespace

std::unique_ptr<Command> model_command() { return std::make_unique<ModelCommand>(); }

}  // namespace lorekeeper::cli
