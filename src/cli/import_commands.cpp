#include "command.hpp"
#include "import.hpp"
#include "lorekeeper/embed/encoder.hpp"
#include "lorekeeper/serve/engines.hpp"

namespace lorekeeper::cli {

namespace {

class ImportCommand : public Command {
 public:
  CLI::App* add(CLI::App& app) override {
    auto* import =
        app.add_subcommand("import", "Import OrcBrew homebrew packs (.orcbrew); importing a pack again replaces it");
    import->add_option("file", files_, "OrcBrew files")->required();
    import->add_flag("--dry-run", dry_run_, "Read and report what would be imported; write nothing");
    import->add_flag("--json", as_json_, "Print the report as JSON");
    import->add_flag("--no-embed", no_embed_, "Do not embed the imported entities for semantic search");
    return import;
  }
  int run(Config& cfg) override {
    ImportOptions options;
    options.dry_run = dry_run_;
    options.as_json = as_json_;
    options.embed = !no_embed_ && cfg.embed != "off";
    options.model_dir = embed::default_model_dir();
    options.threads = cfg.embed_threads;
    options.max_passages = cfg.embed_passages;
    options.bootstrap = [c = cfg](const std::string& path) { return serve::bootstrap_from_bundled(c, path); };
    return run_import(cfg.db_path, files_, options);
  }

 private:
  std::vector<std::string> files_;
  bool dry_run_ = false;
  bool as_json_ = false;
  bool no_embed_ = false;
};

class RemoveCommand : public Command {
 public:
  CLI::App* add(CLI::App& app) override {
    auto* remove = app.add_subcommand("remove", "Remove imported OrcBrew packs and their entities");
    remove->add_option("pack", packs_, "Pack names or document keys (see: lorekeeper documents --source orcbrew)")
        ->required();
    remove->add_flag("--json", as_json_, "Print the report as JSON");
    return remove;
  }
  int run(Config& cfg) override { return run_remove(cfg.db_path, packs_, as_json_); }

 private:
  std::vector<std::string> packs_;
  bool as_json_ = false;
};

}  // namespace

std::unique_ptr<Command> import_command() { return std::make_unique<ImportCommand>(); }
std::unique_ptr<Command> remove_command() { return std::make_unique<RemoveCommand>(); }

}  // namespace lorekeeper::cli
